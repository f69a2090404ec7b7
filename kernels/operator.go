package kernels

import (
	"context"
	"fmt"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

// A SymOperator is a symmetric n x n matrix known only through its
// products, so that estimators never hold it: a GPU backend can supply one
// that forms tiles on the device.
type SymOperator interface {
	Size() int
	// Apply sets y = A x for x and y n x cols, row major.
	Apply(ctx context.Context, x []float64, cols int, y []float64) error
}

// operatorTile is the edge of the kernel tiles an operator forms: two
// float32 tiles of 4 MiB per worker.
const operatorTile = 1024

// jointKernel is diag(s) ((V V^T) o (T T^T)) diag(s). A product goes
// either through the features (operator_features.go: two float64 GEMMs of
// n x dv x dt per column, exact to rounding) or through tiles of K formed
// one at a time in float32 (entries good to about 1e-6, far below what an
// estimate resolves) and applied in float64, whichever costs less.
type jointKernel struct {
	v, t *Matrix
	s    []float64 // sqrt of the normalised item weights
	opt  Options
	gemm blas.Gemm32
	path applyPath // pathAuto outside tests
}

// NewJointKernel returns the weighted joint kernel of VendiJoint as an
// operator that never holds K: a worker holds one kernel tile or one
// dv x dt matrix and a panel of rows. t == nil means
// K = V V^T; w == nil means uniform weights (the matrix is then K/n).
func NewJointKernel(v, t *Matrix, w []float64, opt Options) (SymOperator, error) {
	if t != nil && t.Rows != v.Rows {
		return nil, fmt.Errorf("joint kernel: %d video rows but %d text rows", v.Rows, t.Rows)
	}
	if v.Rows == 0 {
		return nil, fmt.Errorf("joint kernel: no items")
	}
	s, err := itemWeights(w, v.Rows)
	if err != nil {
		return nil, err
	}
	return &jointKernel{v: v, t: t, s: s, opt: opt, gemm: CPU{}.gemm32()}, nil
}

func (k *jointKernel) Size() int { return k.v.Rows }

// Apply sets y = A x by whichever of the two forms costs less for cols
// columns (see usesFeatures): products with the features, or kernel tiles.
func (k *jointKernel) Apply(ctx context.Context, x []float64, cols int, y []float64) error {
	n := k.v.Rows
	if len(x) != n*cols || len(y) != n*cols {
		return fmt.Errorf("joint kernel: apply to %d and %d values, want %d", len(x), len(y), n*cols)
	}
	if k.usesFeatures(cols) {
		return k.applyFeatures(ctx, x, cols, y)
	}
	return k.applyTiles(ctx, x, cols, y)
}

// applyTiles forms K one operatorTile x operatorTile tile at a time (two
// float32 GEMMs) and multiplies each tile into y in float64.
func (k *jointKernel) applyTiles(ctx context.Context, x []float64, cols int, y []float64) error {
	n := k.v.Rows
	xs := make([]float64, len(x))
	for i := 0; i < n; i++ {
		for c := 0; c < cols; c++ {
			xs[i*cols+c] = x[i*cols+c] * k.s[i]
		}
	}
	nb := (n + operatorTile - 1) / operatorTile
	var d64 blas.Implementation
	return parallelFor(ctx, nb, k.opt.threads(), func(bi int) error {
		i0, i1 := bi*operatorTile, min((bi+1)*operatorTile, n)
		rows := i1 - i0
		tv := make([]float32, rows*operatorTile)
		var tt []float32
		if k.t != nil {
			tt = make([]float32, rows*operatorTile)
		}
		t64 := make([]float64, rows*operatorTile)
		yi := y[i0*cols : i1*cols]
		clear(yi)
		for j0 := 0; j0 < n; j0 += operatorTile {
			if err := ctx.Err(); err != nil {
				return err
			}
			j1 := min(j0+operatorTile, n)
			w := j1 - j0
			dv := k.v.Cols
			if dv > 0 {
				k.gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, w, dv, 1, k.v.Data[i0*dv:i1*dv], dv, k.v.Data[j0*dv:j1*dv], dv, 0, tv, w)
			} else {
				clear(tv[:rows*w])
			}
			if k.t != nil {
				dt := k.t.Cols
				if dt > 0 {
					k.gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, w, dt, 1, k.t.Data[i0*dt:i1*dt], dt, k.t.Data[j0*dt:j1*dt], dt, 0, tt, w)
				} else {
					clear(tt[:rows*w])
				}
				for e, a := range tv[:rows*w] {
					t64[e] = float64(a) * float64(tt[e])
				}
			} else {
				for e, a := range tv[:rows*w] {
					t64[e] = float64(a)
				}
			}
			d64.Dgemm(gblas.NoTrans, gblas.NoTrans, rows, cols, w, 1, t64, w, xs[j0*cols:j1*cols], cols, 1, yi, cols)
		}
		for i := i0; i < i1; i++ {
			for c := 0; c < cols; c++ {
				y[i*cols+c] *= k.s[i]
			}
		}
		return nil
	})
}

// Trace returns tr(A) = sum_i s_i^2 |v_i|^2 |t_i|^2 exactly, which the
// estimator uses as a control variate.
func (k *jointKernel) Trace() float64 {
	var tr float64
	for i := 0; i < k.v.Rows; i++ {
		d := dot64(k.v.Row(i), k.v.Row(i))
		if k.t != nil {
			d *= dot64(k.t.Row(i), k.t.Row(i))
		}
		tr += k.s[i] * k.s[i] * d
	}
	return tr
}

// ItemWeights returns s, the square roots of the weights w normalised to
// sum 1 (uniform when w is nil), which every joint-kernel operator scales
// its rows and columns by; exported so that kernels/cuda's operator
// weighs items exactly as this package's does.
func ItemWeights(w []float64, n int) ([]float64, error) { return itemWeights(w, n) }
