package cuda

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

func TestTF32Round(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		in   float32
		want float32
	}{
		{"a value with 10 mantissa bits stays", 1 + 0x1p-10, 1 + 0x1p-10},
		{"below half an ulp rounds down", 1 + 0x1p-11 - 0x1p-23, 1},
		{"a tie rounds away from zero", 1 + 0x1p-11, 1 + 0x1p-10},
		{"a negative tie rounds away from zero", -(1 + 0x1p-11), -(1 + 0x1p-10)},
		{"zero stays", 0, 0},
		{"the largest float32 overflows, as in hardware", math.MaxFloat32, float32(math.Inf(1))},
		{"infinity stays", float32(math.Inf(-1)), float32(math.Inf(-1))},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tf32Round(c.in); got != c.want {
				t.Fatalf("tf32Round(%g) = %g, want %g", c.in, got, c.want)
			}
		})
	}
	if x := tf32Round(float32(math.NaN())); !math.IsNaN(float64(x)) {
		t.Fatalf("NaN became %g", x)
	}
}

// nearTau returns unit rows in pairs (2p, 2p+1) whose exact cosine is
// tau + offsets[p % len(offsets)], with random directions, so that TF32
// products, off by up to about 2e-3, put many of them on the wrong side.
func nearTau(pairs, d int, tau float64, offsets []float64, seed uint64) *kernels.Matrix {
	rng := rand.New(rand.NewPCG(seed, 17))
	m := kernels.NewMatrix(2*pairs, d)
	a, u := make([]float64, d), make([]float64, d)
	unit := func(x []float64) {
		var s float64
		for _, v := range x {
			s += v * v
		}
		for i := range x {
			x[i] /= math.Sqrt(s)
		}
	}
	for p := 0; p < pairs; p++ {
		for k := range a {
			a[k], u[k] = rng.NormFloat64(), rng.NormFloat64()
		}
		unit(a)
		var dot float64
		for k := range a {
			dot += a[k] * u[k]
		}
		for k := range u {
			u[k] -= dot * a[k]
		}
		unit(u)
		c := tau + offsets[p%len(offsets)]
		s := math.Sqrt(1 - c*c)
		ra, rb := m.Row(2*p), m.Row(2*p+1)
		for k := range a {
			ra[k] = float32(a[k])
			rb[k] = float32(c*a[k] + s*u[k])
		}
	}
	return m
}

// liar reports FP32 while its products round the inputs to TF32: with the
// FP32 band the re-check is too narrow, which the test must see.
type liar struct{ Host }

func (liar) Precision() Precision { return FP32 }

// TestBandedJoinGivesTheFP32Pairs: on pairs planted within a
// precision's band of tau (either side), the join on a device computing
// TF32 or BF16 products (Host's ports of gemm_tf32_nt and gemm_bf16_nt)
// gives exactly the CPU join's pairs in the same order, where a threshold
// on those products alone, or the same products under the FP32 band, gets
// pairs wrong.
func TestBandedJoinGivesTheFP32Pairs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const tau = 0.9
	for _, p := range []struct {
		prec    Precision
		offsets []float64 // from tau, within the precision's band
		seed    uint64
	}{
		{TF32, []float64{-1.9e-3, -1e-3, -3e-4, -1e-5, -1e-6, 1e-6, 1e-5, 3e-4, 1e-3, 1.9e-3}, 1},
		{BF16, []float64{-1.5e-2, -8e-3, -2e-3, -3e-4, -1e-5, -1e-6, 1e-6, 1e-5, 3e-4, 2e-3, 8e-3, 1.5e-2}, 3},
	} {
		t.Run(p.prec.String(), func(t *testing.T) {
			x := nearTau(600, 256, tau, p.offsets, p.seed)
			want := collect(t, func(emit func([]kernels.Pair) error) error {
				return kernels.ThresholdJoin(ctx, x, nil, tau, kernels.Options{}, emit)
			})
			if len(want) < 250 {
				t.Fatalf("the CPU join found %d pairs: the planting failed", len(want))
			}
			// The products alone misjudge some planted pairs.
			w, _ := Host{Rows: 1200, Cols: 1200, Prec: p.prec}.NewWorker()
			r, _ := Host{}.Upload(x)
			if err := w.Product(Tile{A: r, B: r, R0: 0, Rows: x.Rows, C0: 0, Cols: x.Rows, Mask: Upper}); err != nil {
				t.Fatal(err)
			}
			naive, err := w.Extract(slices.Repeat([]float32{tau}, x.Rows), nil)
			if err != nil {
				t.Fatal(err)
			}
			wrong := 0
			for _, c := range naive {
				if kernels.Dot64(x.Row(int(c.Row)), x.Row(int(c.Col))) < tau {
					wrong++
				}
			}
			wrong += len(want) - (len(naive) - wrong)
			if wrong == 0 {
				t.Fatalf("%v products decide every planted pair right: the case tests nothing", p.prec)
			}
			t.Logf("a threshold on the %v products alone gets %d of %d planted pairs wrong", p.prec, wrong, len(want))
			for _, c := range []struct {
				name      string
				dev       Device
				wantEqual bool
			}{
				{"its band, many tiles", Host{Rows: 64, Cols: 200, Prec: p.prec}, true},
				{"its band, one tile", Host{Rows: 2048, Cols: 2048, Prec: p.prec}, true},
				{"the FP32 band", liar{Host{Rows: 64, Cols: 200, Prec: p.prec}}, false},
			} {
				t.Run(c.name, func(t *testing.T) {
					be := &Backend{Device: c.dev, Workers: 2}
					got := collect(t, func(emit func([]kernels.Pair) error) error {
						return be.ThresholdJoin(ctx, x, nil, tau, kernels.Options{}, emit)
					})
					if eq := slices.Equal(got, want); eq != c.wantEqual {
						t.Fatalf("%d pairs, the CPU's %d: equal %v, want %v", len(got), len(want), eq, c.wantEqual)
					}
				})
			}
		})
	}
}

// TestTF32TopKGivesTheFP32Neighbours: the same for top-k, where each
// planted partner competes with rows just below it.
func TestTF32TopKGivesTheFP32Neighbours(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	x := nearTau(300, 128, 0.9, []float64{-1e-3, -1e-4, 0, 1e-4, 1e-3}, 2)
	for _, k := range []int{1, 3} {
		want, err := kernels.TopKEarlier(ctx, x, k, kernels.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := (&Backend{Device: Host{Rows: 50, Cols: 70, Prec: TF32}}).TopKEarlier(ctx, x, k, kernels.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Index, want.Index) || !slices.Equal(got.Sim, want.Sim) {
			t.Fatalf("top-%d under TF32 differs from the CPU's", k)
		}
	}
}
