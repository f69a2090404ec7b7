package kernels_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// recorder is a backend that counts what it is handed and notes whether
// the Options it got still named a backend (they must not: a backend
// falling back to the package functions would call itself again).
type recorder struct {
	b        *cuda.Backend
	mu       sync.Mutex
	calls    int
	withBack bool
}

func (r *recorder) note(opt kernels.Options) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	r.withBack = r.withBack || opt.Joiner != nil || opt.Searcher != nil
}

func (r *recorder) ThresholdJoin(ctx context.Context, a, b *kernels.Matrix, tau float32, opt kernels.Options, emit func([]kernels.Pair) error) error {
	r.note(opt)
	return r.b.ThresholdJoin(ctx, a, b, tau, opt, emit)
}

func (r *recorder) TopK(ctx context.Context, q, x *kernels.Matrix, k int, opt kernels.Options) (*kernels.Neighbours, error) {
	r.note(opt)
	return r.b.TopK(ctx, q, x, k, opt)
}

func (r *recorder) TopKEarlier(ctx context.Context, x *kernels.Matrix, k int, opt kernels.Options) (*kernels.Neighbours, error) {
	r.note(opt)
	return r.b.TopKEarlier(ctx, x, k, opt)
}

// clustered is n unit rows of width d around a few centres (the same for
// every seed), so that a threshold of 0.9 keeps many pairs and the nearest
// rows are close calls.
func clustered(seed uint64, n, d int) *kernels.Matrix {
	r := rand.New(rand.NewPCG(9, 5))
	centres := make([][]float32, 6)
	for c := range centres {
		centres[c] = make([]float32, d)
		for k := range centres[c] {
			centres[c][k] = float32(r.NormFloat64())
		}
	}
	r = rand.New(rand.NewPCG(seed, 5))
	m := kernels.NewMatrix(n, d)
	for i := range n {
		c := centres[r.IntN(len(centres))]
		for k := range m.Row(i) {
			m.Row(i)[k] = c[k] + 0.25*float32(r.NormFloat64())
		}
	}
	kernels.NormalizeRows(m)
	return m
}

// The package's searches run on the backend their Options name, with the
// CPU kernels' results: the joins (whole and row-streamed, where every
// tile pair goes to the backend), the top-k and the prequential top-k, at
// 1 and 3 threads over the Host device's small tiles.
func TestSearchesRunOnTheOptionsBackend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := clustered(1, 230, 20), clustered(2, 170, 20)
	join := func(f func(opt kernels.Options, emit func([]kernels.Pair) error) error) func(kernels.Options) (any, error) {
		return func(opt kernels.Options) (any, error) {
			var out []kernels.Pair
			err := f(opt, func(ps []kernels.Pair) error { out = append(out, ps...); return nil })
			return out, err
		}
	}
	const tile = 64
	tests := []struct {
		name  string
		run   func(kernels.Options) (any, error)
		calls int // the backend calls it takes; 0: at least one
	}{
		{"self-join", join(func(opt kernels.Options, emit func([]kernels.Pair) error) error {
			return kernels.ThresholdJoin(ctx, a, nil, 0.9, opt, emit)
		}), 1},
		{"join", join(func(opt kernels.Options, emit func([]kernels.Pair) error) error {
			return kernels.ThresholdJoin(ctx, a, b, 0.9, opt, emit)
		}), 1},
		// 230 rows in tiles of 64: 4 query tiles, 4+3+2+1 tile pairs.
		{"row-streamed self-join", join(func(opt kernels.Options, emit func([]kernels.Pair) error) error {
			return kernels.ThresholdJoinRows(ctx, a, nil, 0.9, tile, opt, emit)
		}), 10},
		// 4 query tiles against 3 key tiles of 170 rows.
		{"row-streamed join", join(func(opt kernels.Options, emit func([]kernels.Pair) error) error {
			return kernels.ThresholdJoinRows(ctx, a, b, 0.9, tile, opt, emit)
		}), 12},
		{"top-k", func(opt kernels.Options) (any, error) { return kernels.TopK(ctx, b, a, 7, opt) }, 1},
		{"prequential top-k", func(opt kernels.Options) (any, error) { return kernels.TopKEarlier(ctx, a, 7, opt) }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := tt.run(kernels.Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			if ps, ok := want.([]kernels.Pair); ok && len(ps) == 0 {
				t.Fatal("the CPU found no pair: the case tests nothing")
			}
			for _, threads := range []int{1, 3} {
				r := &recorder{b: &cuda.Backend{Device: cuda.Host{Rows: 16, Cols: 40}, Workers: threads}}
				got, err := tt.run(kernels.Options{Threads: threads, Joiner: r, Searcher: r})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%d threads: the backend's result differs from the CPU's", threads)
				}
				if r.calls != tt.calls {
					t.Errorf("%d threads: the backend got %d calls, want %d", threads, r.calls, tt.calls)
				}
				if r.withBack {
					t.Errorf("%d threads: the backend was handed Options that name a backend", threads)
				}
			}
		})
	}
}

// Leader clustering joins each block of rows against the leaders of the
// earlier blocks on the backend its Options name (one call per block after
// the first: 700 rows are three blocks of 256), with the CPU's clusters,
// directly and behind an Offload that sends every search there.
func TestLeaderClustersRunOnTheOptionsBackend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	x := clustered(3, 700, 20)
	want, err := kernels.LeaderClusters(ctx, x, 0.95, kernels.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	leaders := map[int32]bool{}
	for _, l := range want {
		leaders[l] = true
	}
	if len(leaders) < 2 || len(leaders) > len(want)/2 {
		t.Fatalf("%d leaders of %d rows: the case tests nothing", len(leaders), len(want))
	}
	for _, tt := range []struct {
		name    string
		threads int
		offload bool
	}{{"1 thread", 1, false}, {"3 threads", 3, false}, {"3 threads, offloaded", 3, true}} {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{b: &cuda.Backend{Device: cuda.Host{Rows: 16, Cols: 40}, Workers: tt.threads}}
			var j kernels.Joiner = r
			if tt.offload {
				j = kernels.NewOffload(r, r, 1, 1)
			}
			got, err := kernels.LeaderClusters(ctx, x, 0.95, kernels.Options{Threads: tt.threads, Joiner: j})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the backend's clusters differ from the CPU's")
			}
			if r.calls != 2 {
				t.Errorf("the backend got %d calls, want 2", r.calls)
			}
			if r.withBack {
				t.Errorf("the backend was handed Options that name a backend")
			}
		})
	}
}
