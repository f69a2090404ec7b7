package kernels

import (
	"context"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

// The joint kernel is a Gram matrix in feature space: with
// phi_i = v_i (x) t_i (Kronecker product), (v_i . v_j)(t_i . t_j) =
// phi_i . phi_j, so for z = diag(s) x
//
//	(K z)_i = sum_j z_j (v_i . v_j)(t_i . t_j) = v_i^T M t_i,  M = V^T diag(z) T,
//
// and a product costs two GEMMs of n x dv x dt (M, then V M, whose rows
// are dotted with those of T) instead of n^2 (dv + dt) for the tiles of K.
// For K = V V^T it is K z = V (V^T z).

// An applyPath chooses the form of a product; tests force one or the other.
type applyPath int

const (
	pathAuto applyPath = iota
	pathTiles
	pathFeatures
)

// tileSpeedup is how much faster the tiles' float32 GEMMs run than the
// float64 ones of the products: twice the SIMD lanes per FMA (8 vs 4 on
// AVX2, 16 vs 8 on AVX-512). With it the model below predicted the
// measured ratio of the two forms (features/tiles, seconds per product
// with 192 columns, 2 shared cores of an AMD EPYC): 0.76 for 0.83 at
// n = 8,192, d = 64; 6.9 for 7.1 at n = 8,192, d = 256
// (BenchmarkJointKernelApply); 0.93 for 0.87 at n = 60,000, d = 256
// (40.0 s against 46.2 s, BenchmarkVendiEstimatePool).
const tileSpeedup = 2

// usesFeatures says whether a product with cols columns is cheaper through
// the features. In float64 flops per product, with dt = 1 and no T term
// for K = V V^T:
//
//	features: 4 n dv dt cols  (M = V^T diag(z) T and V M per column; the
//	                           final rowwise dots add n dt cols)
//	tiles:    2 n^2 (dv + dt) / tileSpeedup  (forming K in float32)
//	        + 2 n^2 cols                      (K times the block, float64)
//
// so the features win for the single kernel once n > 4 d cols / (d /
// tileSpeedup + 2 cols) (a few hundred items), and for the joint kernel once n > 2 dv dt cols / ((dv + dt)/tileSpeedup + cols):
// about 56,000 items at dv = dt = 256 with 192 columns (the former estimator's block),
// 900,000 at dv = dt = 1024.
func (k *jointKernel) usesFeatures(cols int) bool {
	switch k.path {
	case pathTiles:
		return false
	case pathFeatures:
		return true
	}
	n, c := float64(k.v.Rows), float64(cols)
	dv, dt := float64(k.v.Cols), 1.0
	tileDims := dv
	if k.t != nil {
		dt = float64(k.t.Cols)
		tileDims += dt
	}
	features := 4*n*dv*dt*c + n*dt*c
	tiles := 2*n*n*tileDims/tileSpeedup + 2*n*n*c
	return features <= tiles
}

// featurePanel is how many rows of V and T one product converts to
// float64 at a time: 1024 x 1024 doubles (8 MiB) per matrix at most for
// BGE/SigLIP-sized rows, so a worker's memory stays bounded whatever n.
const featurePanel = 1024

// featureCols is how many columns of the block one task of the
// single-kernel product handles: its GEMMs are then n x d x featureCols.
const featureCols = 16

// applyFeatures sets y = A x through the features. Tasks split the
// columns of x, never the rows: every entry of y is computed by one
// goroutine in a fixed order (panels in increasing row order, each a
// single-threaded BLAS call), so y does not depend on the thread count.
func (k *jointKernel) applyFeatures(ctx context.Context, x []float64, cols int, y []float64) error {
	n := k.v.Rows
	z := make([]float64, len(x))
	for i := 0; i < n; i++ {
		for c := 0; c < cols; c++ {
			z[i*cols+c] = x[i*cols+c] * k.s[i]
		}
	}
	if k.t == nil {
		tasks := (cols + featureCols - 1) / featureCols
		return parallelFor(ctx, tasks, k.opt.threads(), func(ti int) error {
			c0 := ti * featureCols
			return k.applyGram(ctx, z, y, cols, c0, min(c0+featureCols, cols))
		})
	}
	return parallelFor(ctx, cols, k.opt.threads(), func(c int) error {
		return k.applyHadamard(ctx, z, y, cols, c)
	})
}

// applyGram sets columns [c0, c1) of y to diag(s) V (V^T z).
func (k *jointKernel) applyGram(ctx context.Context, z, y []float64, cols, c0, c1 int) error {
	var g blas.Implementation
	n, d, cc := k.v.Rows, k.v.Cols, c1-c0
	ld := max(d, 1)
	vp := make([]float64, featurePanel*d)
	m := make([]float64, d*cc) // V^T z, d x cc
	for pass := 0; pass < 2; pass++ {
		for p0 := 0; p0 < n; p0 += featurePanel {
			if err := ctx.Err(); err != nil {
				return err
			}
			p1 := min(p0+featurePanel, n)
			rows := p1 - p0
			scaledRowsInto(vp[:rows*d], &Matrix{Rows: rows, Cols: d, Data: k.v.Data[p0*d : p1*d]}, nil)
			if pass == 0 {
				if d > 0 {
					g.Dgemm(gblas.Trans, gblas.NoTrans, d, cc, rows, 1, vp, ld, z[p0*cols+c0:], cols, 1, m, cc)
				}
				continue
			}
			g.Dgemm(gblas.NoTrans, gblas.NoTrans, rows, cc, d, 1, vp, ld, m, cc, 0, y[p0*cols+c0:], cols)
			for i := p0; i < p1; i++ {
				yi := y[i*cols+c0 : i*cols+c1]
				for c := range yi {
					yi[c] *= k.s[i]
				}
			}
		}
	}
	return nil
}

// applyHadamard sets column c of y to diag(s) (K z) with
// (K z)_i = v_i^T M t_i, M = V^T diag(z) T.
func (k *jointKernel) applyHadamard(ctx context.Context, z, y []float64, cols, c int) error {
	var g blas.Implementation
	n, dv, dt := k.v.Rows, k.v.Cols, k.t.Cols
	ldv, ldt := max(dv, 1), max(dt, 1)
	vp := make([]float64, featurePanel*dv)
	tp := make([]float64, featurePanel*dt) // diag(z) T, then V M
	m := make([]float64, dv*dt)
	for pass := 0; pass < 2; pass++ {
		for p0 := 0; p0 < n; p0 += featurePanel {
			if err := ctx.Err(); err != nil {
				return err
			}
			p1 := min(p0+featurePanel, n)
			rows := p1 - p0
			scaledRowsInto(vp[:rows*dv], &Matrix{Rows: rows, Cols: dv, Data: k.v.Data[p0*dv : p1*dv]}, nil)
			if pass == 0 {
				for i := p0; i < p1; i++ {
					zi := z[i*cols+c]
					o := tp[(i-p0)*dt : (i-p0+1)*dt]
					for j, t := range k.t.Row(i) {
						o[j] = zi * float64(t)
					}
				}
				if dv > 0 && dt > 0 {
					g.Dgemm(gblas.Trans, gblas.NoTrans, dv, dt, rows, 1, vp, ldv, tp, ldt, 1, m, ldt)
				}
				continue
			}
			if dt > 0 {
				g.Dgemm(gblas.NoTrans, gblas.NoTrans, rows, dt, dv, 1, vp, ldv, m, ldt, 0, tp, ldt)
			}
			for i := p0; i < p1; i++ {
				var s float64
				for j, t := range k.t.Row(i) {
					s += tp[(i-p0)*dt+j] * float64(t)
				}
				y[i*cols+c] = k.s[i] * s
			}
		}
	}
	return nil
}

func (p applyPath) String() string {
	switch p {
	case pathTiles:
		return "tiles"
	case pathFeatures:
		return "features"
	}
	return "auto"
}
