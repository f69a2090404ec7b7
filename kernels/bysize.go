package kernels

import "context"

// DefaultMinWork is BySize's cut when none is given: 2^28 multiply-adds,
// a few milliseconds of the CPU kernels on a few cores, about what a
// GPU's backend spends per call before its first product (a stream and a
// cuBLAS handle per worker, a tile buffer of 256 MiB each, the upload).
// It is an estimate from those costs, not a measured crossing.
const DefaultMinWork = 1 << 28

// BySize sends the searches whose products are large to Joiner and
// Searcher (a GPU's backend) and runs the small ones on the CPU kernels:
// an audit asks for many small searches (a benchmark's prefix of a few
// hundred items, one per order) whose device set-up would cost more than
// the CPU's whole answer. Every backend gives the CPU's pairs and
// neighbours, so the cut changes only where the time goes.
type BySize struct {
	Joiner   Joiner
	Searcher NeighbourSearcher
	// MinWork is the multiply-adds (rows x rows x columns) from which a
	// search leaves the CPU; 0 means DefaultMinWork.
	MinWork int64
}

var (
	_ Joiner            = BySize{}
	_ NeighbourSearcher = BySize{}
)

func (s BySize) large(rows, others, cols int) bool {
	cut := s.MinWork
	if cut <= 0 {
		cut = DefaultMinWork
	}
	return int64(rows)*int64(others)*int64(cols) >= cut
}

// ThresholdJoin implements Joiner.
func (s BySize) ThresholdJoin(ctx context.Context, a, b *Matrix, tau float32, opt Options, emit func([]Pair) error) error {
	other := a
	if b != nil {
		other = b
	}
	if s.Joiner == nil || !s.large(a.Rows, other.Rows, a.Cols) {
		return CPU{}.ThresholdJoin(ctx, a, b, tau, opt, emit)
	}
	return s.Joiner.ThresholdJoin(ctx, a, b, tau, opt, emit)
}

// TopK implements NeighbourSearcher.
func (s BySize) TopK(ctx context.Context, q, x *Matrix, k int, opt Options) (*Neighbours, error) {
	if s.Searcher == nil || !s.large(q.Rows, x.Rows, q.Cols) {
		return CPU{}.TopK(ctx, q, x, k, opt)
	}
	return s.Searcher.TopK(ctx, q, x, k, opt)
}

// TopKEarlier implements NeighbourSearcher; its products are half of
// x's rows squared.
func (s BySize) TopKEarlier(ctx context.Context, x *Matrix, k int, opt Options) (*Neighbours, error) {
	if s.Searcher == nil || !s.large(x.Rows, x.Rows/2, x.Cols) {
		return CPU{}.TopKEarlier(ctx, x, k, opt)
	}
	return s.Searcher.TopKEarlier(ctx, x, k, opt)
}
