package cuda

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/vidscreen/vidscreen/internal/ordered"
	"github.com/vidscreen/vidscreen/kernels"
)

// Backend runs the threshold join and the top-k searches on a Device. It
// implements kernels.Joiner and kernels.NeighbourSearcher with the CPU
// kernels' contract: the same pairs and neighbours, in the same order,
// because the device's products only shortlist candidates (within twice
// the worst rounding error of its Precision) and each is decided by
// kernels.Dot64 on the host.
type Backend struct {
	Device Device
	// Workers is the number of device workers (streams) run at once; 0
	// means 2, enough to overlap one tile's extraction with the next
	// tile's product.
	Workers int
}

var (
	_ kernels.Joiner            = (*Backend)(nil)
	_ kernels.NeighbourSearcher = (*Backend)(nil)
)

// emitBatch bounds the pairs handed to emit in one call, as the CPU join does.
const emitBatch = 1 << 16

func (b *Backend) workers() int {
	if b.Workers > 0 {
		return b.Workers
	}
	return 2
}

// ThresholdJoin implements kernels.Joiner: every pair (i, j) with
// a_i . b_j >= tau; b == nil joins a with itself, i < j. emit gets the
// pairs in increasing (I, J) order, from one goroutine. opt.Threads
// bounds the host threads of the float64 re-check.
func (b *Backend) ThresholdJoin(ctx context.Context, a, bm *kernels.Matrix, tau float32, opt kernels.Options, emit func([]kernels.Pair) error) error {
	self := bm == nil
	if self {
		bm = a
	}
	if a.Cols != bm.Cols {
		return fmt.Errorf("threshold join: a has %d columns, b has %d", a.Cols, bm.Cols)
	}
	if a.Rows > math.MaxInt32 || bm.Rows > math.MaxInt32 {
		return fmt.Errorf("threshold join: more than 2^31 rows")
	}
	if math.IsNaN(float64(tau)) {
		return fmt.Errorf("threshold join: tau is NaN")
	}
	if a.Rows == 0 || bm.Rows == 0 || a.Cols == 0 {
		// Nothing for a device to do (and a zero-length product is a
		// corner cuBLAS need not define): the CPU join answers.
		var other *kernels.Matrix
		if !self {
			other = bm
		}
		return kernels.CPU{}.ThresholdJoin(ctx, a, other, tau, opt, emit)
	}
	na, maxB := kernels.RowNorms(a)
	if !self {
		_, maxB = kernels.RowNorms(bm)
	}
	bound := b.Device.Precision().Bound(a.Cols)
	ra, rb, free, err := b.upload(a, bm, self)
	if err != nil {
		return err
	}
	defer free()
	tileRows, tileCols := b.Device.TileShape()
	mask := All
	if self {
		mask = Upper
	}
	nBlocks := (a.Rows + tileRows - 1) / tileRows
	job := func(w Worker, blk int) ([]kernels.Pair, error) {
		r0 := blk * tileRows
		rows := min(tileRows, a.Rows-r0)
		floors := make([]float32, rows)
		for i := range floors {
			// Candidates need only beat tau less the worst rounding error
			// (the same floor as the CPU join's, with this device's bound).
			floors[i] = float32(float64(tau) - 2*bound*na[r0+i]*maxB - 1e-30)
		}
		c0 := 0
		if self {
			c0 = r0
		}
		var cands []Candidate
		var out []kernels.Pair
		var err error // this worker's own: the enclosing err is shared by every worker
		for cs := c0; cs < bm.Rows; cs += tileCols {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t := Tile{A: ra, B: rb, R0: r0, Rows: rows, C0: cs, Cols: min(tileCols, bm.Rows-cs), Mask: mask}
			if err := w.Product(t); err != nil {
				return nil, err
			}
			if cands, err = w.Extract(floors, cands[:0]); err != nil {
				return nil, err
			}
			for _, c := range cands {
				i, j := r0+int(c.Row), cs+int(c.Col)
				if s := kernels.Dot64(a.Row(i), bm.Row(j)); s >= float64(tau) {
					out = append(out, kernels.Pair{I: int32(i), J: int32(j), Sim: float32(s)})
				}
			}
		}
		slices.SortFunc(out, comparePairs)
		return out, nil
	}
	sink := func(ps []kernels.Pair) error {
		for len(ps) > 0 {
			n := min(len(ps), emitBatch)
			if err := emit(ps[:n]); err != nil {
				return err
			}
			ps = ps[n:]
		}
		return nil
	}
	return runOrdered(ctx, b.Device, min(b.workers(), nBlocks), nBlocks, job, sink)
}

func comparePairs(x, y kernels.Pair) int {
	if x.I != y.I {
		return int(x.I - y.I)
	}
	return int(x.J - y.J)
}

// TopK implements kernels.NeighbourSearcher: for each row of q, the k rows
// of x with the largest dot product, ordered by descending float64 product,
// ties by ascending index, as kernels.TopK.
func (b *Backend) TopK(ctx context.Context, q, x *kernels.Matrix, k int, opt kernels.Options) (*kernels.Neighbours, error) {
	if q.Cols != x.Cols {
		return nil, fmt.Errorf("top-k: queries have %d columns, rows %d", q.Cols, x.Cols)
	}
	return b.topK(ctx, q, x, k, false, opt)
}

// TopKEarlier implements kernels.NeighbourSearcher: for each row i of x,
// its k nearest among rows j < i, as kernels.TopKEarlier.
func (b *Backend) TopKEarlier(ctx context.Context, x *kernels.Matrix, k int, opt kernels.Options) (*kernels.Neighbours, error) {
	return b.topK(ctx, x, x, k, true, opt)
}

func (b *Backend) topK(ctx context.Context, q, x *kernels.Matrix, k int, earlier bool, opt kernels.Options) (*kernels.Neighbours, error) {
	if k < 0 {
		return nil, fmt.Errorf("top-k: k = %d < 0", k)
	}
	if x.Rows > math.MaxInt32 {
		return nil, fmt.Errorf("top-k: more than 2^31 rows")
	}
	if k == 0 || q.Rows == 0 || x.Rows == 0 || q.Cols == 0 {
		if earlier {
			return kernels.CPU{}.TopKEarlier(ctx, x, k, opt)
		}
		return kernels.CPU{}.TopK(ctx, q, x, k, opt)
	}
	out := &kernels.Neighbours{K: k, Index: make([]int32, q.Rows*k), Sim: make([]float32, q.Rows*k)}
	for i := range out.Index {
		out.Index[i] = -1
		out.Sim[i] = float32(math.Inf(-1))
	}
	nq, _ := kernels.RowNorms(q)
	_, maxX := kernels.RowNorms(x)
	bound := b.Device.Precision().Bound(q.Cols)
	rq, rx, free, err := b.upload(q, x, earlier)
	if err != nil {
		return nil, err
	}
	defer free()
	tileRows, tileCols := b.Device.TileShape()
	mask := All
	if earlier {
		mask = Lower
	}
	limit := 4*k + 64
	nBlocks := (q.Rows + tileRows - 1) / tileRows
	job := func(w Worker, blk int) (struct{}, error) {
		r0 := blk * tileRows
		rows := min(tileRows, q.Rows-r0)
		lists := kernels.NewShortlists(rows)
		margins := make([]float64, rows)
		for i := range lists {
			margins[i] = bound * nq[r0+i] * maxX
		}
		cEnd := x.Rows
		if earlier {
			cEnd = r0 + rows - 1
		}
		floors := make([]float32, rows)
		var cands []Candidate
		for cs := 0; cs < cEnd; cs += tileCols {
			if err := ctx.Err(); err != nil {
				return struct{}{}, err
			}
			t := Tile{A: rq, B: rx, R0: r0, Rows: rows, C0: cs, Cols: min(tileCols, cEnd-cs), Mask: mask}
			if err := w.Product(t); err != nil {
				return struct{}{}, err
			}
			kth, err := w.RowKth(k)
			if err != nil {
				return struct{}{}, err
			}
			for i := range floors {
				// k entries of this tile reach kth, so the k-th exact
				// product is at least kth less one margin, and anything
				// below kth less two margins cannot make the top k (the
				// CPU's prune rule).
				floors[i] = max(lists[i].Admit, float32(float64(kth[i])-2*margins[i]))
			}
			if cands, err = w.Extract(floors, cands[:0]); err != nil {
				return struct{}{}, err
			}
			for _, c := range cands {
				lists[c.Row].Add(int32(cs)+c.Col, c.Value)
			}
			for i := range lists {
				if lists[i].Len() >= limit {
					lists[i].Prune(k, margins[i])
				}
			}
		}
		for i := range lists {
			base := (r0 + i) * k
			lists[i].Finish(k, margins[i], q.Row(r0+i), x, out.Index[base:base+k], out.Sim[base:base+k])
		}
		return struct{}{}, nil
	}
	if err := runOrdered(ctx, b.Device, min(b.workers(), nBlocks), nBlocks, job, func(struct{}) error { return nil }); err != nil {
		return nil, err
	}
	return out, nil
}

// upload makes a and b resident (b is a when same) and returns a function
// that frees both; on error nothing stays allocated.
func (b *Backend) upload(a, bm *kernels.Matrix, same bool) (ra, rb Resident, free func(), err error) {
	ra, err = b.Device.Upload(a)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: upload %d x %d: %w", b.Device.Name(), a.Rows, a.Cols, err)
	}
	rb = ra
	if !same {
		if rb, err = b.Device.Upload(bm); err != nil {
			err = fmt.Errorf("%s: upload %d x %d: %w", b.Device.Name(), bm.Rows, bm.Cols, err)
			return nil, nil, nil, errors.Join(err, ra.Free())
		}
	}
	return ra, rb, func() {
		// Free errors after a finished computation change no result;
		// the device reports them again on its next call.
		_ = ra.Free()
		if rb != ra {
			_ = rb.Free()
		}
	}, nil
}

// runOrdered runs job(w, i) for i in [0, n) on workers goroutines, each
// with its own Worker of dev, and passes the results to sink in increasing
// i from the calling goroutine; at most two results per worker wait for
// the sink, which bounds memory. The first error (a job's, the sink's,
// ctx's, or a worker's opening or closing) stops the rest and is returned.
func runOrdered[T any](ctx context.Context, dev Device, workers, n int, job func(w Worker, i int) (T, error), sink func(T) error) error {
	open := func() (Worker, error) {
		w, err := dev.NewWorker()
		if err != nil {
			return nil, fmt.Errorf("%s: open worker: %w", dev.Name(), err)
		}
		return w, nil
	}
	shut := func(w Worker) error {
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: close worker: %w", dev.Name(), err)
		}
		return nil
	}
	return ordered.Run(ctx, n, workers, 2*workers, open, shut, job, func(_ int, r T) error { return sink(r) })
}
