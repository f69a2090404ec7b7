package cuda

import (
	"context"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// TestBF16JoinGivesTheFP32Pairs: on pairs planted within the BF16 band of
// tau (either side, 1e-6 to 1.5e-2 off), the join on a device computing
// BF16 products (Host's port of gemm_bf16_nt) gives exactly the CPU
// join's pairs in the same order, where a threshold on the BF16 products
// alone, or the same products under a narrower band, gets pairs wrong.
func TestBF16JoinGivesTheFP32Pairs(t *testing.T) {
	ctx := context.Background()
	const tau = 0.9
	offsets := []float64{-1.5e-2, -8e-3, -2e-3, -3e-4, -1e-5, -1e-6, 1e-6, 1e-5, 3e-4, 2e-3, 8e-3, 1.5e-2}
	x := nearTau(600, 256, tau, offsets, 3)
	want := collect(t, func(emit func([]kernels.Pair) error) error {
		return kernels.ThresholdJoin(ctx, x, nil, tau, kernels.Options{}, emit)
	})
	if len(want) < 250 {
		t.Fatalf("the CPU join found %d pairs: the planting failed", len(want))
	}
	w, _ := Host{Rows: 1200, Cols: 1200, Prec: BF16}.NewWorker()
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
		t.Fatal("BF16 products decide every planted pair right: the case tests nothing")
	}
	t.Logf("a threshold on the BF16 products alone gets %d of %d planted pairs wrong", wrong, len(want))
	for _, c := range []struct {
		name      string
		dev       Device
		wantEqual bool
	}{
		{"BF16 with its band, many tiles", Host{Rows: 64, Cols: 200, Prec: BF16}, true},
		{"BF16 with its band, one tile", Host{Rows: 2048, Cols: 2048, Prec: BF16}, true},
		{"BF16 products under the FP32 band", liar{Host{Rows: 64, Cols: 200, Prec: BF16}}, false},
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
}

// TestBF16TopKGivesTheFP32Neighbours: the same for both top-k searches.
func TestBF16TopKGivesTheFP32Neighbours(t *testing.T) {
	ctx := context.Background()
	x := nearTau(300, 128, 0.9, []float64{-1e-2, -1e-3, -1e-4, 0, 1e-4, 1e-3, 1e-2}, 4)
	q := &kernels.Matrix{Rows: 90, Cols: x.Cols, Data: x.Data[:90*x.Cols]}
	be := &Backend{Device: Host{Rows: 50, Cols: 70, Prec: BF16}}
	for _, k := range []int{1, 3} {
		want, err := kernels.TopKEarlier(ctx, x, k, kernels.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := be.TopKEarlier(ctx, x, k, kernels.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Index, want.Index) || !slices.Equal(got.Sim, want.Sim) {
			t.Fatalf("prequential top-%d under BF16 differs from the CPU's", k)
		}
		want, err = kernels.TopK(ctx, q, x, k, kernels.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err = be.TopK(ctx, q, x, k, kernels.Options{}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Index, want.Index) || !slices.Equal(got.Sim, want.Sim) {
			t.Fatalf("top-%d under BF16 differs from the CPU's", k)
		}
	}
}
