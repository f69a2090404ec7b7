package kernels

import (
	"context"
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
)

// Neighbours holds the k nearest rows per query row: Index[q*K+r] (-1 where
// fewer than K exist) and Sim, ordered by descending Sim, ties by ascending
// index. Sims are float64 dot products rounded to float32.
type Neighbours struct {
	K     int
	Index []int32
	Sim   []float32
}

// Row returns the neighbours of query q (entries with index -1 included).
func (n *Neighbours) Row(q int) ([]int32, []float32) {
	return n.Index[q*n.K : (q+1)*n.K], n.Sim[q*n.K : (q+1)*n.K]
}

// TopK returns, for each row of q, the k rows of x with the largest dot
// product.
//
// Like ThresholdJoin it is exact: float32 tiles only shortlist candidates
// (with a margin of their worst rounding error) and the order is decided in
// float64, so the result does not depend on BLAS or the thread count. It
// runs on opt.Searcher (the CPU kernels when nil), which finds the same
// neighbours.
func TopK(ctx context.Context, q, x *Matrix, k int, opt Options) (*Neighbours, error) {
	return opt.searcher().TopK(ctx, q, x, k, opt.bounds())
}

// TopKEarlier returns, for each row i of x, its k nearest among rows j < i
// only (prequential retrieval: an item sees only items answered before it),
// on opt.Searcher as TopK.
func TopKEarlier(ctx context.Context, x *Matrix, k int, opt Options) (*Neighbours, error) {
	return opt.searcher().TopKEarlier(ctx, x, k, opt.bounds())
}

// TopK implements NeighbourSearcher on the CPU.
func (c CPU) TopK(ctx context.Context, q, x *Matrix, k int, opt Options) (*Neighbours, error) {
	if q.Cols != x.Cols {
		return nil, fmt.Errorf("top-k: queries have %d columns, rows %d", q.Cols, x.Cols)
	}
	return c.topK(ctx, q, x, k, false, opt)
}

// TopKEarlier implements NeighbourSearcher on the CPU.
func (c CPU) TopKEarlier(ctx context.Context, x *Matrix, k int, opt Options) (*Neighbours, error) {
	return c.topK(ctx, x, x, k, true, opt)
}

func (c CPU) topK(ctx context.Context, q, x *Matrix, k int, earlier bool, opt Options) (*Neighbours, error) {
	if k < 0 {
		return nil, fmt.Errorf("top-k: k = %d < 0", k)
	}
	if x.Rows > math.MaxInt32 {
		return nil, fmt.Errorf("top-k: more than 2^31 rows")
	}
	out := &Neighbours{K: k, Index: make([]int32, q.Rows*k), Sim: make([]float32, q.Rows*k)}
	for i := range out.Index {
		out.Index[i] = -1
		out.Sim[i] = float32(math.Inf(-1))
	}
	if k == 0 || q.Rows == 0 || x.Rows == 0 {
		return out, ctx.Err()
	}
	gemm := c.gemm32()
	nq, _ := rowNorms(q)
	_, maxX := rowNorms(x)
	g := gamma(q.Cols)
	d := q.Cols
	threads := opt.threads()
	nBlocks := (q.Rows + joinRowBlock - 1) / joinRowBlock
	limit := 4*k + 64
	scratch := make(chan []float32, threads)
	for i := 0; i < threads; i++ {
		scratch <- nil
	}
	err := parallelFor(ctx, nBlocks, threads, func(blk int) error {
		tile := <-scratch
		if tile == nil {
			tile = make([]float32, joinRowBlock*joinColBlock)
		}
		defer func() { scratch <- tile }()
		r0 := blk * joinRowBlock
		r1 := min(r0+joinRowBlock, q.Rows)
		rows := r1 - r0
		lists := NewShortlists(rows)
		cEnd := x.Rows
		if earlier {
			cEnd = r1 - 1
		}
		for cs := 0; cs < cEnd; cs += joinColBlock {
			if err := ctx.Err(); err != nil {
				return err
			}
			ce := min(cs+joinColBlock, cEnd)
			cols := ce - cs
			if d == 0 {
				clear(tile[:rows*cols])
			} else {
				gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, cols, d, 1,
					q.Data[r0*d:r1*d], d, x.Data[cs*d:ce*d], d, 0, tile, cols)
			}
			for i := 0; i < rows; i++ {
				jEnd := cols
				if earlier {
					jEnd = min(cols, r0+i-cs)
				}
				l := &lists[i]
				row := tile[i*cols : i*cols+jEnd]
				admit := l.Admit
				for j, s := range row {
					if s >= admit && !math.IsNaN(float64(s)) {
						l.Add(int32(cs+j), s)
						if l.Len() >= limit {
							l.Prune(k, g*nq[r0+i]*maxX)
							admit = l.Admit
						}
					}
				}
			}
		}
		for i := range lists {
			base := (r0 + i) * k
			lists[i].Finish(k, g*nq[r0+i]*maxX, q.Row(r0+i), x, out.Index[base:base+k], out.Sim[base:base+k])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
