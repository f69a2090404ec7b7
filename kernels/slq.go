package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// SLQConfig sets the stochastic Lanczos quadrature estimate of a Vendi
// score (Ubaru, Chen and Saad, "Fast estimation of tr(f(A)) via stochastic
// Lanczos quadrature", SIAM J. Matrix Anal. Appl. 2017) in its block form:
// one block Lanczos run from a block of Rademacher probes, whose Krylov
// space both resolves the top of the spectrum (where most of a kernel's
// entropy sits, and where the probes' noise would be largest) and gives
// the quadrature nodes for the rest. Zero fields take the defaults.
type SLQConfig struct {
	Probes int    // Rademacher probes, the block size (default 32)
	Steps  int    // block Lanczos steps, each one product with Probes columns (default 16)
	Seed   uint64 // seeds the probes
	// SquaredNorm is tr(A^2) = ||A||_F^2 when the caller knows it (0:
	// unknown): SquaredNorm(op) gives it for FormJointKernel's operator.
	// With it and the trace, the control variate over the unconverged
	// Ritz values is quadratic, c0 + c1 l + c2 l^2, whose total is exact,
	// instead of linear; at 3,000 items that cut the estimate's spread
	// over 20 seeds fivefold (docs/scale.md, "Vendi at pool scale"), for
	// no product. Operators that cannot give it (formed per product, or
	// on a device) keep the linear control variate.
	SquaredNorm float64
}

// SquaredNorm returns tr(A^2) = ||A||_F^2 of op when op knows it without
// products (FormJointKernel's operator sums it as it forms K), for
// SLQConfig.SquaredNorm; ok is false otherwise.
func SquaredNorm(op SymOperator) (sq float64, ok bool) {
	if s, has := op.(interface{ SquaredNorm() float64 }); has {
		sq = s.SquaredNorm()
		return sq, sq > 0 && !math.IsInf(sq, 0)
	}
	return 0, false
}

func (c SLQConfig) withDefaults() SLQConfig {
	// Defaults measured at n = 2,000 to 8,000 on cone-shaped, clustered
	// and power-law embeddings at 1152 x 1024 (docs/scale.md, "Vendi at
	// pool scale"): 32 probes and 16 steps (512 columns) came within 0.2%
	// of the exact score for every seed, where the earlier estimator
	// (Hutch++ sketch and independent Lanczos runs) needed 8,064 columns.
	// Over 20 seeds on five kernels at n = 3,000 ("The estimate's spread
	// over seeds"), the largest error was 0.21% with the linear control
	// variate and 0.06% with the quadratic one (SquaredNorm).
	if c.Probes <= 0 {
		c.Probes = 32
	}
	if c.Steps <= 0 {
		c.Steps = 16
	}
	return c
}

// ritzTol is the relative residual |A y - theta y| <= ritzTol * theta
// below which a Ritz pair counts as an eigenpair, once, instead of through
// the probes' weights: its value is then off by f”(theta) r^2 / 2, which
// vendiFromKrylov adds back, and the next term is smaller by ritzTol.
// Measured (docs/scale.md): 0.003 to 0.03 give the same estimates within
// 0.1%; 0.1 lets bulk Ritz values in and was 3% to 99% off.
const ritzTol = 0.01

// VendiEstimate estimates the order-q Vendi score of the operator a (the
// weighted kernel, trace 1 for unit rows, e.g. from FormJointKernel or
// NewJointKernel) from cfg.Steps products with blocks of cfg.Probes
// vectors. The estimate depends only on a, q and cfg (Seed included), not
// on the thread count; it stops at ctx's cancellation.
func VendiEstimate(ctx context.Context, a SymOperator, q float64, cfg SLQConfig) (Vendi, error) {
	if err := checkOrder(q); err != nil {
		return Vendi{}, err
	}
	cfg = cfg.withDefaults()
	n := a.Size()
	if n == 0 {
		return Vendi{}, fmt.Errorf("vendi estimate: no items")
	}
	b := min(cfg.Probes, n)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	omega := make([]float64, n*b)
	for i := range omega {
		if rng.Uint64()&1 == 0 {
			omega[i] = 1
		} else {
			omega[i] = -1
		}
	}
	kr, err := blockKrylov(ctx, a, omega, b, cfg.Steps)
	if err != nil {
		return Vendi{}, err
	}
	tr, known := 0.0, false
	if t, ok := a.(interface{ Trace() float64 }); ok {
		tr, known = t.Trace(), true
	}
	sq := 0.0
	if known && cfg.SquaredNorm > 0 && !math.IsInf(cfg.SquaredNorm, 0) {
		sq = cfg.SquaredNorm
	}
	return vendiFromKrylov(kr, n, tr, known, sq, q, ritzTol)
}

// vendiFromKrylov turns a Ritz picture into an order-q Vendi estimate of
// an n x n operator with trace tr (known says whether tr is exact) and
// tr(A^2) = sq (0: unknown). Ritz pairs whose residual is at most tol
// times their value count as eigenpairs, each once (deflation: the
// probes' noise on them is dropped); the others carry the probes'
// weights, with a control variate c0 + c1 l (+ c2 l^2 when sq is known)
// fitted to f over them whose total the mass, trace and squared norm left
// to them fix exactly.
func vendiFromKrylov(kr krylov, n int, tr float64, known bool, sq, q, tol float64) (Vendi, error) {
	var lmax float64
	for _, t := range kr.theta {
		lmax = max(lmax, t)
	}
	if !(lmax > 0) {
		return Vendi{}, fmt.Errorf("vendi: the kernel has no positive eigenvalue")
	}
	if math.IsInf(q, 1) {
		h := -math.Log(lmax)
		return Vendi{Score: math.Exp(h), Entropy: h, Method: "slq"}, nil
	}
	// Ritz values within rounding of zero are zero eigenvalues of a
	// rank-deficient kernel, dropped as VendiEntropy drops them.
	cut := float64(n) * 0x1p-52 * lmax
	f := func(l float64) float64 {
		switch {
		case l <= cut:
			return 0
		case q == 1:
			return -l * math.Log(l)
		}
		return math.Pow(l/lmax, q)
	}
	fpp := func(l float64) float64 {
		if q == 1 {
			return -1 / l
		}
		return math.Pow(l/lmax, q) * q * (q - 1) / (l * l)
	}
	var top, mass, trLeft, sqLeft float64
	mass, trLeft, sqLeft = float64(n), tr, sq
	var sw, swl, swll, swf, swlf float64
	var bulk []int // the unconverged Ritz values, for the quadratic fit
	for j, t := range kr.theta {
		if t > cut && kr.resid[j] <= tol*t {
			// y^T f(A) y = f(theta) + f''(theta) r^2 / 2 + ...: the
			// spread of A's spectrum on the Ritz vector y is r^2.
			// (At huge orders the term overflows where the expansion no
			// longer holds; the top Ritz value, which alone counts there,
			// has converged far below ritzTol.)
			top += f(t)
			if r := kr.resid[j]; r > 0 {
				if c := fpp(t) * r * r / 2; !math.IsInf(c, 0) && !math.IsNaN(c) {
					top += c
				}
			}
			mass--
			trLeft -= t
			// y^T A^2 y = |A y|^2 = theta^2 + r^2 (the residual is
			// orthogonal to y).
			sqLeft -= t*t + kr.resid[j]*kr.resid[j]
			continue
		}
		bulk = append(bulk, j)
		w := kr.weight[j]
		sw += w
		swl += w * t
		swll += w * t * t
		swf += w * f(t)
		swlf += w * t * f(t)
	}
	var rest float64
	quad, ok := 0.0, false
	if sq > 0 && len(bulk) >= 3 {
		quad, ok = quadraticRest(kr, bulk, f, mass, trLeft, sq, sqLeft)
	}
	if ok {
		rest = quad
	} else if sw > 0 {
		// Weighted least squares f ~ c0 + c1 l over the unconverged Ritz
		// values (c0 alone when the trace is unknown): the probes then
		// estimate only f - c0 - c1 l, and c0 mass + c1 trLeft is exact.
		c0, c1 := swf/sw, 0.0
		if det := sw*swll - swl*swl; known && det > 1e-12*sw*swll {
			c1 = (sw*swlf - swl*swf) / det
			c0 = (swf - c1*swl) / sw
		}
		rest = swf - c0*sw - c1*swl + c0*mass + c1*trLeft
	}
	est := top + rest
	var h float64
	if q == 1 {
		h = est
	} else {
		h = renyi(max(est, 1), lmax, q)
	}
	if math.IsNaN(h) || math.IsInf(h, 0) {
		return Vendi{}, fmt.Errorf("vendi: the order-%v estimate is %v (the trace estimate %v is not positive)", q, h, est)
	}
	return Vendi{Score: math.Exp(h), Entropy: h, Method: "slq"}, nil
}

// quadraticRest is the probes' estimate of sum f(l) over the eigenvalues
// left after deflation (those of the Ritz pairs in bulk), with the
// control variate p(l) = c0 + c1 l + c2 l^2 fitted to f by weighted least
// squares over the bulk Ritz values: the probes estimate only f - p, and
// p's total c0 mass + c1 trLeft + c2 sqLeft is exact. -l log l is far
// closer to a parabola than to a line over the bulk of a kernel's
// spectrum (its curvature grows towards 0), so the probes' spread drops
// with what the line left. ok is false when the fit is singular (too few
// distinct values), or when sqLeft, the difference of sq and the deflated
// pairs' share, is not resolved: below 1e-6 of sq (the float32 entries'
// rounding in a formed K's norm), or outside a factor 2 of the probes' own
// estimate of it, sum w theta^2 over the bulk (whose spread is far less):
// a low-rank kernel's bulk is rounding noise, whose squared mass sq
// cannot resolve, and the parabola's c2 sqLeft / scale^2 would be that
// noise magnified (a rank-16 kernel's score came out 27.8 for 15.9). The
// caller then falls back to the linear variate.
func quadraticRest(kr krylov, bulk []int, f func(float64) float64, mass, trLeft, sq, sqLeft float64) (float64, bool) {
	// Powers of l / scale, so that the normal equations are of order 1.
	var scale, probed float64
	for _, j := range bulk {
		scale = max(scale, math.Abs(kr.theta[j]))
		probed += kr.weight[j] * kr.theta[j] * kr.theta[j]
	}
	if !(scale > 0) || !(sqLeft > 1e-6*sq) || sqLeft > 2*probed || sqLeft < probed/2 {
		return 0, false
	}
	var g [3][3]float64
	var rhs [3]float64
	for _, j := range bulk {
		x := kr.theta[j] / scale
		p := [3]float64{1, x, x * x}
		w, fx := kr.weight[j], f(kr.theta[j])
		for a := range p {
			for b := range p {
				g[a][b] += w * p[a] * p[b]
			}
			rhs[a] += w * p[a] * fx
		}
	}
	c, ok := solve3(g, rhs)
	if !ok {
		return 0, false
	}
	var rest float64
	for _, j := range bulk {
		x := kr.theta[j] / scale
		rest += kr.weight[j] * (f(kr.theta[j]) - c[0] - c[1]*x - c[2]*x*x)
	}
	rest += c[0]*mass + c[1]*trLeft/scale + c[2]*sqLeft/(scale*scale)
	if math.IsNaN(rest) || math.IsInf(rest, 0) {
		return 0, false
	}
	return rest, true
}

// solve3 solves the symmetric positive semi-definite 3 x 3 system g c = b
// by Cholesky, and says no when g is singular to within 1e-12 of its
// diagonal (fewer than three distinct values carry weight).
func solve3(g [3][3]float64, b [3]float64) ([3]float64, bool) {
	var l [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j <= i; j++ {
			s := g[i][j]
			for k := 0; k < j; k++ {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if !(s > 1e-12*g[i][i]) {
					return [3]float64{}, false
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	var y, c [3]float64
	for i := 0; i < 3; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= l[i][k] * y[k]
		}
		y[i] = s / l[i][i]
	}
	for i := 2; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < 3; k++ {
			s -= l[k][i] * c[k]
		}
		c[i] = s / l[i][i]
	}
	return c, true
}
