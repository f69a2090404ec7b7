package kernels_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// searcher is a backend of both kinds, as BySize and kernels.CPU are.
type searcher interface {
	kernels.Joiner
	kernels.NeighbourSearcher
}

// BySize sends a search to its backend from MinWork multiply-adds on and
// keeps the smaller ones on the CPU; either way the result is the CPU's.
func TestBySizeCutsAtMinWork(t *testing.T) {
	ctx := context.Background()
	a, b := clustered(3, 230, 20), clustered(4, 170, 20)
	pairs := func(f func(emit func([]kernels.Pair) error) error) (any, error) {
		var out []kernels.Pair
		err := f(func(ps []kernels.Pair) error { out = append(out, ps...); return nil })
		return out, err
	}
	tests := []struct {
		name string
		work int64 // the search's multiply-adds as BySize counts them
		run  func(s searcher) (any, error)
	}{
		{"join", 230 * 170 * 20, func(s searcher) (any, error) {
			return pairs(func(emit func([]kernels.Pair) error) error {
				return s.ThresholdJoin(ctx, a, b, 0.9, kernels.Options{}, emit)
			})
		}},
		{"self-join", 230 * 230 * 20, func(s searcher) (any, error) {
			return pairs(func(emit func([]kernels.Pair) error) error {
				return s.ThresholdJoin(ctx, a, nil, 0.9, kernels.Options{}, emit)
			})
		}},
		{"top-k", 170 * 230 * 20, func(s searcher) (any, error) { return s.TopK(ctx, b, a, 5, kernels.Options{}) }},
		{"prequential top-k", 230 * 115 * 20, func(s searcher) (any, error) { return s.TopKEarlier(ctx, a, 5, kernels.Options{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := tt.run(kernels.CPU{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				minWork int64
				large   bool
			}{{tt.work, true}, {tt.work + 1, false}} {
				r := &recorder{b: &cuda.Backend{Device: cuda.Host{Rows: 16, Cols: 40}}}
				got, err := tt.run(kernels.BySize{Joiner: r, Searcher: r, MinWork: c.minWork})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("MinWork %d: the result differs from the CPU's", c.minWork)
				}
				if (r.calls > 0) != c.large {
					t.Errorf("MinWork %d: %d backend calls, want the backend %v", c.minWork, r.calls, c.large)
				}
			}
		})
	}
}
