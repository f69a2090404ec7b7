package kernels

import (
	"context"
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
)

// leaderChunk is the number of leaders per product: small enough that
// a block of rows spreads over all threads once a few thousand leaders
// exist.
const leaderChunk = 512

// LeaderClusters clusters rows in one pass (leader clustering, Hartigan
// 1975): row i joins the most similar leader among earlier rows when their
// dot product is >= tau (ties to the earlier leader), and otherwise becomes
// a leader itself. It returns each row's leader (a leader is its own), so
// the result depends on row order by design and on nothing else: the
// similarity decisions are made in float64 as in ThresholdJoin.
//
// With opt.Joiner set (a GPU's backend, or an Offload in front of one),
// each block of rows is joined against the leaders of the earlier blocks
// there: the join's pairs are exactly those at or above tau in float64,
// the candidates the CPU's own products shortlist and keep, so the
// clusters are the same. Without one the products run here, shared out
// over the leaders, which a join of one block would not do.
func LeaderClusters(ctx context.Context, x *Matrix, tau float32, opt Options) ([]int32, error) {
	if x.Rows > math.MaxInt32 {
		return nil, fmt.Errorf("leader clusters: more than 2^31 rows")
	}
	n, d := x.Rows, x.Cols
	out := make([]int32, n)
	norms, maxNorm := rowNorms(x)
	g := gamma(d)
	threads := opt.threads()
	var leaders []int32 // row index of each leader, ascending
	lead := NewMatrix(0, d)
	for r0 := 0; r0 < n; r0 += joinRowBlock {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r1 := min(r0+joinRowBlock, n)
		rows := r1 - r0
		nl := len(leaders)
		perRow := make([][]int32, rows) // candidate leader slots, ascending
		if opt.Joiner != nil {
			if err := joinLeaders(ctx, x, r0, r1, lead, tau, opt, perRow); err != nil {
				return nil, err
			}
		} else if err := shortlistLeaders(ctx, x, r0, r1, lead, norms, maxNorm, g, tau, threads, perRow); err != nil {
			return nil, err
		}
		for i := 0; i < rows; i++ {
			row := x.Row(r0 + i)
			best, bestSim := int32(-1), math.Inf(-1)
			consider := func(slot int) {
				s := dot64(row, lead.Row(slot))
				if s >= float64(tau) && s > bestSim {
					best, bestSim = leaders[slot], s
				}
			}
			for _, slot := range perRow[i] {
				consider(int(slot))
			}
			for slot := nl; slot < len(leaders); slot++ { // leaders from this block
				consider(slot)
			}
			if best < 0 {
				best = int32(r0 + i)
				leaders = append(leaders, best)
				lead.Data = append(lead.Data, row...)
				lead.Rows++
			}
			out[r0+i] = best
		}
	}
	return out, nil
}

// joinLeaders puts in perRow[i] the slots of the leaders that row r0+i of
// x is at or above tau with, ascending, by opt.Joiner's join of the rows
// against lead.
func joinLeaders(ctx context.Context, x *Matrix, r0, r1 int, lead *Matrix, tau float32, opt Options, perRow [][]int32) error {
	if lead.Rows == 0 {
		return nil
	}
	d := x.Cols
	block := &Matrix{Rows: r1 - r0, Cols: d, Data: x.Data[r0*d : r1*d]}
	err := opt.Joiner.ThresholdJoin(ctx, block, lead, tau, opt.bounds(), func(ps []Pair) error {
		for _, p := range ps {
			perRow[p.I] = append(perRow[p.I], p.J)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("leader clusters: rows %d to %d against %d leaders: %w", r0, r1, lead.Rows, err)
	}
	return nil
}

// shortlistLeaders puts in perRow[i] the slots of the leaders whose
// float32 product with row r0+i of x reaches tau less its worst rounding
// error (g, norms, maxNorm), ascending: a superset of those at or above
// tau, which the caller decides in float64. The products are shared out
// over threads by chunks of leaders.
func shortlistLeaders(ctx context.Context, x *Matrix, r0, r1 int, lead *Matrix, norms []float64, maxNorm, g float64, tau float32, threads int, perRow [][]int32) error {
	type cand struct{ row, leader int32 }
	d, rows, nl := x.Cols, r1-r0, lead.Rows
	gemm := CPU{}.gemm32()
	chunks := (nl + leaderChunk - 1) / leaderChunk
	found := make([][]cand, chunks)
	err := parallelFor(ctx, chunks, threads, func(c int) error {
		c0, c1 := c*leaderChunk, min((c+1)*leaderChunk, nl)
		tile := make([]float32, rows*(c1-c0))
		if d > 0 {
			gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, c1-c0, d, 1, x.Data[r0*d:r1*d], d, lead.Data[c0*d:c1*d], d, 0, tile, c1-c0)
		}
		for i := 0; i < rows; i++ {
			low := float32(float64(tau) - 2*g*norms[r0+i]*maxNorm - 1e-30)
			for j, s := range tile[i*(c1-c0) : (i+1)*(c1-c0)] {
				if s >= low {
					found[c] = append(found[c], cand{int32(i), int32(c0 + j)})
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range found {
		for _, c := range f {
			perRow[c.row] = append(perRow[c.row], c.leader)
		}
	}
	return nil
}
