package kernels

import (
	"context"
	"fmt"
	"runtime"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

// A KrylovBasis holds the float64 basis Q (n x cols) that block Lanczos
// builds block by block, and computes the Gram-Schmidt products with it.
// Those products are n x m x r per pass, three passes a step: at pool
// sizes (n = 60,000, m up to 512) they cost more than everything else the
// estimator does beside the operator's products, so an operator whose
// products run on a device can keep the basis there too
// (BasisOperator). The blocks and coefficients cross as host float64.
// A KrylovBasis is used by one goroutine.
type KrylovBasis interface {
	// Set stores x (n x r, row major) as columns [m, m+r) of Q.
	Set(ctx context.Context, m, r int, x []float64) error
	// Project sets h (m x r) = Q_m^T w and then w (n x r) = w - Q_m h,
	// Q_m being Q's first m columns: one classical Gram-Schmidt pass.
	Project(ctx context.Context, m, r int, w, h []float64) error
	// Coords sets z (m x c) = Q_m^T x for x n x c.
	Coords(ctx context.Context, m, c int, x, z []float64) error
	// Gram sets g (r x r) = x^T x for x n x r, and Combine y (n x k) =
	// x u for u r x k: the two n x r x r products of orthonormalising a
	// block, which after the Gram-Schmidt products are the largest left
	// (and gonum runs the first, of a 32 x 32 result, on one thread).
	Gram(ctx context.Context, r int, x, g []float64) error
	Combine(ctx context.Context, r, k int, x, u, y []float64) error
	// Close releases what the basis holds.
	Close() error
}

// A BasisOperator is a SymOperator that can hold the block Lanczos basis
// itself, beside its own data (a device operator in device memory).
// VendiEstimate asks for one, as it asks for a Trace; an operator without
// this method, or one that returns a nil basis, gets the host's.
type BasisOperator interface {
	SymOperator
	// NewKrylovBasis returns a basis of cols columns for blocks of at most
	// block columns, or nil and no error when it has none to offer now
	// (no device memory left, say, which the operator reports itself):
	// the estimate then keeps its basis on the host.
	NewKrylovBasis(ctx context.Context, cols, block int) (KrylovBasis, error)
}

// newKrylovBasis returns a's basis when it offers one, else the host's.
func newKrylovBasis(ctx context.Context, a SymOperator, n, cols, block int) (KrylovBasis, error) {
	if bo, ok := a.(BasisOperator); ok {
		q, err := bo.NewKrylovBasis(ctx, cols, block)
		if err != nil {
			return nil, fmt.Errorf("block lanczos: basis of %d x %d: %w", n, cols, err)
		}
		if q != nil {
			return q, nil
		}
	}
	return &hostBasis{n: n, ld: cols, q: make([]float64, n*cols), threads: runtime.GOMAXPROCS(0)}, nil
}

// hostBasis is the KrylovBasis in host memory: Q row major (n x ld) and
// kernels/blas's Dgemm, which runs on the calling thread. The products
// with Q run in row panels of basisPanel rows on threads goroutines:
// Q^T W as one partial m x r product per panel, summed in panel order,
// and W - Q H panel by panel, so that the estimate does not depend on the
// thread count. (One Dgemm over all n rows ran the Gram-Schmidt, the
// estimator's largest cost after the products, on one core: 19.7 of the
// 22.4 s a 60,000-row block Lanczos run spent outside the products,
// BenchmarkBlockKrylov.)
type hostBasis struct {
	n, ld   int
	q       []float64
	threads int
}

// basisPanel is the rows of one panel of the host basis's products: a
// panel of Q (512 columns) is 16 MiB, and 60,000 rows make 15 tasks.
const basisPanel = 4096

func (b *hostBasis) panels() int { return (b.n + basisPanel - 1) / basisPanel }

func (b *hostBasis) Set(_ context.Context, m, r int, x []float64) error {
	if m < 0 || r < 0 || m+r > b.ld || len(x) != b.n*r {
		return fmt.Errorf("host basis: set %d values as %d columns at %d of %d x %d", len(x), r, m, b.n, b.ld)
	}
	for i := 0; i < b.n; i++ {
		copy(b.q[i*b.ld+m:i*b.ld+m+r], x[i*r:(i+1)*r])
	}
	return nil
}

// coords sets z (m x c) = Q_m^T x: each panel's product into its own
// buffer, the buffers then summed in panel order.
func (b *hostBasis) coords(ctx context.Context, m, c int, x, z []float64) error {
	np := b.panels()
	part := make([]float64, np*m*c)
	err := parallelFor(ctx, np, b.threads, func(p int) error {
		i0, i1 := p*basisPanel, min((p+1)*basisPanel, b.n)
		var g blas.Implementation
		g.Dgemm(gblas.Trans, gblas.NoTrans, m, c, i1-i0, 1, b.q[i0*b.ld:], b.ld, x[i0*c:i1*c], c, 0, part[p*m*c:(p+1)*m*c], c)
		return nil
	})
	if err != nil {
		return err
	}
	copy(z, part[:m*c])
	for p := 1; p < np; p++ {
		for e, v := range part[p*m*c : (p+1)*m*c] {
			z[e] += v
		}
	}
	return nil
}

func (b *hostBasis) Project(ctx context.Context, m, r int, w, h []float64) error {
	if m <= 0 || m > b.ld || r <= 0 || len(w) != b.n*r || len(h) != m*r {
		return fmt.Errorf("host basis: project %d values (%d columns) off %d of %d x %d columns into %d coefficients", len(w), r, m, b.n, b.ld, len(h))
	}
	if err := b.coords(ctx, m, r, w, h); err != nil {
		return err
	}
	return parallelFor(ctx, b.panels(), b.threads, func(p int) error {
		i0, i1 := p*basisPanel, min((p+1)*basisPanel, b.n)
		var g blas.Implementation
		g.Dgemm(gblas.NoTrans, gblas.NoTrans, i1-i0, r, m, -1, b.q[i0*b.ld:], b.ld, h, r, 1, w[i0*r:i1*r], r)
		return nil
	})
}

func (b *hostBasis) Coords(ctx context.Context, m, c int, x, z []float64) error {
	if m <= 0 || m > b.ld || c <= 0 || len(x) != b.n*c || len(z) != m*c {
		return fmt.Errorf("host basis: coordinates of %d values (%d columns) on %d of %d x %d columns into %d", len(x), c, m, b.n, b.ld, len(z))
	}
	return b.coords(ctx, m, c, x, z)
}

func (b *hostBasis) Gram(ctx context.Context, r int, x, g []float64) error {
	if r <= 0 || len(x) != b.n*r || len(g) != r*r {
		return fmt.Errorf("host basis: Gram matrix of %d values in %d columns into %d", len(x), r, len(g))
	}
	// x^T x is coords with x in place of Q.
	xb := hostBasis{n: b.n, ld: r, q: x, threads: b.threads}
	return xb.coords(ctx, r, r, x, g)
}

func (b *hostBasis) Combine(ctx context.Context, r, k int, x, u, y []float64) error {
	if r <= 0 || k <= 0 || len(x) != b.n*r || len(u) != r*k || len(y) != b.n*k {
		return fmt.Errorf("host basis: combine %d values in %d columns by %d into %d columns", len(x), r, len(u), k)
	}
	return parallelFor(ctx, b.panels(), b.threads, func(p int) error {
		i0, i1 := p*basisPanel, min((p+1)*basisPanel, b.n)
		var bl blas.Implementation
		bl.Dgemm(gblas.NoTrans, gblas.NoTrans, i1-i0, k, r, 1, x[i0*r:i1*r], r, u, k, 0, y[i0*k:i1*k], k)
		return nil
	})
}

func (b *hostBasis) Close() error { b.q = nil; return nil }
