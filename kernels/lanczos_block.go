package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

// A krylov is the Rayleigh-Ritz picture of a symmetric operator A on the
// block Krylov space K_s(A, Omega) of a block of probes Omega (n x b):
// the Ritz values theta_j, each Ritz vector's residual |A y_j - theta_j y_j|
// and the probes' weight on it, |Omega^T y_j|^2 / b. The weights sum to n,
// and sum_j weight_j f(theta_j) is the block Gauss quadrature of the
// Hutchinson estimate (1/b) tr(Omega^T f(A) Omega) of tr f(A).
type krylov struct {
	theta, resid, weight []float64
}

// blockKrylov runs block Lanczos with full reorthogonalisation from omega
// (n x b, row major) for up to steps products with A, and returns the Ritz
// picture of the space it spans. The basis is held in float64 (n x b steps
// values), so that the Ritz pairs of the top of the spectrum converge
// without ghosts; T = Q^T A Q is assembled from the reorthogonalisation
// coefficients, so it holds every coupling the basis sees, not only the
// block tridiagonal part.
//
// The basis and its products (Gram-Schmidt, and the n x r x r products
// of orthonormalising each block) live in a KrylovBasis: the operator's
// own when it offers one (BasisOperator), the host's otherwise; the r x r
// eigenproblems and T's m x m one stay here.
func blockKrylov(ctx context.Context, a SymOperator, omega []float64, b, steps int) (_ krylov, err error) {
	n := a.Size()
	var g blas.Implementation
	ld := min(b*steps, n) // columns of the basis at most
	basis, err := newKrylovBasis(ctx, a, n, ld, b)
	if err != nil {
		return krylov{}, err
	}
	defer func() {
		if cerr := basis.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("block lanczos: close basis: %w", cerr))
		}
	}()
	tm := make([]float64, ld*ld) // T, upper triangle filled block column by block column
	cur := append([]float64(nil), omega...)
	cur, r, _, err := orthonormalBlock(ctx, basis, cur, n, b, 0)
	if err != nil {
		return krylov{}, err
	}
	m := 0
	var resid []float64 // the last block's residual, n x rLast
	rLast := 0
	var anorm float64
	for k := 0; k < steps && r > 0; k++ {
		if m+r > ld {
			r = ld - m
			cur = keepColumns(cur, n, len(cur)/max(n, 1), r)
		}
		if r == 0 {
			break
		}
		if err := basis.Set(ctx, m, r, cur); err != nil {
			return krylov{}, err
		}
		w := make([]float64, n*r)
		if err := a.Apply(ctx, cur, r, w); err != nil {
			return krylov{}, err
		}
		// The operator's scale so far is the longest |A q| of a basis
		// vector q, taken before the projections: the Rayleigh quotients
		// q^T A q of random probes are near tr(A)/n, far below |A| for a
		// low-rank kernel, and a floor set by them kept the rounding
		// noise of an exact rank-16 product as basis vectors (a 2000 x 16
		// matrix's score came out 61,139).
		anorm = max(anorm, maxColumnNorm(w, n, r))
		m0 := m
		m += r
		// H = Q^T W, twice (classical Gram-Schmidt with one
		// reorthogonalisation pass: "twice is enough").
		h := make([]float64, m*r)
		h2 := make([]float64, m*r)
		for pass := 0; pass < 2; pass++ {
			if err := basis.Project(ctx, m, r, w, h2); err != nil {
				return krylov{}, err
			}
			for e := range h {
				h[e] += h2[e]
			}
		}
		for i := 0; i < m; i++ {
			copy(tm[i*ld+m0:i*ld+m0+r], h[i*r:(i+1)*r])
		}
		resid, rLast = w, r
		if err := ctx.Err(); err != nil {
			return krylov{}, err
		}
		if k == steps-1 || m == ld {
			break
		}
		var shortest float64
		if cur, r, shortest, err = orthonormalBlock(ctx, basis, w, n, r, anorm); err != nil {
			return krylov{}, err
		}
		if shortest < reorthBelow*anorm {
			if cur, r, err = reorthogonalise(ctx, cur, basis, n, m, r); err != nil {
				return krylov{}, err
			}
		}
	}
	if m == 0 {
		return krylov{}, fmt.Errorf("block lanczos: the probes span nothing")
	}
	// T: symmetric from its upper triangle, m x m.
	t := make([]float64, m*m)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			t[i*m+j] = tm[i*ld+j]
			t[j*m+i] = tm[i*ld+j]
		}
	}
	// Z = Q^T Omega (m x b), before T's eigenvectors overwrite nothing of it.
	z := make([]float64, m*b)
	if err := basis.Coords(ctx, m, b, omega, z); err != nil {
		return krylov{}, err
	}
	theta, err := blas.SymEigen(t, m) // t now holds the eigenvectors S, one per column
	if err != nil {
		return krylov{}, fmt.Errorf("block lanczos: %w", err)
	}
	// P = S^T Z: the probes' coordinates on the Ritz vectors.
	p := make([]float64, m*b)
	g.Dgemm(gblas.Trans, gblas.NoTrans, m, b, m, 1, t, m, z, b, 0, p, b)
	out := krylov{theta: theta, resid: make([]float64, m), weight: make([]float64, m)}
	for j := 0; j < m; j++ {
		var s float64
		for _, x := range p[j*b : (j+1)*b] {
			s += x * x
		}
		out.weight[j] = s / float64(b)
	}
	// A Q = Q T + R E^T, with R the last block's residual: the residual of
	// Ritz vector j is |R s_j'|, s_j' the last rLast entries of s_j.
	if rLast > 0 && m < n {
		gram := make([]float64, rLast*rLast)
		g.Dgemm(gblas.Trans, gblas.NoTrans, rLast, rLast, n, 1, resid, rLast, resid, rLast, 0, gram, rLast)
		tail := make([]float64, rLast)
		for j := 0; j < m; j++ {
			for c := range tail {
				tail[c] = t[(m-rLast+c)*m+j]
			}
			var s float64
			for c1, x1 := range tail {
				for c2, x2 := range tail {
					s += x1 * gram[c1*rLast+c2] * x2
				}
			}
			out.resid[j] = math.Sqrt(max(s, 0))
		}
	}
	return out, nil
}

// reorthBelow: a block whose shortest kept direction, after the two
// Gram-Schmidt passes, is shorter than reorthBelow times the operator's
// scale is projected off the basis once more (reorthogonalise). The two
// passes leave each direction off the basis by about u |A| (rounding u);
// normalised, that is u |A| / length, 2^-33 at this bound, far below what
// moves a Ritz value. Only blocks that have nearly left the Krylov space
// (a low-rank kernel's) come near it; full-rank kernels at pool scale
// never did, and the extra pass had cost them a third of the Gram-Schmidt
// products.
const reorthBelow = 0x1p-20

// orthonormalBlock returns an orthonormal basis of the range of m (n x r),
// its rank and the length of its shortest kept direction before
// normalising (the square root of the Gram matrix's smallest kept
// eigenvalue in the first pass), dropping directions whose length is below rounding: below
// 2^-40 of the largest column direction, or of anorm (the operator's scale
// so far) when that is larger, so that a block which has (nearly) left
// the Krylov space ends the iteration instead of filling it with noise.
// Its two n x r x r products run on the basis's device (Gram, Combine);
// the r x r eigenproblem here.
func orthonormalBlock(ctx context.Context, basis KrylovBasis, m []float64, n, r int, anorm float64) ([]float64, int, float64, error) {
	cur := m
	shortest := math.Inf(1)
	for pass := 0; pass < 2 && r > 0; pass++ {
		gram := make([]float64, r*r)
		if err := basis.Gram(ctx, r, cur, gram); err != nil {
			return nil, 0, 0, err
		}
		s, err := blas.SymEigen(gram, r)
		if err != nil {
			return nil, 0, 0, nil
		}
		floor := s[len(s)-1]
		if pass == 0 {
			floor = max(floor, anorm*anorm)
		}
		floor *= 0x1p-80
		var keep []int
		for k := len(s) - 1; k >= 0; k-- {
			if s[k] > floor {
				keep = append(keep, k)
				if pass == 0 {
					shortest = min(shortest, math.Sqrt(s[k]))
				}
			}
		}
		u := make([]float64, r*len(keep))
		for i := 0; i < r; i++ {
			for c, k := range keep {
				u[i*len(keep)+c] = gram[i*r+k] / math.Sqrt(s[k])
			}
		}
		next := make([]float64, n*len(keep))
		if len(keep) > 0 {
			if err := basis.Combine(ctx, r, len(keep), cur, u, next); err != nil {
				return nil, 0, 0, err
			}
		}
		cur, r = next, len(keep)
	}
	return cur, r, shortest, nil
}

// keepColumns returns the first r of the c columns of m (n x c).
func keepColumns(m []float64, n, c, r int) []float64 {
	out := make([]float64, n*r)
	for i := 0; i < n; i++ {
		copy(out[i*r:(i+1)*r], m[i*c:i*c+r])
	}
	return out
}

// reorthogonalise projects the orthonormal block cur (n x r) once more off
// the first m columns of the basis and orthonormalises it again.
// A direction kept just above orthonormalBlock's floor is left by the two
// Gram-Schmidt passes with a relative error of rounding over its length;
// normalised, that error is no longer small, and the Ritz values of a
// basis that is not orthonormal leave the spectrum (negative ones for a
// Gram matrix). After this pass cur is orthogonal to the basis to rounding.
func reorthogonalise(ctx context.Context, cur []float64, basis KrylovBasis, n, m, r int) ([]float64, int, error) {
	if r == 0 {
		return cur, 0, nil
	}
	h := make([]float64, m*r)
	if err := basis.Project(ctx, m, r, cur, h); err != nil {
		return nil, 0, err
	}
	cur, r, _, err := orthonormalBlock(ctx, basis, cur, n, r, 1)
	return cur, r, err
}

// maxColumnNorm returns the largest Euclidean length of the r columns of
// m (n x r, row major).
func maxColumnNorm(m []float64, n, r int) float64 {
	ss := make([]float64, r)
	for i := 0; i < n; i++ {
		for c, x := range m[i*r : (i+1)*r] {
			ss[c] += x * x
		}
	}
	var mx float64
	for _, s := range ss {
		mx = max(mx, s)
	}
	return math.Sqrt(mx)
}
