package kernels_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// searcher is a backend of both kinds, as Offload and kernels.CPU are.
type searcher interface {
	kernels.Joiner
	kernels.NeighbourSearcher
}

// Offload sends a search to its backend from minWork multiply-adds on and
// keeps the smaller ones on the CPU; either way the result is the CPU's.
func TestOffloadCutsAtMinWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := clustered(3, 230, 20), clustered(4, 170, 20)
	pairs := func(f func(emit func([]kernels.Pair) error) error) (any, error) {
		var out []kernels.Pair
		err := f(func(ps []kernels.Pair) error { out = append(out, ps...); return nil })
		return out, err
	}
	tests := []struct {
		name string
		work int64 // the search's multiply-adds as Offload counts them
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
				got, err := tt.run(kernels.NewOffload(r, r, c.minWork, 1))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("minWork %d: the result differs from the CPU's", c.minWork)
				}
				if (r.calls > 0) != c.large {
					t.Errorf("minWork %d: %d backend calls, want the backend %v", c.minWork, r.calls, c.large)
				}
			}
		})
	}
}

// gated is a backend that counts the calls running at once, holding each
// for a while so that they overlap when nothing stops them, and can be
// held until released.
type gated struct {
	kernels.CPU
	running, most atomic.Int64
	hold          chan struct{} // nil: hold each call 20 ms
	entered       chan struct{}
}

func (g *gated) ThresholdJoin(ctx context.Context, a, b *kernels.Matrix, tau float32, opt kernels.Options, emit func([]kernels.Pair) error) error {
	n := g.running.Add(1)
	defer g.running.Add(-1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	if g.entered != nil {
		g.entered <- struct{}{}
	}
	if g.hold != nil {
		<-g.hold
	} else {
		time.Sleep(20 * time.Millisecond)
	}
	return g.CPU.ThresholdJoin(ctx, a, b, tau, opt, emit)
}

// At most slots large searches run on the device at once, whatever the
// callers; a caller waiting for a slot stops when its context ends.
func TestOffloadBoundsTheSearchesOnTheDevice(t *testing.T) {
	ctx := context.Background()
	a := clustered(5, 120, 16)
	join := func(o *kernels.Offload, ctx context.Context) error {
		return o.ThresholdJoin(ctx, a, nil, 0.9, kernels.Options{Threads: 1}, func([]kernels.Pair) error { return nil })
	}
	for _, slots := range []int{1, 2} {
		g := &gated{}
		o := kernels.NewOffload(g, g, 1, slots)
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = join(o, ctx) }()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if m := g.most.Load(); m < 1 || m > int64(slots) {
			t.Errorf("%d slots: %d searches ran on the device at once", slots, m)
		}
	}
	g := &gated{hold: make(chan struct{}), entered: make(chan struct{})}
	o := kernels.NewOffload(g, g, 1, 1)
	done := make(chan error)
	go func() { done <- join(o, ctx) }()
	<-g.entered
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := join(o, cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a search waiting for the busy device with its context cancelled: %v", err)
	}
	close(g.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
