// Package kernelstest helps test code that places its searches on a
// kernels backend (a GPU's, an Offload): it tells a test whether the
// searches reached the backend it was given or ran on the CPU kernels,
// which give the same results and so cannot be told apart by them.
package kernelstest

import (
	"context"
	"sync/atomic"

	"github.com/vidscreen/vidscreen/kernels"
)

// A Backend is both kinds of search a placement hands out.
type Backend interface {
	kernels.Joiner
	kernels.NeighbourSearcher
}

// A Counter passes every search on to its backend and counts it. It is
// safe for concurrent use.
type Counter struct {
	b            Backend
	joins, topks atomic.Int64
}

var _ Backend = (*Counter)(nil)

// Count returns a Counter in front of b.
func Count(b Backend) *Counter { return &Counter{b: b} }

// Joins is the number of threshold joins handed on so far.
func (c *Counter) Joins() int64 { return c.joins.Load() }

// TopKs is the number of top-k searches (TopK and TopKEarlier) handed on so far.
func (c *Counter) TopKs() int64 { return c.topks.Load() }

// ThresholdJoin implements kernels.Joiner.
func (c *Counter) ThresholdJoin(ctx context.Context, a, b *kernels.Matrix, tau float32, opt kernels.Options, emit func([]kernels.Pair) error) error {
	c.joins.Add(1)
	return c.b.ThresholdJoin(ctx, a, b, tau, opt, emit)
}

// TopK implements kernels.NeighbourSearcher.
func (c *Counter) TopK(ctx context.Context, q, x *kernels.Matrix, k int, opt kernels.Options) (*kernels.Neighbours, error) {
	c.topks.Add(1)
	return c.b.TopK(ctx, q, x, k, opt)
}

// TopKEarlier implements kernels.NeighbourSearcher.
func (c *Counter) TopKEarlier(ctx context.Context, x *kernels.Matrix, k int, opt kernels.Options) (*kernels.Neighbours, error) {
	c.topks.Add(1)
	return c.b.TopKEarlier(ctx, x, k, opt)
}
