package kernels

import (
	"context"
	"fmt"
	"math"
	"slices"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/internal/ordered"
)

// A Pair is one result of a threshold join: rows I and J and their dot
// product (cosine for unit rows), computed in float64 and rounded.
type Pair struct {
	I, J int32
	Sim  float32
}

// Tile shape of the joins: a block of joinRowBlock rows of a against
// joinColBlock rows of b at a time, one float32 tile of 2 MiB per worker.
// Square-ish tiles of this size keep OpenBLAS's single-threaded Sgemm near
// its peak (measured by BenchmarkThresholdJoin) while memory stays bounded
// whatever n is.
const (
	joinRowBlock = 256
	joinColBlock = 2048
	emitBatch    = 1 << 16
)

// ThresholdJoin streams every pair (i, j) whose dot product (cosine for unit
// rows) is >= tau. b == nil: self-join of a, pairs with i < j only.
// Otherwise i indexes a, j indexes b.
//
// emit is called from one goroutine, with batches of pairs, in increasing
// (I, J) order overall; it must not keep the slice. An error from emit or
// ctx stops the join and is returned.
//
// The join is exact: products come from float32 BLAS tiles with the
// threshold lowered by their worst-case rounding error, and every candidate
// is decided by a float64 dot product, so the pair set equals a float64
// brute force and does not depend on the thread count. Memory is bounded by
// the tiles and the pairs of the row blocks in flight.
//
// It runs on opt.Joiner (the CPU kernels when nil), which finds the same
// pairs.
func ThresholdJoin(ctx context.Context, a, b *Matrix, tau float32, opt Options, emit func([]Pair) error) error {
	return opt.joiner().ThresholdJoin(ctx, a, b, tau, opt.bounds(), emit)
}

// ThresholdJoin implements Joiner on the CPU.
func (c CPU) ThresholdJoin(ctx context.Context, a, b *Matrix, tau float32, opt Options, emit func([]Pair) error) error {
	self := b == nil
	if self {
		b = a
	}
	if a.Cols != b.Cols {
		return fmt.Errorf("threshold join: a has %d columns, b has %d", a.Cols, b.Cols)
	}
	if a.Rows > math.MaxInt32 || b.Rows > math.MaxInt32 {
		return fmt.Errorf("threshold join: more than 2^31 rows")
	}
	if math.IsNaN(float64(tau)) {
		return fmt.Errorf("threshold join: tau is NaN")
	}
	gemm := c.gemm32()
	na, maxB := rowNorms(a)
	if !self {
		_, maxB = rowNorms(b)
	}
	g := gamma(a.Cols)
	d := a.Cols
	threads := opt.threads()
	nBlocks := (a.Rows + joinRowBlock - 1) / joinRowBlock
	scratch := make(chan []float32, threads)
	for i := 0; i < threads; i++ {
		scratch <- nil
	}
	job := func(blk int) ([]Pair, error) {
		tile := <-scratch
		if tile == nil {
			tile = make([]float32, joinRowBlock*joinColBlock)
		}
		defer func() { scratch <- tile }()
		r0 := blk * joinRowBlock
		r1 := min(r0+joinRowBlock, a.Rows)
		rows := r1 - r0
		c0 := 0
		if self {
			c0 = r0
		}
		low := make([]float32, rows)
		for i := range low {
			// Candidates need only beat tau less the worst rounding error.
			low[i] = float32(float64(tau) - 2*g*na[r0+i]*maxB - 1e-30)
		}
		var out []Pair
		for cs := c0; cs < b.Rows; cs += joinColBlock {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			ce := min(cs+joinColBlock, b.Rows)
			cols := ce - cs
			if d == 0 {
				clear(tile[:rows*cols])
			} else {
				gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, cols, d, 1,
					a.Data[r0*d:r1*d], d, b.Data[cs*d:ce*d], d, 0, tile, cols)
			}
			for i := 0; i < rows; i++ {
				gi := r0 + i
				lo := low[i]
				row := tile[i*cols : (i+1)*cols]
				j0 := 0
				if self {
					j0 = max(0, gi+1-cs)
				}
				ai := a.Row(gi)
				for j := j0; j < cols; j++ {
					if row[j] >= lo {
						s := dot64(ai, b.Row(cs+j))
						if s >= float64(tau) {
							out = append(out, Pair{I: int32(gi), J: int32(cs + j), Sim: float32(s)})
						}
					}
				}
			}
		}
		slices.SortFunc(out, comparePairs)
		return out, nil
	}
	sink := func(_ int, ps []Pair) error {
		for len(ps) > 0 {
			n := min(len(ps), emitBatch)
			if err := emit(ps[:n]); err != nil {
				return err
			}
			ps = ps[n:]
		}
		return nil
	}
	return ordered.Run(ctx, nBlocks, threads, 2*threads, nil, nil, func(_ struct{}, i int) ([]Pair, error) { return job(i) }, sink)
}

func comparePairs(x, y Pair) int {
	if x.I != y.I {
		return int(x.I - y.I)
	}
	return int(x.J - y.J)
}
