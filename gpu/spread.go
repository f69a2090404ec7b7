package gpu

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// A Piece is one part of the work Spread shares out: what it claims of its
// device while it runs.
type Piece struct {
	Memory uint64 // device bytes, as Need.Memory
	Units  int    // items it covers (texts, prompts), counted under Spread's work
}

// Spread runs the pieces 0..len(pieces)-1 of one job across the pool's
// devices, one goroutine per device, and returns once every piece has run
// or one has failed.
//
// Placement keeps every device busy without making the outputs depend on
// it: the pieces are dealt out in contiguous, balanced blocks (each device
// starts with n/D of them, give or take one, the larger blocks to the
// devices that have done the least of this work so far, so that many
// small jobs still spread over every device); a device takes its own block
// front to back and, once it is empty, takes the last piece of the block
// with the most left among the devices already at work on theirs, so a
// slow or busy device does not hold up the job.
// Each piece holds its Memory of its device's budget while it runs (a
// device whose budget is taken by other work waits for it). fn gets the
// device's slot (its position in Devices, the index of the model session
// to use) and the piece's index; it must write its result by piece index,
// so that the job's result is the same whichever device ran which piece.
//
// On the first error, or when ctx ends, the devices stop taking pieces and
// Spread returns that error after every running piece has returned. Work
// counts each finished piece's Units on its device (Usage.Done).
//
// Spread places work on the devices Home would (the GPUs, else every
// device); a piece too large for its device's budget fails with
// ErrTooLarge.
func (p *Pool) Spread(ctx context.Context, work string, pieces []Piece, fn func(ctx context.Context, slot, piece int) error) error {
	homes := p.homes()
	if len(pieces) == 0 {
		return nil
	}
	for i, pc := range pieces {
		for _, h := range homes {
			if b := p.slots[h].budget; b > 0 && pc.Memory > b {
				return fmt.Errorf("%w: %s piece %d of %d bytes on %s (budget %d)", ErrTooLarge, work, i, pc.Memory, p.slots[h].dev.ID(), b)
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	homes = p.leastLoaded(homes, work)
	q := newDeal(len(pieces), len(homes))
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for d, slot := range homes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := q.take(d)
				if !ok || ctx.Err() != nil {
					return
				}
				err := p.runPiece(ctx, work, slot, i, pieces[i], fn)
				if err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// runPiece runs one piece pinned to slot under its budget.
func (p *Pool) runPiece(ctx context.Context, work string, slot, i int, pc Piece, fn func(ctx context.Context, slot, piece int) error) error {
	l, err := p.Acquire(ctx, Need{Memory: pc.Memory, Pinned: true, Slot: slot, Work: work, Units: pc.Units})
	if err != nil {
		return fmt.Errorf("%s on %s: %w", work, p.slots[slot].dev.ID(), err)
	}
	defer l.Release()
	if l.Slot() != slot {
		return fmt.Errorf("%w: %s piece %d on %s", ErrTooLarge, work, i, p.slots[slot].dev.ID())
	}
	return fn(ctx, slot, i)
}

// leastLoaded orders homes by the units of work of this kind done on each
// so far, most first (ties by position), since newDeal gives the last
// blocks one piece more: the larger blocks go to the devices that did the
// least.
func (p *Pool) leastLoaded(homes []int, work string) []int {
	p.mu.Lock()
	done := make(map[int]int, len(homes))
	for _, h := range homes {
		done[h] = p.slots[h].done[work]
	}
	p.mu.Unlock()
	out := slices.Clone(homes)
	slices.SortStableFunc(out, func(a, b int) int { return done[b] - done[a] })
	return out
}

// homes are the slots work is spread over: the GPUs, else every slot.
func (p *Pool) homes() []int {
	var homes []int
	for i := range p.slots {
		if p.slots[i].dev.Kind == CUDA {
			homes = append(homes, i)
		}
	}
	if len(homes) == 0 {
		for i := range p.slots {
			homes = append(homes, i)
		}
	}
	return homes
}

// deal holds the pieces not yet taken as one block [lo, hi) per device.
type deal struct {
	mu      sync.Mutex
	lo, hi  []int
	started []bool // device k has taken a piece of its own block
}

// newDeal splits n pieces into d contiguous blocks of n/d pieces, the last
// n mod d of them one piece more.
func newDeal(n, d int) *deal {
	q := &deal{lo: make([]int, d), hi: make([]int, d)}
	lo := 0
	for k := range d {
		size := n / d
		if k >= d-n%d {
			size++
		}
		q.lo[k], q.hi[k] = lo, lo+size
		lo += size
	}
	return q
}

// take returns the next piece for device d: the front of its own block,
// else the back of the fullest block of a device that has started on its
// own (a device not yet started keeps its block, so small jobs are not
// swept up by whichever goroutine runs first); ok is false when none is
// left to take.
func (q *deal) take(d int) (piece int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started == nil {
		q.started = make([]bool, len(q.lo))
	}
	if q.lo[d] < q.hi[d] {
		q.started[d] = true
		q.lo[d]++
		return q.lo[d] - 1, true
	}
	q.started[d] = true
	most := -1
	for k := range q.lo {
		if left := q.hi[k] - q.lo[k]; left > 0 && q.started[k] && (most < 0 || left > q.hi[most]-q.lo[most]) {
			most = k
		}
	}
	if most < 0 {
		return 0, false
	}
	q.hi[most]--
	return q.hi[most], true
}

// SmallestBudget is the smallest memory budget among the devices Spread
// uses, 0 when none has one: the most a piece may claim to fit anywhere.
func (p *Pool) SmallestBudget() uint64 {
	var least uint64
	for _, h := range p.homes() {
		if b := p.slots[h].budget; b > 0 && (least == 0 || b < least) {
			least = b
		}
	}
	return least
}
