package cuda

import (
	"context"
	"fmt"
)

// A BasisDevice holds the block Lanczos basis of a Vendi estimate in its
// memory, in float64, and computes the basis's Gram-Schmidt products
// there: what JointKernel offers kernels.VendiEstimate as its
// kernels.KrylovBasis, so that at pool sizes the n x m x r products run
// beside the kernel's instead of on the host. Host implements it in Go in
// the own kernels' summation order (basis_host.go), the GPU with cuBLAS's
// Dgemm or basis.cu's kernels (basis_cuda.go).
type BasisDevice interface {
	// BasisMemory is the device memory a basis may take now, in bytes.
	BasisMemory() (int64, error)
	// NewBasisBuffers allocates Q (n x cols), blocks W and Y (n x block),
	// the coefficients H (cols x block) and the partial sums the products
	// need, all float64, for use by one goroutine; workers is how many
	// threads a device computing on the host may use. On error nothing
	// stays allocated.
	NewBasisBuffers(n, cols, block, workers int) (BasisBuffers, error)
}

// BasisBuffers are one basis's device buffers and the products with them.
// Q, W, H and Y (a second block) are row major. The own kernels' summation order, which Host
// follows bit for bit: Coeffs splits Q's rows into chunks of basisChunk,
// forms each chunk's partial product as an fma chain over its rows in
// increasing order (from 0), and adds the partials in increasing chunk
// order (from the first); Subtract forms each entry of Q_m H as an fma
// chain over the m columns in increasing order (from 0) and subtracts it
// from W once. cuBLAS's Dgemm sums in its own order: within rounding of
// the own kernels', not bit-equal.
type BasisBuffers interface {
	// SetColumns copies x (n x r) to columns [m, m+r) of Q (W is
	// scratch for the copy and holds nothing after).
	SetColumns(m, r int, x []float64) error
	// SetBlock copies w (n x r) to W.
	SetBlock(w []float64, r int) error
	// Coeffs sets H (m x r) = Q_m^T W, Q_m Q's first m columns, and
	// copies it to h.
	Coeffs(m int, h []float64) error
	// Subtract sets W = W - Q_m H.
	Subtract(m int) error
	// TakeBlock copies W (n x r) to w.
	TakeBlock(w []float64) error
	// BlockGram sets H (r x r) = W^T W, in Coeffs's order with W for Q,
	// and copies it to g.
	BlockGram(g []float64) error
	// BlockTimes copies u (r x k, k <= r) to H and sets Y (n x k) = W U,
	// in Subtract's order with W for Q and U for H but Y set to the sums
	// instead of reduced by them, and copies Y to y.
	BlockTimes(u []float64, k int, y []float64) error
	// Close frees the buffers.
	Close() error
}

// basisChunk is the rows of Q each partial product of Coeffs sums: a
// fixed split of the long n reduction, so that its order does not depend
// on the device (basis.cu's BASIS_CHUNK). At n = 60,000 it gives 118
// partials, enough thread blocks to fill a Hopper at every m.
const basisChunk = 512

// basis.cu's launch shapes (its #defines): basis_tn computes a
// basisTile x basisTile block of a partial product per 256 threads;
// basis_nn updates basisNNRows x basisTile of W per 256 threads.
const (
	basisTile    = 32
	basisNNRows  = 64
	basisThreads = 256
)

// basisEntries are basis.cu's kernels, in the order of gpuBasisKernels'
// fields.
var basisEntries = []string{"basis_tn", "basis_reduce", "basis_nn"}

// basisChunks is the number of partial products over n rows.
func basisChunks(n int) int { return (n + basisChunk - 1) / basisChunk }

// basisBytes is what NewBasisBuffers allocates with the own kernels'
// partial sums (cuBLAS needs none of them).
func basisBytes(n, cols, block int) int64 {
	n64, c64, b64 := int64(n), int64(cols), int64(block)
	return 8 * (n64*c64 + 2*n64*b64 + c64*b64 + int64(basisChunks(n))*c64*b64)
}

// checkBasisShape refuses a basis that the products cannot index.
func checkBasisShape(n, cols, block int) error {
	if n <= 0 || cols <= 0 || block <= 0 || cols > n {
		return fmt.Errorf("basis of %d x %d for blocks of %d columns", n, cols, block)
	}
	return nil
}

// deviceBasis is the kernels.KrylovBasis over a device's BasisBuffers: a
// projection copies the block in, forms H and W - Q H there and copies
// both back (n x r float64 each way: 15 MB at n = 60,000 and 32 columns).
type deviceBasis struct {
	name         string
	buf          BasisBuffers
	n, ld, block int
}

func (b *deviceBasis) fail(what string, err error) error {
	return fmt.Errorf("%s: basis %s: %w", b.name, what, err)
}

func (b *deviceBasis) check(ctx context.Context, m, r, values int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m <= 0 || m > b.ld || r <= 0 || r > b.block || values != b.n*r {
		return fmt.Errorf("%s: basis of %d x %d for blocks of %d: %d values in %d columns against %d columns", b.name, b.n, b.ld, b.block, values, r, m)
	}
	return nil
}

// Set implements kernels.KrylovBasis.
func (b *deviceBasis) Set(ctx context.Context, m, r int, x []float64) error {
	if err := b.check(ctx, max(m, 1), r, len(x)); err != nil {
		return err
	}
	if m < 0 || m+r > b.ld {
		return fmt.Errorf("%s: basis columns [%d, %d) outside its %d", b.name, m, m+r, b.ld)
	}
	if err := b.buf.SetColumns(m, r, x); err != nil {
		return b.fail("set columns", err)
	}
	return nil
}

// Project implements kernels.KrylovBasis.
func (b *deviceBasis) Project(ctx context.Context, m, r int, w, h []float64) error {
	if err := b.check(ctx, m, r, len(w)); err != nil {
		return err
	}
	if len(h) != m*r {
		return fmt.Errorf("%s: %d coefficients for %d x %d", b.name, len(h), m, r)
	}
	if err := b.buf.SetBlock(w, r); err != nil {
		return b.fail("copy block", err)
	}
	if err := b.buf.Coeffs(m, h); err != nil {
		return b.fail("Q^T W", err)
	}
	if err := b.buf.Subtract(m); err != nil {
		return b.fail("W - Q H", err)
	}
	if err := b.buf.TakeBlock(w); err != nil {
		return b.fail("copy block back", err)
	}
	return nil
}

// Coords implements kernels.KrylovBasis.
func (b *deviceBasis) Coords(ctx context.Context, m, c int, x, z []float64) error {
	if err := b.check(ctx, m, c, len(x)); err != nil {
		return err
	}
	if len(z) != m*c {
		return fmt.Errorf("%s: %d coordinates for %d x %d", b.name, len(z), m, c)
	}
	if err := b.buf.SetBlock(x, c); err != nil {
		return b.fail("copy block", err)
	}
	if err := b.buf.Coeffs(m, z); err != nil {
		return b.fail("Q^T X", err)
	}
	return nil
}

// Gram implements kernels.KrylovBasis.
func (b *deviceBasis) Gram(ctx context.Context, r int, x, g []float64) error {
	if err := b.check(ctx, r, r, len(x)); err != nil {
		return err
	}
	if len(g) != r*r {
		return fmt.Errorf("%s: %d values for a %d x %d Gram matrix", b.name, len(g), r, r)
	}
	if err := b.buf.SetBlock(x, r); err != nil {
		return b.fail("copy block", err)
	}
	if err := b.buf.BlockGram(g); err != nil {
		return b.fail("W^T W", err)
	}
	return nil
}

// Combine implements kernels.KrylovBasis.
func (b *deviceBasis) Combine(ctx context.Context, r, k int, x, u, y []float64) error {
	if err := b.check(ctx, r, r, len(x)); err != nil {
		return err
	}
	if k <= 0 || k > r || len(u) != r*k || len(y) != b.n*k {
		return fmt.Errorf("%s: combine %d columns by %d values into %d of %d columns", b.name, r, len(u), len(y), k)
	}
	if err := b.buf.SetBlock(x, r); err != nil {
		return b.fail("copy block", err)
	}
	if err := b.buf.BlockTimes(u, k, y); err != nil {
		return b.fail("W U", err)
	}
	return nil
}

// Close implements kernels.KrylovBasis.
func (b *deviceBasis) Close() error {
	if b.buf == nil {
		return nil
	}
	err := b.buf.Close()
	b.buf = nil
	if err != nil {
		return b.fail("free", err)
	}
	return nil
}
