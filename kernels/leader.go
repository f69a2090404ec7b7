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
func LeaderClusters(ctx context.Context, x *Matrix, tau float32, opt Options) ([]int32, error) {
	if x.Rows > math.MaxInt32 {
		return nil, fmt.Errorf("leader clusters: more than 2^31 rows")
	}
	n, d := x.Rows, x.Cols
	out := make([]int32, n)
	norms, maxNorm := rowNorms(x)
	g := gamma(d)
	gemm := CPU{}.gemm32()
	threads := opt.threads()
	var leaders []int32 // row index of each leader, ascending
	lead := NewMatrix(0, d)
	type cand struct{ row, leader int32 }
	for r0 := 0; r0 < n; r0 += joinRowBlock {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r1 := min(r0+joinRowBlock, n)
		rows := r1 - r0
		nl := len(leaders)
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
			return nil, err
		}
		perRow := make([][]int32, rows) // candidate leader slots, ascending
		for _, f := range found {
			for _, c := range f {
				perRow[c.row] = append(perRow[c.row], c.leader)
			}
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
