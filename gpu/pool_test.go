package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func gpuDev(i int, free uint64) Device {
	return Device{Kind: CUDA, Index: i, Name: fmt.Sprintf("fake%d", i), TotalMemory: 2 * free, FreeMemory: free, FreeKnown: true}
}

func TestNewPoolBudgets(t *testing.T) {
	t.Parallel()
	devs := []Device{gpuDev(0, 1000), {Kind: CUDA, Index: 1, TotalMemory: 500}}
	tests := []struct {
		name string
		cfg  PoolConfig
		want []uint64
	}{
		{name: "default is 0.9 of free, of total when free is unknown", cfg: PoolConfig{}, want: []uint64{900, 450}},
		{name: "fraction", cfg: PoolConfig{MemoryFraction: 0.5}, want: []uint64{500, 250}},
		{name: "fixed budget", cfg: PoolConfig{MemoryBudget: 123}, want: []uint64{123, 123}},
	}
	for _, tt := range tests {
		p, err := NewPool(devs, tt.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for i, u := range p.Usage() {
			if u.Budget != tt.want[i] {
				t.Errorf("%s: slot %d budget %d, want %d", tt.name, i, u.Budget, tt.want[i])
			}
		}
	}
	for _, bad := range []struct {
		devs []Device
		cfg  PoolConfig
	}{
		{nil, PoolConfig{}},
		{[]Device{gpuDev(0, 10), gpuDev(0, 10)}, PoolConfig{}},
		{[]Device{gpuDev(0, 10)}, PoolConfig{MemoryFraction: 1.5}},
		{[]Device{{Kind: CUDA}}, PoolConfig{}},
	} {
		if _, err := NewPool(bad.devs, bad.cfg); err == nil {
			t.Errorf("NewPool(%v, %+v) succeeded", bad.devs, bad.cfg)
		}
	}
}

func TestAcquirePlacement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, err := NewPool([]Device{gpuDev(0, 1000), gpuDev(1, 2000)}, PoolConfig{Workers: 2, CPUWorkers: 2, MemoryFraction: 1, CPUFallback: true})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		need     Need
		wantSlot int
		wantErr  error
	}{
		{need: Need{Memory: 100}, wantSlot: 1},                         // both idle: most budget left
		{need: Need{Memory: 100}, wantSlot: 0},                         // fewest busy
		{need: Need{Memory: 100}, wantSlot: 1},                         // tie on busy, slot 1 has more left
		{need: Need{Memory: 1500, Pinned: true, Slot: 0}, wantSlot: 2}, // pinned but larger than slot 0's budget: CPU
		{need: Need{Memory: 5000}, wantSlot: 2},                        // larger than every GPU: CPU fallback
		{need: Need{Pinned: true, Slot: 9}, wantErr: errors.New("out of range")},
	}
	var held []*Lease
	for i, st := range steps {
		l, err := p.Acquire(ctx, st.need)
		if st.wantErr != nil {
			if err == nil {
				t.Errorf("step %d: no error", i)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if l.Slot() != st.wantSlot {
			t.Errorf("step %d: placed on slot %d (%s), want %d", i, l.Slot(), l.Device().ID(), st.wantSlot)
		}
		held = append(held, l)
	}
	u := p.Usage()
	if u[0].Busy != 1 || u[0].Used != 100 || u[1].Busy != 2 || u[1].Used != 200 || u[2].Busy != 2 || u[2].Used != 0 {
		t.Errorf("usage %+v", u)
	}
	for _, l := range held {
		l.Release()
		l.Release() // a second release does nothing
	}
	for _, u := range p.Usage() {
		if u.Busy != 0 || u.Used != 0 {
			t.Errorf("after release: %+v", u)
		}
	}
}

func TestAcquireTooLargeWithoutFallback(t *testing.T) {
	t.Parallel()
	p, _ := NewPool([]Device{gpuDev(0, 1000)}, PoolConfig{MemoryFraction: 1})
	_, err := p.Acquire(context.Background(), Need{Memory: 1001})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}

func TestAcquireCPUOnly(t *testing.T) {
	p, _ := NewPool([]Device{CPUDevice()}, PoolConfig{CPUWorkers: 3})
	for i := 0; i < 3; i++ {
		l, err := p.Acquire(context.Background(), Need{Memory: 1 << 40})
		if err != nil || l.Device().Kind != CPU {
			t.Fatalf("acquire %d: %v %v", i, l, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(ctx, Need{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("fourth acquire on three CPU workers: %v, want deadline exceeded", err)
	}
}

func TestAcquireWaitsForMemory(t *testing.T) {
	p, _ := NewPool([]Device{gpuDev(0, 1000)}, PoolConfig{Workers: 4, MemoryFraction: 1})
	ctx := context.Background()
	a, _ := p.Acquire(ctx, Need{Memory: 700})
	got := make(chan *Lease)
	go func() {
		l, err := p.Acquire(ctx, Need{Memory: 400})
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("acquired 400 bytes while 700 of 1000 were held")
	case <-time.After(20 * time.Millisecond):
	}
	a.Release()
	b := <-got
	if u := p.Usage()[0]; u.Used != 400 || u.Busy != 1 {
		t.Errorf("usage after hand-over: %+v", u)
	}
	b.Release()
}

func TestAcquireCancelHoldsNothing(t *testing.T) {
	t.Parallel()
	p, _ := NewPool([]Device{gpuDev(0, 1000)}, PoolConfig{MemoryFraction: 1})
	a, _ := p.Acquire(context.Background(), Need{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := p.Acquire(ctx, Need{Memory: 10}); done <- err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	a.Release()
	if u := p.Usage()[0]; u.Busy != 0 || u.Used != 0 {
		t.Errorf("usage = %+v", u)
	}
}

// Many goroutines through Do never exceed a device's workers or budget, and
// every piece of work runs exactly once.
func TestDoRespectsLimits(t *testing.T) {
	devs := []Device{gpuDev(0, 1000), gpuDev(1, 1000), gpuDev(2, 600)}
	p, _ := NewPool(devs, PoolConfig{Workers: 3, MemoryFraction: 1})
	var mu sync.Mutex
	busy := make([]int, len(devs))
	mem := make([]uint64, len(devs))
	var ran atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 300; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			need := Need{Memory: uint64(100 + 50*(i%7))}
			err := p.Do(context.Background(), need, func(ctx context.Context, d Device) error {
				mu.Lock()
				busy[d.Index]++
				mem[d.Index] += need.Memory
				if busy[d.Index] > 3 || mem[d.Index] > devs[d.Index].FreeMemory {
					t.Errorf("%s over its limits: %d busy, %d bytes", d.ID(), busy[d.Index], mem[d.Index])
				}
				mu.Unlock()
				time.Sleep(50 * time.Microsecond)
				mu.Lock()
				busy[d.Index]--
				mem[d.Index] -= need.Memory
				mu.Unlock()
				ran.Add(1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if ran.Load() != 300 {
		t.Errorf("ran %d of 300", ran.Load())
	}
}

func TestHomeIsStableAndSkipsFallbackCPU(t *testing.T) {
	t.Parallel()
	p, _ := NewPool([]Device{gpuDev(0, 10), gpuDev(1, 10)}, PoolConfig{CPUFallback: true})
	q, _ := NewPool([]Device{gpuDev(0, 10), gpuDev(1, 10)}, PoolConfig{CPUFallback: true})
	counts := map[int]int{}
	for i := 0; i < 1000; i++ {
		k := fmt.Sprintf("video-%d.mp4", i)
		h := p.Home(k)
		if h != q.Home(k) {
			t.Fatalf("Home(%q) differs between equal pools", k)
		}
		counts[h]++
	}
	if counts[2] != 0 || counts[0] < 400 || counts[1] < 400 {
		t.Errorf("homes %v: want about 500 on each GPU and none on the CPU", counts)
	}
}

func BenchmarkPoolDo(b *testing.B) {
	p, _ := NewPool([]Device{gpuDev(0, 1<<40), gpuDev(1, 1<<40)}, PoolConfig{Workers: 4})
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p.Do(ctx, Need{Memory: 1 << 20}, func(context.Context, Device) error { return nil })
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "leases/s")
}
