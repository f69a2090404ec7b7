package cuda

import (
	"context"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// TestBF16TopKGivesTheFP32Neighbours: as TestBandedJoinGivesTheFP32Pairs
// for BF16, for both top-k searches.
func TestBF16TopKGivesTheFP32Neighbours(t *testing.T) {
	t.Parallel()
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
