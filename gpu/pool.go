package gpu

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"sync"
)

// PoolConfig sets the worker sets and memory budgets of a Pool.
type PoolConfig struct {
	// Workers is how many pieces of work may run at once on each GPU; 0 means 1.
	Workers int
	// CPUWorkers is how many may run at once on the CPU device; 0 means 1.
	CPUWorkers int
	// MemoryBudget caps the bytes the work placed on each GPU may claim. 0 means
	// MemoryFraction of the memory free at discovery (of the total when free is
	// unknown).
	MemoryBudget uint64
	// MemoryFraction is used when MemoryBudget is 0; 0 means 0.9, leaving room
	// for the CUDA context and the allocator's slack.
	MemoryFraction float64
	// CPUFallback adds the CPU as a device for work too large for every GPU's
	// budget. Without it such work fails with ErrTooLarge.
	CPUFallback bool
	// CPUMemoryBudget caps the bytes the work placed on each CPU device
	// may claim (each emulated device of cpu:N its own), so that a run on
	// emulated devices sizes and places its work under a budget as it
	// would on GPUs. 0 leaves the CPU without a budget.
	CPUMemoryBudget uint64
}

// ErrTooLarge is returned by Acquire for work whose memory no device can hold.
var ErrTooLarge = errors.New("work needs more memory than any device's budget")

// A Pool shares a set of devices among goroutines: each device has a number
// of worker slots and a memory budget, and Acquire blocks until a device has
// both. A CPU device has worker slots and a budget only when
// PoolConfig.CPUMemoryBudget sets one.
//
// Placement is deterministic for a given pool state: among the devices that
// can take the work now, the one with the fewest busy workers wins, then the
// one with the most budget left, then the lowest position. Waiters are woken
// together on every release and race for the freed room, so a large request
// can wait behind a stream of small ones; size requests alike where that
// matters.
type Pool struct {
	mu    sync.Mutex
	slots []slot
	wake  chan struct{} // closed and replaced whenever room is freed
}

// A slot is one device's share of the pool. dev, workers and budget are set
// by NewPool and never change; busy and used change under Pool.mu.
type slot struct {
	dev     Device
	workers int
	busy    int
	budget  uint64 // 0 for the CPU: unlimited
	used    uint64
	// done counts the units of finished work by Need.Work (the role).
	done map[string]int
}

// NewPool makes a pool over devs, in their order. A device may appear once.
func NewPool(devs []Device, cfg PoolConfig) (*Pool, error) {
	if cfg.Workers < 0 || cfg.CPUWorkers < 0 {
		return nil, fmt.Errorf("gpu pool: negative worker count")
	}
	if cfg.MemoryFraction < 0 || cfg.MemoryFraction > 1 {
		return nil, fmt.Errorf("gpu pool: memory fraction %v outside [0, 1]", cfg.MemoryFraction)
	}
	workers, cpuWorkers, frac := cfg.Workers, cfg.CPUWorkers, cfg.MemoryFraction
	if workers == 0 {
		workers = 1
	}
	if cpuWorkers == 0 {
		cpuWorkers = 1
	}
	if frac == 0 {
		frac = 0.9
	}
	p := &Pool{wake: make(chan struct{})}
	seen := map[string]bool{}
	hasCPU := false
	for _, d := range devs {
		if seen[d.ID()] {
			return nil, fmt.Errorf("gpu pool: device %s listed twice", d.ID())
		}
		seen[d.ID()] = true
		s := slot{dev: d, workers: cpuWorkers, budget: cfg.CPUMemoryBudget}
		if d.Kind == CUDA {
			s.workers = workers
			s.budget = cfg.MemoryBudget
			if s.budget == 0 {
				base := d.TotalMemory
				if d.FreeKnown {
					base = d.FreeMemory
				}
				s.budget = uint64(float64(base) * frac)
			}
			if s.budget == 0 {
				return nil, fmt.Errorf("gpu pool: device %s has no memory to budget", d.ID())
			}
		} else {
			hasCPU = true
		}
		p.slots = append(p.slots, s)
	}
	if cfg.CPUFallback && !hasCPU {
		p.slots = append(p.slots, slot{dev: CPUDevice(), workers: cpuWorkers, budget: cfg.CPUMemoryBudget})
	}
	if len(p.slots) == 0 {
		return nil, fmt.Errorf("gpu pool: no devices")
	}
	return p, nil
}

// Devices lists the pool's devices; a device's position is its slot number.
func (p *Pool) Devices() []Device {
	devs := make([]Device, len(p.slots))
	for i := range p.slots {
		devs[i] = p.slots[i].dev
	}
	return devs
}

// Need describes one piece of work.
type Need struct {
	// Memory is the device memory in bytes the work claims while it runs
	// (activations, a batch's tensors). It does not count on the CPU.
	Memory uint64
	// Pinned places the work on slot Slot (a position in Devices), for work
	// whose inputs already live there; otherwise the pool chooses.
	Pinned bool
	Slot   int
	// Work names the kind of work (a model role, "decode") and Units how
	// much of it the lease does (frames, texts, prompts); when the lease
	// is released they are added to the slot's counts (Done).
	Work  string
	Units int
}

// A Lease is one piece of work placed on a device. Release it when the work
// is done.
type Lease struct {
	p     *Pool
	slot  int
	mem   uint64
	work  string
	units int
	once  sync.Once
}

// Device is where the work was placed.
func (l *Lease) Device() Device { return l.p.slots[l.slot].dev }

// Slot is the device's position in the pool's Devices.
func (l *Lease) Slot() int { return l.slot }

// Release frees the lease's worker and memory. Calling it again does nothing.
func (l *Lease) Release() {
	l.once.Do(func() {
		p := l.p
		p.mu.Lock()
		s := &p.slots[l.slot]
		s.busy--
		s.used -= l.mem
		s.count(l.work, l.units)
		close(p.wake)
		p.wake = make(chan struct{})
		p.mu.Unlock()
	})
}

// Acquire places work on a device, waiting until one has a free worker and
// enough budget. GPUs are preferred; the CPU takes work only when the pool
// has no GPU, or no GPU's budget could ever hold it. Work no device can ever
// hold fails at once with ErrTooLarge. When ctx ends first, Acquire returns
// ctx.Err() and holds nothing.
func (p *Pool) Acquire(ctx context.Context, need Need) (*Lease, error) {
	cands, err := p.candidates(need)
	if err != nil {
		return nil, err
	}
	for {
		p.mu.Lock()
		best := -1
		for _, i := range cands {
			s := &p.slots[i]
			if s.busy >= s.workers || (s.budget > 0 && s.used+need.Memory > s.budget) {
				continue
			}
			if best < 0 || better(s, &p.slots[best]) {
				best = i
			}
		}
		if best >= 0 {
			s := &p.slots[best]
			s.busy++
			mem := uint64(0)
			if s.budget > 0 {
				mem = need.Memory
			}
			s.used += mem
			p.mu.Unlock()
			return &Lease{p: p, slot: best, mem: mem, work: need.Work, units: need.Units}, nil
		}
		wake := p.wake
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		}
	}
}

// better reports whether slot a should take work before slot b.
func better(a, b *slot) bool {
	if a.busy != b.busy {
		return a.busy < b.busy
	}
	return a.budget-a.used > b.budget-b.used
}

// candidates lists the slots that could ever hold need.
func (p *Pool) candidates(need Need) ([]int, error) {
	// Only the fixed fields (dev, budget) are read here, without the lock.
	fits := func(s *slot) bool { return s.budget == 0 || need.Memory <= s.budget }
	cpu := -1
	for i := range p.slots {
		if p.slots[i].dev.Kind == CPU {
			cpu = i
		}
	}
	if need.Pinned {
		if need.Slot < 0 || need.Slot >= len(p.slots) {
			return nil, fmt.Errorf("gpu pool: slot %d out of range [0, %d)", need.Slot, len(p.slots))
		}
		if fits(&p.slots[need.Slot]) {
			return []int{need.Slot}, nil
		}
		// Only a GPU falls back to the CPU; a CPU device that cannot hold
		// the work has nowhere to send it.
		if cpu >= 0 && p.slots[need.Slot].dev.Kind == CUDA && p.slots[cpu].budget == 0 {
			return []int{cpu}, nil
		}
		return nil, fmt.Errorf("%w: %d bytes on %s (budget %d)", ErrTooLarge, need.Memory, p.slots[need.Slot].dev.ID(), p.slots[need.Slot].budget)
	}
	var gpus []int
	for i := range p.slots {
		if s := &p.slots[i]; s.dev.Kind == CUDA && fits(s) {
			gpus = append(gpus, i)
		}
	}
	if len(gpus) > 0 {
		return gpus, nil
	}
	if cpu >= 0 && fits(&p.slots[cpu]) {
		return []int{cpu}, nil
	}
	return nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, need.Memory)
}

// Do runs fn on a device chosen by Acquire and releases it when fn returns.
func (p *Pool) Do(ctx context.Context, need Need, fn func(ctx context.Context, dev Device) error) error {
	l, err := p.Acquire(ctx, need)
	if err != nil {
		return err
	}
	defer l.Release()
	return fn(ctx, l.Device())
}

// Home returns a slot for key by a stable hash (FNV-1a), so that work sharing
// inputs (the frames of one video) can be pinned to one device and placed the
// same way on every run with the same devices.
// When the pool has GPUs, only GPUs are homes; the fallback CPU is not.
func (p *Pool) Home(key string) int {
	homes := p.homes()
	h := fnv.New64a()
	h.Write([]byte(key))
	return homes[h.Sum64()%uint64(len(homes))]
}

// Usage reports, per slot, the busy workers and the memory claimed now.
type Usage struct {
	Device  Device
	Busy    int
	Workers int
	Used    uint64
	Budget  uint64 // 0: no budget
	// Done is the units of work finished on the device, by kind (Need.Work).
	Done map[string]int
}

// Usage returns a snapshot of every slot.
func (p *Pool) Usage() []Usage {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := make([]Usage, len(p.slots))
	for i, s := range p.slots {
		u[i] = Usage{Device: s.dev, Busy: s.busy, Workers: s.workers, Used: s.used, Budget: s.budget, Done: maps.Clone(s.done)}
	}
	return u
}

// Count adds units of work of kind work to slot's counts (Usage.Done), for
// work that ran on the device without a lease (the decoders of a worker
// set). Leases count themselves.
func (p *Pool) Count(slot int, work string, units int) {
	p.mu.Lock()
	p.slots[slot].count(work, units)
	p.mu.Unlock()
}

func (s *slot) count(work string, units int) {
	if work == "" || units == 0 {
		return
	}
	if s.done == nil {
		s.done = map[string]int{}
	}
	s.done[work] += units
}
