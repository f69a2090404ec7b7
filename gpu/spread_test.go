package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// emulated returns n emulated CPU devices, as --device cpu:n selects them.
func emulated(t testing.TB, n int, cfg PoolConfig) *Pool {
	t.Helper()
	devs, _, err := Select(Spec{CPUs: n}, Inventory{})
	if n == 1 {
		devs, _, err = Select(Spec{}, Inventory{})
	}
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPool(devs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// meet returns a function that each device calls on its first piece and
// that returns once every one of devices has called it, so that a test's
// trivial pieces are not all taken by whichever goroutine happens to start
// first.
func meet(devices int) func(slot int) {
	var mu sync.Mutex
	seen := map[int]bool{}
	all := make(chan struct{})
	return func(slot int) {
		mu.Lock()
		if !seen[slot] {
			seen[slot] = true
			if len(seen) == devices {
				close(all)
			}
		}
		mu.Unlock()
		<-all
	}
}

func TestSpreadRunsEveryPieceOnceOnEveryDevice(t *testing.T) {
	for _, tc := range []struct {
		name       string
		devices, n int
	}{
		{"one device takes every piece", 1, 10},
		{"two devices split ten pieces", 2, 10},
		{"four devices split thirty-three pieces", 4, 33},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := emulated(t, tc.devices, PoolConfig{})
			pieces := make([]Piece, tc.n)
			for i := range pieces {
				pieces[i] = Piece{Units: 2}
			}
			out := make([]int, tc.n)
			ran := make([]int32, tc.n)
			wait := meet(tc.devices)
			err := p.Spread(context.Background(), "square", pieces, func(_ context.Context, slot, i int) error {
				wait(slot)
				atomic.AddInt32(&ran[i], 1)
				out[i] = i * i
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range out {
				if ran[i] != 1 || out[i] != i*i {
					t.Fatalf("piece %d ran %d times, result %d", i, ran[i], out[i])
				}
			}
			total := 0
			for _, u := range p.Usage() {
				n := u.Done["square"]
				total += n
				if n == 0 {
					t.Errorf("%s ran no piece", u.Device.ID())
				}
			}
			if total != 2*tc.n {
				t.Errorf("units counted %d, want %d", total, 2*tc.n)
			}
		})
	}
}

// The blocks are balanced, the larger last.
func TestDealIsBalanced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, d int }{{10, 1}, {10, 3}, {33, 4}, {3, 4}} {
		q := newDeal(tc.n, tc.d)
		for k := range tc.d {
			if size := q.hi[k] - q.lo[k]; size < tc.n/tc.d || size > tc.n/tc.d+1 {
				t.Errorf("%d pieces on %d devices: block %d holds %d", tc.n, tc.d, k, size)
			}
		}
		for k := 1; k < tc.d; k++ {
			if q.lo[k] != q.hi[k-1] || q.hi[k]-q.lo[k] < q.hi[k-1]-q.lo[k-1] {
				t.Errorf("%d pieces on %d devices: block %d [%d, %d) after [%d, %d)", tc.n, tc.d, k, q.lo[k], q.hi[k], q.lo[k-1], q.hi[k-1])
			}
		}
		if q.lo[0] != 0 || q.hi[tc.d-1] != tc.n {
			t.Errorf("%d pieces on %d devices: blocks cover [%d, %d)", tc.n, tc.d, q.lo[0], q.hi[tc.d-1])
		}
	}
}

// A device stuck on its first piece has the rest of its block taken by the
// others: the job does not wait for it piece by piece.
func TestSpreadStealsFromABusyDevice(t *testing.T) {
	p := emulated(t, 2, PoolConfig{})
	const n = 8
	pieces := make([]Piece, n)
	for i := range pieces {
		pieces[i] = Piece{Units: 1}
	}
	release := make(chan struct{})
	var others atomic.Int32
	wait := meet(2)
	first := true
	err := p.Spread(context.Background(), "w", pieces, func(_ context.Context, slot, i int) error {
		if slot == 0 && first {
			first = false
			wait(0)
			<-release // device 0 holds its first piece until the others are done
			return nil
		}
		if slot == 1 {
			wait(1)
		}
		if others.Add(1) == n-1 {
			close(release)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	u := p.Usage()
	if u[0].Done["w"] != 1 || u[1].Done["w"] != n-1 {
		t.Errorf("pieces per device %d, %d; want 1 and %d (device 1 takes device 0's block)", u[0].Done["w"], u[1].Done["w"], n-1)
	}
}

// A device whose budget other work holds runs nothing until it is freed;
// the other device works meanwhile.
func TestSpreadWaitsForTheDeviceBudget(t *testing.T) {
	p := emulated(t, 2, PoolConfig{CPUMemoryBudget: 100, CPUWorkers: 4})
	held, err := p.Acquire(context.Background(), Need{Memory: 50, Pinned: true, Slot: 0})
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	pieces := make([]Piece, n)
	for i := range pieces {
		pieces[i] = Piece{Memory: 60, Units: 1}
	}
	var done atomic.Int32
	var released atomic.Bool
	err = p.Spread(context.Background(), "w", pieces, func(_ context.Context, slot, i int) error {
		if slot == 0 && !released.Load() {
			t.Errorf("piece %d ran on device 0 while other work held its budget", i)
		}
		if done.Add(1) == n/2 {
			released.Store(true)
			held.Release() // the budget device 0 waits for
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	u := p.Usage()
	if u[0].Done["w"]+u[1].Done["w"] != n || u[1].Done["w"] < n/2 {
		t.Errorf("pieces per device %d, %d; want %d in all, at least %d on device 1", u[0].Done["w"], u[1].Done["w"], n, n/2)
	}
	err = p.Spread(context.Background(), "w", []Piece{{Memory: 101}}, func(context.Context, int, int) error { return nil })
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("a piece over the budget: %v, want ErrTooLarge", err)
	}
}
func TestSpreadStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	p := emulated(t, 4, PoolConfig{})
	pieces := make([]Piece, 100)
	var ran atomic.Int32
	boom := errors.New("boom")
	err := p.Spread(context.Background(), "w", pieces, func(_ context.Context, slot, i int) error {
		ran.Add(1)
		if i == 3 {
			return fmt.Errorf("piece %d: %w", i, boom)
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the piece's error", err)
	}
	if ran.Load() == 100 {
		t.Errorf("every piece ran after one failed")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Spread(ctx, "w", pieces, func(context.Context, int, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Jobs of fewer pieces than devices go to the devices that did the least
// of that work, so many small jobs still use every device.
func TestSpreadSendsSmallJobsToTheLeastLoaded(t *testing.T) {
	t.Parallel()
	p := emulated(t, 4, PoolConfig{})
	for range 4 {
		err := p.Spread(context.Background(), "w", []Piece{{Units: 1}}, func(context.Context, int, int) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range p.Usage() {
		if u.Done["w"] != 1 {
			t.Errorf("%s ran %d one-piece jobs of four, want 1 each", u.Device.ID(), u.Done["w"])
		}
	}
}
