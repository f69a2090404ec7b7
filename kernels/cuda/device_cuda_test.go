//go:build cuda

package cuda

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// openOrSkip opens cuda:0 as opt says or skips, naming why no device
// answered (on a machine with only the toolkit's stub libcuda, cuInit's
// CUDA_ERROR_STUB_LIBRARY).
func openOrSkip(t *testing.T, opt OpenOptions) *GPU {
	t.Helper()
	g, err := Open(0, opt)
	if err != nil {
		t.Skipf("no GPU answers: %v", err)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Error(err)
		}
	})
	return g
}

// TestGPUMatchesCPU holds each way of computing tiles on the GPU (cuBLAS
// in fp32, tf32 and bf16; the own sgemm_nt, gemm_tf32_nt, gemm_bf16_nt) to
// the CPU kernels: the join's
// pairs in order, top-k and prequential top-k neighbour for neighbour,
// on shapes that leave partial tiles.
func TestGPUMatchesCPU(t *testing.T) {
	ctx := context.Background()
	a := plantedRows(5000, 200, 11)
	q := nearCopies(a, 700, 12)
	for _, c := range []struct {
		name string
		opt  OpenOptions
	}{
		{"cuBLAS fp32", OpenOptions{}},
		{"own GEMM kernel", OpenOptions{NoCUBLAS: true}},
		{"cuBLAS tf32", OpenOptions{Precision: TF32}},
		{"own tf32 mma kernel", OpenOptions{NoCUBLAS: true, Precision: TF32}},
		{"cuBLAS bf16", OpenOptions{Precision: BF16}},
		{"own bf16 mma kernel", OpenOptions{NoCUBLAS: true, Precision: BF16}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := openOrSkip(t, c.opt)
			t.Logf("device %s", g.Name())
			be := &Backend{Device: g}
			for _, tau := range []float32{0.9, 0.5} {
				want := collect(t, func(emit func([]kernels.Pair) error) error {
					return kernels.ThresholdJoin(ctx, a, nil, tau, kernels.Options{}, emit)
				})
				got := collect(t, func(emit func([]kernels.Pair) error) error {
					return be.ThresholdJoin(ctx, a, nil, tau, kernels.Options{}, emit)
				})
				if !slices.Equal(got, want) {
					t.Fatalf("tau %v: %d pairs, CPU %d (first difference at %d)", tau, len(got), len(want), firstDiff(got, want))
				}
			}
			for _, k := range []int{1, 10, 300} {
				want, err := kernels.TopK(ctx, q, a, k, kernels.Options{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := be.TopK(ctx, q, a, k, kernels.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Index, want.Index) || !slices.Equal(got.Sim, want.Sim) {
					t.Fatalf("top-%d differs from the CPU's", k)
				}
				want, err = kernels.TopKEarlier(ctx, a, k, kernels.Options{})
				if err != nil {
					t.Fatal(err)
				}
				got, err = be.TopKEarlier(ctx, a, k, kernels.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Index, want.Index) || !slices.Equal(got.Sim, want.Sim) {
					t.Fatalf("earlier top-%d differs from the CPU's", k)
				}
			}
		})
	}
}

// TestOpenRefusesAMissingOrdinal: the error names the device.
func TestOpenRefusesAMissingOrdinal(t *testing.T) {
	openOrSkip(t, OpenOptions{})
	if g, err := Open(1<<20, OpenOptions{}); err == nil {
		g.Close()
		t.Fatal("opened cuda:1048576")
	}
}

// TestGPUJointKernelMatchesCPU holds the joint kernel's products and the
// Vendi estimate on the GPU (cuBLAS and the own kernels; K resident and
// formed per product) to the CPU operator's, at a size that leaves partial
// 4096-row tiles.
func TestGPUJointKernelMatchesCPU(t *testing.T) {
	openOrSkip(t, OpenOptions{}) // before the CPU reference's seconds
	ctx := context.Background()
	const n = 9000
	v, tx := cone(21, n, 96, 30), cone(22, n, 64, 40)
	ref, err := kernels.FormJointKernel(ctx, v, tx, nil, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := kernels.SLQConfig{Seed: 3}
	want, err := kernels.VendiEstimate(ctx, ref, 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	x := randomBlock(n, 32, 4)
	wantY := make([]float64, len(x))
	if err := ref.Apply(ctx, x, 32, wantY); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		opt   OpenOptions
		bytes int64
	}{
		{"cuBLAS, K resident", OpenOptions{}, 0},
		{"cuBLAS, K formed per product", OpenOptions{}, -1},
		{"own kernels, K resident", OpenOptions{NoCUBLAS: true}, 0},
		{"cuBLAS opened for tf32 joins still forms K in fp32", OpenOptions{Precision: TF32}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := openOrSkip(t, c.opt)
			k, err := NewJointKernel(ctx, g, v, tx, nil, JointKernelOptions{KernelBytes: c.bytes})
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			y := make([]float64, len(x))
			if err := k.Apply(ctx, x, 32, y); err != nil {
				t.Fatal(err)
			}
			if d := relDiff(y, wantY); d > 1e-5 {
				t.Errorf("products differ from the CPU's by %.3g relative", d)
			}
			got, err := kernels.VendiEstimate(ctx, k, 1, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(got.Score-want.Score) / want.Score; d > 1e-4 {
				t.Errorf("estimate %.8g, the CPU's %.8g: %.3g relative", got.Score, want.Score, d)
			}
		})
	}
}
