package kernels

import (
	"context"
	"fmt"
)

// DefaultMinWork is Offload's cut when none is given: 2^28 multiply-adds,
// a few milliseconds of the CPU kernels on a few cores, about what a
// GPU's backend spends per call before its first product (a stream and a
// cuBLAS handle per worker, a tile buffer of 256 MiB each, the upload).
// It is an estimate from those costs, not a measured crossing: the device
// check's offload row (cmd/vidscreen-devicecheck/offload.go, docs/gpu.md)
// times the CPU kernels and a GPU's Backend end to end from 2^22 to 2^32
// multiply-adds on one machine and reports where the GPU starts to win,
// which audit and select take as --offload-min-work.
const DefaultMinWork = 1 << 28

// Offload sends the large searches to a device's Joiner and Searcher (a
// GPU's backend), a bounded number at a time, and runs the small ones on
// the CPU kernels. An audit asks for many small searches (a benchmark's
// first few hundred items, once per order) whose device set-up would cost
// more than the CPU's whole answer, and for many at once (one per unit of
// work), whose device buffers, outside the models' memory budget, must
// not add up. Every backend gives the CPU's pairs and neighbours, so
// neither rule changes a result, only where the time goes.
type Offload struct {
	joiner   Joiner
	searcher NeighbourSearcher
	minWork  int64
	slots    chan struct{}
}

var (
	_ Joiner            = (*Offload)(nil)
	_ NeighbourSearcher = (*Offload)(nil)
)

// NewOffload returns an Offload that sends searches of minWork
// multiply-adds or more (rows x rows x columns; DefaultMinWork when 0) to
// j and s, at most slots at once (1 when 0): a further one waits for a
// slot. A nil j or s leaves that kind of search on the CPU.
func NewOffload(j Joiner, s NeighbourSearcher, minWork int64, slots int) *Offload {
	if minWork <= 0 {
		minWork = DefaultMinWork
	}
	return &Offload{joiner: j, searcher: s, minWork: minWork, slots: make(chan struct{}, max(slots, 1))}
}

func (o *Offload) large(rows, others, cols int) bool {
	return int64(rows)*int64(others)*int64(cols) >= o.minWork
}

// acquire takes a device slot, or returns ctx's error while waiting.
func (o *Offload) acquire(ctx context.Context) (func(), error) {
	select {
	case o.slots <- struct{}{}:
		return func() { <-o.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the device: %w", ctx.Err())
	}
}

// ThresholdJoin implements Joiner.
func (o *Offload) ThresholdJoin(ctx context.Context, a, b *Matrix, tau float32, opt Options, emit func([]Pair) error) error {
	other := a
	if b != nil {
		other = b
	}
	if o.joiner == nil || !o.large(a.Rows, other.Rows, a.Cols) {
		return CPU{}.ThresholdJoin(ctx, a, b, tau, opt, emit)
	}
	release, err := o.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	return o.joiner.ThresholdJoin(ctx, a, b, tau, opt, emit)
}

// TopK implements NeighbourSearcher.
func (o *Offload) TopK(ctx context.Context, q, x *Matrix, k int, opt Options) (*Neighbours, error) {
	if o.searcher == nil || !o.large(q.Rows, x.Rows, q.Cols) {
		return CPU{}.TopK(ctx, q, x, k, opt)
	}
	release, err := o.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return o.searcher.TopK(ctx, q, x, k, opt)
}

// TopKEarlier implements NeighbourSearcher; its products are half of
// x's rows squared.
func (o *Offload) TopKEarlier(ctx context.Context, x *Matrix, k int, opt Options) (*Neighbours, error) {
	if o.searcher == nil || !o.large(x.Rows, x.Rows/2, x.Cols) {
		return CPU{}.TopKEarlier(ctx, x, k, opt)
	}
	release, err := o.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return o.searcher.TopKEarlier(ctx, x, k, opt)
}
