package kernels

import (
	"context"
	"fmt"
	"math"
	"sync"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

// The Vendi score (Friedman and Dieng, "The Vendi Score: A Diversity
// Evaluation Metric for Machine Learning", TMLR 2023) of n items with a
// similarity kernel K (K_ii = 1) is exp of the entropy of the eigenvalues
// of K/n: the effective number of distinct items. With item weights p
// (summing to 1) the matrix is diag(sqrt p) K diag(sqrt p) ("Cousins of the
// Vendi Score", Pasarkar and Dieng 2023), which is K/n for uniform p.
// Video-Index (section 4.5) takes K_ij = (v_i . v_j)(t_i . t_j) over unit
// SigLIP frame and BGE question embeddings, natural logarithms, and drops
// eigenvalues <= 0.

// Vendi is one Vendi score with the entropy it exponentiates.
type Vendi struct {
	Score   float64 `json:"score"`
	Entropy float64 `json:"entropy"`
	// Method says how the eigenvalues were found: "kernel" (eigensolver
	// on K), "dual" (on the d x d feature covariance) or "slq" (stochastic
	// Lanczos quadrature estimate).
	Method string `json:"method"`
}

// VendiEntropy is the order-q Renyi entropy of the positive eigenvalues
// lambda: -sum l log l for q = 1, -log max l for q = +Inf, and
// log(sum l^q)/(1-q) otherwise. Eigenvalues <= 0 are dropped, and so are
// those within rounding of zero (l <= len(lambda) * 2^-52 * max l, the
// cut-off numpy's matrix_rank uses): an eigensolver returns the zero
// eigenvalues of a rank-deficient kernel as noise of either sign, which
// orders q < 1 would otherwise count.
func VendiEntropy(lambda []float64, q float64) float64 {
	mx := 0.0
	for _, l := range lambda {
		mx = max(mx, l)
	}
	tol := float64(len(lambda)) * 0x1p-52 * mx
	kept := make([]float64, 0, len(lambda))
	for _, l := range lambda {
		if l > tol {
			kept = append(kept, l)
		}
	}
	lambda = kept
	switch {
	case q == 1:
		var h float64
		for _, l := range lambda {
			if l > 0 {
				h -= l * math.Log(l)
			}
		}
		return h
	case math.IsInf(q, 1):
		mx := 0.0
		for _, l := range lambda {
			mx = max(mx, l)
		}
		return -math.Log(mx)
	}
	// sum l^q = mx^q sum (l/mx)^q: scaled by the largest eigenvalue the sum
	// lies in [1, n] for every q, where l^q alone underflows to 0 (or
	// overflows) for large orders such as 1e308.
	mx = 0
	for _, l := range lambda {
		mx = max(mx, l)
	}
	if mx == 0 {
		return math.Log(0) / (1 - q)
	}
	var s float64
	for _, l := range lambda {
		s += math.Pow(l/mx, q)
	}
	return renyi(s, mx, q)
}

// renyi returns log(mx^q s)/(1-q) without forming mx^q: the order-q entropy
// of eigenvalues whose q-th powers, scaled by the largest mx, sum to s.
func renyi(s, mx, q float64) float64 {
	return q/(1-q)*math.Log(mx) + math.Log(s)/(1-q)
}

func vendiOf(lambda []float64, q float64, method string) Vendi {
	h := VendiEntropy(lambda, q)
	return Vendi{Score: math.Exp(h), Entropy: h, Method: method}
}

// itemWeights checks w (nil = uniform) and returns sqrt of the weights
// normalised to sum 1.
func itemWeights(w []float64, n int) ([]float64, error) {
	out := make([]float64, n)
	if w == nil {
		for i := range out {
			out[i] = math.Sqrt(1 / float64(n))
		}
		return out, nil
	}
	if len(w) != n {
		return nil, fmt.Errorf("vendi: %d weights for %d items", len(w), n)
	}
	var s float64
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("vendi: weight %d is %v", i, v)
		}
		s += v
	}
	if s == 0 {
		return nil, fmt.Errorf("vendi: weights sum to zero")
	}
	for i, v := range w {
		out[i] = math.Sqrt(v / s)
	}
	return out, nil
}

func checkOrder(q float64) error {
	if math.IsNaN(q) || q < 0 {
		return fmt.Errorf("vendi: order q = %v, want q >= 0", q)
	}
	return nil
}

// VendiKernel returns the exact Vendi score of the n x n symmetric kernel k
// (row major, float64), with item weights w (nil = uniform). k is not
// modified.
func VendiKernel(ctx context.Context, k []float64, n int, q float64, w []float64) (Vendi, error) {
	if len(k) != n*n {
		return Vendi{}, fmt.Errorf("vendi: kernel has %d entries, want %d", len(k), n*n)
	}
	if err := checkOrder(q); err != nil {
		return Vendi{}, err
	}
	if n == 0 {
		return Vendi{}, fmt.Errorf("vendi: no items")
	}
	sw, err := itemWeights(w, n)
	if err != nil {
		return Vendi{}, err
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a[i*n+j] = sw[i] * k[i*n+j] * sw[j]
		}
	}
	if err := ctx.Err(); err != nil {
		return Vendi{}, err
	}
	lambda, err := blas.SymEigenvalues(a, n)
	if err != nil {
		return Vendi{}, fmt.Errorf("vendi: %w", err)
	}
	return vendiOf(lambda, q, "kernel"), nil
}

// VendiFeatures returns the exact Vendi score of K = X X^T (cosine
// similarities for unit rows). When the dimension is below n it solves the
// dual d x d problem X^T diag(p) X, whose nonzero eigenvalues are those of
// the weighted kernel; otherwise it builds K.
func VendiFeatures(ctx context.Context, x *Matrix, q float64, w []float64, opt Options) (Vendi, error) {
	return VendiJoint(ctx, x, nil, q, w, opt)
}

// vendiTile is the block edge of kernel tiles for Vendi (float64).
const vendiTile = 512

// VendiJoint returns the exact Vendi score of the joint kernel
// K = (V V^T) o (T T^T) (elementwise product: two items are alike when
// both their videos and their questions are), built tile by tile in
// float64. t == nil means K = V V^T. Item weights w: nil = uniform. K takes
// 8 n^2 bytes: use VendiEstimate past n = 10,000.
func VendiJoint(ctx context.Context, v, t *Matrix, q float64, w []float64, opt Options) (Vendi, error) {
	n := v.Rows
	if t != nil && t.Rows != n {
		return Vendi{}, fmt.Errorf("vendi: %d video rows but %d text rows", n, t.Rows)
	}
	if n == 0 {
		return Vendi{}, fmt.Errorf("vendi: no items")
	}
	if err := checkOrder(q); err != nil {
		return Vendi{}, err
	}
	sw, err := itemWeights(w, n)
	if err != nil {
		return Vendi{}, err
	}
	var g blas.Implementation
	if t == nil && v.Cols < n {
		// Dual form: Y = diag(sqrt p) X; Y^T Y and Y Y^T share nonzero eigenvalues.
		d := v.Cols
		y := scaledRows(v, sw)
		c := make([]float64, d*d)
		if d > 0 {
			g.Dgemm(gblas.Trans, gblas.NoTrans, d, d, n, 1, y, d, y, d, 0, c, d)
		}
		if err := ctx.Err(); err != nil {
			return Vendi{}, err
		}
		lambda, err := blas.SymEigenvalues(c, d)
		if err != nil {
			return Vendi{}, fmt.Errorf("vendi: %w", err)
		}
		return vendiOf(lambda, q, "dual"), nil
	}
	if n > 46340 {
		return Vendi{}, fmt.Errorf("vendi: %d items is too many for an exact kernel; use VendiEstimate", n)
	}
	if n <= vendiTile {
		// One tile: the two Gram matrices in parallel, upper halves only.
		// Small draws (the 200-item n_eff) are called in loops, so the
		// float64 buffers are recycled: fresh ones cost as much as the
		// products (page faults and zeroing). One buffer holds them all,
		// so that repeated draws of one shape always find it in the pool.
		size := n*n + len(v.Data)
		if t != nil {
			size += n*n + len(t.Data)
		}
		buf := getScratch(size)
		defer putScratch(buf)
		take := func(m int) []float64 { b := buf[:m:m]; buf = buf[m:]; return b }
		k, vs := take(n*n), take(len(v.Data))
		var tk, ts []float64
		if t != nil {
			tk, ts = take(n*n), take(len(t.Data))
		}
		gram := func(x *Matrix, s, xs, out []float64) {
			scaledRowsInto(xs, x, s)
			g.Dsyrk(n, x.Cols, 1, xs, max(x.Cols, 1), 0, out, n)
		}
		jobs := []func(){func() { gram(v, sw, vs, k) }}
		if t != nil {
			jobs = append(jobs, func() { gram(t, nil, ts, tk) })
		}
		if err := parallelFor(ctx, len(jobs), opt.threads(), func(j int) error { jobs[j](); return nil }); err != nil {
			return Vendi{}, err
		}
		if tk != nil {
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					k[i*n+j] *= tk[i*n+j]
				}
			}
		}
		return eigenVendi(k, n, q)
	}
	k := make([]float64, n*n)
	vs := scaledRows(v, sw)
	var ts []float64
	if t != nil {
		ts = scaledRows(t, nil)
	}
	nb := (n + vendiTile - 1) / vendiTile
	type tile struct{ i, j int }
	var tiles []tile
	for i := 0; i < nb; i++ {
		for j := i; j < nb; j++ {
			tiles = append(tiles, tile{i, j})
		}
	}
	err = parallelFor(ctx, len(tiles), opt.threads(), func(ti int) error {
		i0, j0 := tiles[ti].i*vendiTile, tiles[ti].j*vendiTile
		i1, j1 := min(i0+vendiTile, n), min(j0+vendiTile, n)
		// Write the tile straight into K's upper triangle (row stride n).
		out := k[i0*n+j0:]
		dv := v.Cols
		g.Dgemm(gblas.NoTrans, gblas.Trans, i1-i0, j1-j0, dv, 1, vs[i0*dv:i1*dv], max(dv, 1), vs[j0*dv:j1*dv], max(dv, 1), 0, out, n)
		if t != nil {
			dt := t.Cols
			tt := make([]float64, (i1-i0)*(j1-j0))
			g.Dgemm(gblas.NoTrans, gblas.Trans, i1-i0, j1-j0, dt, 1, ts[i0*dt:i1*dt], max(dt, 1), ts[j0*dt:j1*dt], max(dt, 1), 0, tt, j1-j0)
			for r := 0; r < i1-i0; r++ {
				row := out[r*n : r*n+j1-j0]
				for c, x := range tt[r*(j1-j0) : (r+1)*(j1-j0)] {
					row[c] *= x
				}
			}
		}
		return nil
	})
	if err != nil {
		return Vendi{}, err
	}
	return eigenVendi(k, n, q)
}

func eigenVendi(k []float64, n int, q float64) (Vendi, error) {
	lambda, err := blas.SymEigenvalues(k, n)
	if err != nil {
		return Vendi{}, fmt.Errorf("vendi: %w", err)
	}
	return vendiOf(lambda, q, "kernel"), nil
}

// scratch recycles the float64 buffers of small Vendi scores. It holds no
// results: a buffer is fully overwritten before use.
var scratch sync.Pool

func getScratch(n int) []float64 {
	if p, ok := scratch.Get().(*[]float64); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]float64, n)
}

func putScratch(b []float64) { scratch.Put(&b) }

// scaledRows returns x in float64 with row i multiplied by s[i] (s nil: 1).
func scaledRows(x *Matrix, s []float64) []float64 {
	out := make([]float64, len(x.Data))
	scaledRowsInto(out, x, s)
	return out
}

func scaledRowsInto(out []float64, x *Matrix, s []float64) {
	for i := 0; i < x.Rows; i++ {
		f := 1.0
		if s != nil {
			f = s[i]
		}
		r := x.Row(i)
		o := out[i*x.Cols : (i+1)*x.Cols]
		for j, val := range r {
			o[j] = float64(val) * f
		}
	}
}
