package kernels

import (
	"context"
	"fmt"
	"sync"

	gblas "gonum.org/v1/gonum/blas"
)

// A residentKernel is the joint kernel formed once and held in memory:
// the tiles of K's upper triangle in float32, 2 n^2 bytes (7.2 GB at
// n = 60,000). Forming K costs n^2 (dv + dt) flops once, about what 28
// columns of feature-form products cost at dv x dt = 1152 x 1024; after
// that a product with a block of c columns costs 2 n^2 c float32 flops
// (a quarter of a second per column at n = 60,000 on 2 cores), where the
// on-the-fly tiles of jointKernel form K again for every product.
type residentKernel struct {
	joint *jointKernel // sizes, weights and the exact trace
	nb    int
	tiles [][]float32 // tile (i, j), i <= j, at tileIndex(i, j)
	// squared is tr(A^2) = ||A||_F^2 of the tiles held, summed while
	// they were formed (SquaredNorm).
	squared float64
}

// FormJointKernel returns the weighted joint kernel of NewJointKernel with
// K formed now and held in memory, which is what makes an estimate that
// needs hundreds of products affordable at pool scale (docs/scale.md,
// "Vendi at pool scale"). It takes ResidentBytes(n) bytes and
// n^2 (dv + dt) float32 flops; entries are good to about 1e-6 (float32
// Gram products), far below what an estimate resolves. Forming stops at
// ctx's cancellation.
func FormJointKernel(ctx context.Context, v, t *Matrix, w []float64, opt Options) (SymOperator, error) {
	op, err := NewJointKernel(v, t, w, opt)
	if err != nil {
		return nil, err
	}
	k := op.(*jointKernel)
	n := v.Rows
	nb := (n + operatorTile - 1) / operatorTile
	r := &residentKernel{joint: k, nb: nb, tiles: make([][]float32, nb*(nb+1)/2)}
	tileSquares := make([]float64, len(r.tiles))
	type pair struct{ i, j int }
	pairs := make([]pair, 0, len(r.tiles))
	for i := 0; i < nb; i++ {
		for j := i; j < nb; j++ {
			pairs = append(pairs, pair{i, j})
		}
	}
	err = parallelFor(ctx, len(pairs), opt.threads(), func(pi int) error {
		i, j := pairs[pi].i, pairs[pi].j
		i0, i1 := i*operatorTile, min((i+1)*operatorTile, n)
		j0, j1 := j*operatorTile, min((j+1)*operatorTile, n)
		rows, cols := i1-i0, j1-j0
		tile := make([]float32, rows*cols)
		tt := tileScratch.Get().(*[]float32)
		gramTile(k, tile, (*tt)[:rows*cols], i0, i1, j0, j1)
		tileScratch.Put(tt)
		r.tiles[r.tileIndex(i, j)] = tile
		tileSquares[r.tileIndex(i, j)] = weightedSquares(tile, k.s[i0:i1], k.s[j0:j1])
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Summed in tile order, off-diagonal tiles twice (they stand for
	// their transposes too): the same bits at any thread count.
	for i := 0; i < nb; i++ {
		for j := i; j < nb; j++ {
			sq := tileSquares[r.tileIndex(i, j)]
			if j > i {
				sq *= 2
			}
			r.squared += sq
		}
	}
	return r, nil
}

// weightedSquares returns sum_rc (si_r sj_c tile_rc)^2, the tile's share
// of ||A||_F^2 (tile is len(si) x len(sj), unweighted).
func weightedSquares(tile []float32, si, sj []float64) float64 {
	cols := len(sj)
	var total float64
	for r, a := range si {
		var row float64
		for c, x := range tile[r*cols : (r+1)*cols] {
			v := float64(x) * sj[c]
			row += v * v
		}
		total += a * a * row
	}
	return total
}

// ResidentBytes is the memory FormJointKernel holds for n items: the
// float32 tiles of K's upper triangle, diagonal tiles whole. With tile
// edges s_k, the tiles (i <= j) hold sum s_i s_j = (n^2 + sum s_k^2) / 2
// entries.
func ResidentBytes(n int) int64 {
	full, last := int64(n/operatorTile), int64(n%operatorTile)
	sq := full*operatorTile*operatorTile + last*last
	return 4 * (int64(n)*int64(n) + sq) / 2
}

// tileScratch holds the text Gram tiles of FormJointKernel's workers: a
// fresh one per tile would fault in as much memory again as K itself.
var tileScratch = sync.Pool{New: func() any {
	b := make([]float32, operatorTile*operatorTile)
	return &b
}}

// gramTile sets tile to rows [i0, i1) x columns [j0, j1) of the unweighted
// joint kernel: two float32 GEMMs and their elementwise product (tt, of
// the tile's size, holds the text one).
func gramTile(k *jointKernel, tile, tt []float32, i0, i1, j0, j1 int) {
	rows, cols := i1-i0, j1-j0
	dv := k.v.Cols
	if dv > 0 {
		k.gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, cols, dv, 1, k.v.Data[i0*dv:i1*dv], dv, k.v.Data[j0*dv:j1*dv], dv, 0, tile, cols)
	} else {
		clear(tile)
	}
	if k.t == nil {
		return
	}
	dt := k.t.Cols
	if dt > 0 {
		k.gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, cols, dt, 1, k.t.Data[i0*dt:i1*dt], dt, k.t.Data[j0*dt:j1*dt], dt, 0, tt, cols)
	} else {
		clear(tt)
	}
	for e, x := range tt {
		tile[e] *= x
	}
}

// tileIndex numbers the upper-triangle tiles row by row.
func (r *residentKernel) tileIndex(i, j int) int {
	return i*r.nb - i*(i-1)/2 + (j - i)
}

func (r *residentKernel) Size() int { return r.joint.v.Rows }

// Trace returns tr(A) exactly (see jointKernel.Trace).
func (r *residentKernel) Trace() float64 { return r.joint.Trace() }

// SquaredNorm returns tr(A^2) = ||A||_F^2 of the formed kernel (its
// float32 entries, which are what its products apply), summed in float64
// as the tiles were formed: the estimate's quadratic control variate
// (SquaredNorm, SLQConfig.SquaredNorm) at no extra pass over K.
func (r *residentKernel) SquaredNorm() float64 { return r.squared }

// Apply sets y = A x. Each row block of y is one task that sums the
// products of its row of tiles (tile (j, i) transposed left of the
// diagonal) in increasing j, each a float32 GEMM added in float64, so y
// does not depend on the thread count.
func (r *residentKernel) Apply(ctx context.Context, x []float64, cols int, y []float64) error {
	k := r.joint
	n := k.v.Rows
	if len(x) != n*cols || len(y) != n*cols {
		return fmt.Errorf("joint kernel: apply to %d and %d values, want %d", len(x), len(y), n*cols)
	}
	xs := make([]float32, n*cols)
	for i := 0; i < n; i++ {
		for c := 0; c < cols; c++ {
			xs[i*cols+c] = float32(x[i*cols+c] * k.s[i])
		}
	}
	return parallelFor(ctx, r.nb, k.opt.threads(), func(bi int) error {
		i0, i1 := bi*operatorTile, min((bi+1)*operatorTile, n)
		rows := i1 - i0
		tmp := make([]float32, rows*cols)
		acc := y[i0*cols : i1*cols]
		clear(acc)
		for bj := 0; bj < r.nb; bj++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			j0, j1 := bj*operatorTile, min((bj+1)*operatorTile, n)
			w := j1 - j0
			xj := xs[j0*cols : j1*cols]
			if bj >= bi {
				k.gemm.Sgemm(gblas.NoTrans, gblas.NoTrans, rows, cols, w, 1, r.tiles[r.tileIndex(bi, bj)], w, xj, cols, 0, tmp, cols)
			} else {
				k.gemm.Sgemm(gblas.Trans, gblas.NoTrans, rows, cols, w, 1, r.tiles[r.tileIndex(bj, bi)], rows, xj, cols, 0, tmp, cols)
			}
			for e, v := range tmp {
				acc[e] += float64(v)
			}
		}
		for i := i0; i < i1; i++ {
			s := k.s[i]
			for c := 0; c < cols; c++ {
				acc[(i-i0)*cols+c] *= s
			}
		}
		return nil
	})
}
