//go:build cuda

package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// basisPTX is basis.cu compiled by `make ptx` for compute_80, a module of
// its own beside kernels.ptx.
//
//go:embed basis.ptx
var basisPTX string

// basisKernels are basis.cu's module and kernels, loaded by Open.
type basisKernels struct {
	mod            cu.Module
	tn, reduce, nn cu.Function
}

// load loads basis.ptx into the current context; on error the module, if
// it loaded, stays in mod for the GPU's Close to unload.
func (k *basisKernels) load() error {
	var err error
	if k.mod, err = cu.LoadData(basisPTX); err != nil {
		k.mod = cu.Module{}
		return fmt.Errorf("load basis kernels (PTX JIT): %w", err)
	}
	for i, fn := range []*cu.Function{&k.tn, &k.reduce, &k.nn} {
		if *fn, err = k.mod.Function(basisEntries[i]); err != nil {
			return fmt.Errorf("kernel %s: %w", basisEntries[i], err)
		}
	}
	return nil
}

var _ BasisDevice = (*GPU)(nil)

// BasisMemory implements BasisDevice: cuMemGetInfo's free memory less
// kernelMargin.
func (g *GPU) BasisMemory() (int64, error) {
	unbind, err := g.bind()
	if err != nil {
		return 0, err
	}
	defer unbind()
	free, _, err := cu.MemInfo()
	if err != nil {
		return 0, fmt.Errorf("cuMemGetInfo: %w", err)
	}
	return max(0, free-kernelMargin), nil
}

// gpuBasis holds, in cuMemAlloc'd device memory, Q (n x ld), the blocks W
// and Y (n x block), H (ld x block) and, without cuBLAS, the partial
// products (chunks x ld x block), with a stream and a cuBLAS handle of its
// own.
type gpuBasis struct {
	g                    *GPU
	stream               cu.Stream
	handle               uintptr // cuBLAS handle; 0 without cuBLAS
	n, ld, block, chunks int
	r, m                 int // W's columns, H's rows
	q, w, y, h, part     cu.DevicePtr
}

// NewBasisBuffers implements BasisDevice: a stream, a cuBLAS handle in
// its default math mode (Dgemm is float64 in every mode) where cuBLAS is
// loaded, and the buffers. On error everything allocated so far is freed.
func (g *GPU) NewBasisBuffers(n, cols, block, _ int) (_ BasisBuffers, err error) {
	if err := checkBasisShape(n, cols, block); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	unbind, err := g.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	b := &gpuBasis{g: g, n: n, ld: cols, block: block, chunks: basisChunks(n)}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("cuda:%d: basis of %d x %d: %w", g.ordinal, n, cols, err), b.free())
		}
	}()
	if err = g.openStream(&b.stream, &b.handle, cublasDefaultMath); err != nil {
		return nil, err
	}
	n64, c64, b64 := int64(n), int64(cols), int64(block)
	bufs := []devBuf{{P: &b.q, Bytes: 8 * n64 * c64}, {P: &b.w, Bytes: 8 * n64 * b64}, {P: &b.y, Bytes: 8 * n64 * b64}, {P: &b.h, Bytes: 8 * c64 * b64}}
	if b.handle == 0 {
		bufs = append(bufs, devBuf{P: &b.part, Bytes: 8 * int64(b.chunks) * c64 * b64})
	}
	if err = allocBufs(bufs...); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *gpuBasis) free() error {
	errs := freeBufs(&b.q, &b.w, &b.y, &b.h, &b.part)
	return errors.Join(append(errs, b.g.closeStream(&b.stream, &b.handle))...)
}

// Close implements BasisBuffers.
func (b *gpuBasis) Close() error {
	unbind, err := b.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if b.stream != (cu.Stream{}) {
		if err := b.stream.Synchronize(); err != nil {
			return errors.Join(fmt.Errorf("synchronize: %w", err), b.free())
		}
	}
	return b.free()
}

func (b *gpuBasis) fail(what string, err error) error {
	return fmt.Errorf("cuda:%d: %s: %w", b.g.ordinal, what, err)
}

// upload copies x (n x r) to W and waits: the host slice is free again
// when it returns.
func (b *gpuBasis) upload(x []float64, r int) error {
	if r <= 0 || r > b.block || len(x) != b.n*r {
		return fmt.Errorf("cuda: block of %d values in %d columns, want %d x 1..%d", len(x), r, b.n, b.block)
	}
	if err := cu.MemcpyHtoDAsync(b.w, unsafe.Pointer(&x[0]), int64(len(x))*8, b.stream); err != nil {
		return b.fail("copy block", err)
	}
	return nil
}

// SetColumns implements BasisBuffers: the block to W, then one 2-D copy
// on the device into Q's columns (rows of r values at a pitch of ld).
func (b *gpuBasis) SetColumns(m, r int, x []float64) error {
	if m < 0 || m+r > b.ld {
		return fmt.Errorf("cuda: columns [%d, %d) of a basis of %d", m, m+r, b.ld)
	}
	unbind, err := b.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	b.r, b.m = 0, 0
	if err := b.upload(x, r); err != nil {
		return err
	}
	cp := cu.Memcpy2dParam{
		SrcMemoryType: cu.DeviceMemory, SrcDevice: b.w, SrcPitch: int64(r) * 8,
		DstMemoryType: cu.DeviceMemory, DstDevice: b.q, DstXInBytes: int64(m) * 8, DstPitch: int64(b.ld) * 8,
		WidthInBytes: int64(r) * 8, Height: int64(b.n),
	}
	if err := cu.Memcpy2DAsync(cp, b.stream); err != nil {
		return b.fail("copy block into the basis", err)
	}
	if err := b.stream.Synchronize(); err != nil {
		return b.fail("copy block into the basis", err)
	}
	return nil
}

// SetBlock implements BasisBuffers.
func (b *gpuBasis) SetBlock(w []float64, r int) error {
	unbind, err := b.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	b.r, b.m = 0, 0
	if err := b.upload(w, r); err != nil {
		return err
	}
	if err := b.stream.Synchronize(); err != nil {
		return b.fail("copy block", err)
	}
	b.r = r
	return nil
}

// tn queues H (m x r) = A_m^T W for A (n x lda, its first m columns):
// cuBLAS's Dgemm, or basis_tn over the chunks and basis_reduce.
func (b *gpuBasis) tn(a cu.DevicePtr, lda, m, r int) error {
	if b.handle != 0 {
		return b.g.blas.dgemmTN(b.handle, uintptr(a), uintptr(b.w), uintptr(b.h), b.n, lda, m, r)
	}
	ld, r64, n64, m64 := int64(lda), int64(r), int64(b.n), int64(m)
	if err := b.g.basis.tn.Launch(b.chunks, (m+basisTile-1)/basisTile, (r+basisTile-1)/basisTile, basisThreads, 1, 1, 0, b.stream, []unsafe.Pointer{
		unsafe.Pointer(&a), unsafe.Pointer(&ld), unsafe.Pointer(&b.w),
		unsafe.Pointer(&r64), unsafe.Pointer(&n64), unsafe.Pointer(&m64), unsafe.Pointer(&b.part)}); err != nil {
		return err
	}
	chunks, count := int64(b.chunks), int64(m*r)
	return b.g.basis.reduce.Launch(int(min((count+basisThreads-1)/basisThreads, 4096)), 1, 1, basisThreads, 1, 1, 0, b.stream, []unsafe.Pointer{
		unsafe.Pointer(&b.part), unsafe.Pointer(&chunks), unsafe.Pointer(&count), unsafe.Pointer(&b.h)})
}

// nn queues out (n x r) = out - A_m H, or A_m H when set, for A (n x lda):
// cuBLAS's Dgemm, or basis_nn.
func (b *gpuBasis) nn(a cu.DevicePtr, lda, m, r int, out cu.DevicePtr, set bool) error {
	if b.handle != 0 {
		return b.g.blas.dgemmNN(b.handle, uintptr(a), uintptr(b.h), uintptr(out), b.n, lda, m, r, set)
	}
	ld, r64, n64, m64, s64 := int64(lda), int64(r), int64(b.n), int64(m), int64(0)
	if set {
		s64 = 1
	}
	return b.g.basis.nn.Launch((b.n+basisNNRows-1)/basisNNRows, (r+basisTile-1)/basisTile, 1, basisThreads, 1, 1, 0, b.stream, []unsafe.Pointer{
		unsafe.Pointer(&a), unsafe.Pointer(&ld), unsafe.Pointer(&b.h),
		unsafe.Pointer(&r64), unsafe.Pointer(&n64), unsafe.Pointer(&m64), unsafe.Pointer(&out), unsafe.Pointer(&s64)})
}

// download copies len(dst) values from src to dst and waits for the stream.
func (b *gpuBasis) download(dst []float64, src cu.DevicePtr, what string) error {
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), src, int64(len(dst))*8, b.stream); err != nil {
		return b.fail("copy "+what, err)
	}
	if err := b.stream.Synchronize(); err != nil {
		return b.fail(what, err)
	}
	return nil
}

// Coeffs implements BasisBuffers.
func (b *gpuBasis) Coeffs(m int, h []float64) error {
	r := b.r
	if r == 0 || m <= 0 || m > b.ld || len(h) != m*r {
		return fmt.Errorf("cuda: %d coefficients of %d columns off a block of %d (set: %v)", len(h), m, r, r > 0)
	}
	unbind, err := b.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	b.m = 0
	if err := b.tn(b.q, b.ld, m, r); err != nil {
		return b.fail("Q^T W", err)
	}
	if err := b.download(h, b.h, "Q^T W"); err != nil {
		return err
	}
	b.m = m
	return nil
}

// Subtract implements BasisBuffers.
func (b *gpuBasis) Subtract(m int) error {
	r := b.r
	if r == 0 || m <= 0 || m != b.m {
		return fmt.Errorf("cuda: subtract %d columns with coefficients of %d (block set: %v)", m, b.m, r > 0)
	}
	unbind, err := b.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := b.nn(b.q, b.ld, m, r, b.w, false); err != nil {
		return b.fail("W - Q H", err)
	}
	return nil
}

// BlockGram implements BasisBuffers.
func (b *gpuBasis) BlockGram(g []float64) error {
	r := b.r
	if r == 0 || len(g) != r*r {
		return fmt.Errorf("cuda: %d values for the Gram matrix of a block of %d columns (set: %v)", len(g), r, r > 0)
	}
	unbind, err := b.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	b.m = 0
	if err := b.tn(b.w, r, r, r); err != nil {
		return b.fail("W^T W", err)
	}
	return b.download(g, b.h, "W^T W")
}

// BlockTimes implements BasisBuffers.
func (b *gpuBasis) BlockTimes(u []float64, k int, y []float64) error {
	r := b.r
	if r == 0 || k <= 0 || k > r || len(u) != r*k || len(y) != b.n*k {
		return fmt.Errorf("cuda: combine a block of %d columns by %d values into %d of %d columns", r, len(u), len(y), k)
	}
	unbind, err := b.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	b.m = 0
	if err := cu.MemcpyHtoDAsync(b.h, unsafe.Pointer(&u[0]), int64(len(u))*8, b.stream); err != nil {
		return b.fail("copy U", err)
	}
	if err := b.nn(b.w, r, r, k, b.y, true); err != nil {
		return b.fail("W U", err)
	}
	return b.download(y, b.y, "W U")
}

// TakeBlock implements BasisBuffers; it waits for Subtract.
func (b *gpuBasis) TakeBlock(w []float64) error {
	if b.r == 0 || len(w) != b.n*b.r {
		return fmt.Errorf("cuda: take %d values of a block of %d x %d", len(w), b.n, b.r)
	}
	unbind, err := b.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return b.download(w, b.w, "W - Q H")
}
