//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// gramTileGPU is the GPU's kernel tile edge: a 4096 x 4096 float32 tile
// is 64 MiB, and its formation 2 x 4096^2 x (dv + dt) flops (73 GFLOP at
// 1152 + 1024), milliseconds on a Hopper, so launches cost little.
const gramTileGPU = 4096

// gramKernels are the joint kernel's own kernels in kernels.cu.
type gramKernels struct {
	nn, hadamard, add64 cu.Function
}

// kernelMargin is device memory left free beside the workers' buffers for
// the driver, cuBLAS's workspaces and other users of the primary context.
const kernelMargin = 1 << 30

var _ GramDevice = (*GPU)(nil)

// GramTile implements GramDevice.
func (g *GPU) GramTile() int { return gramTileGPU }

// gramWorkerBytes is what one gram worker allocates for n items and
// blocks of maxCols columns.
func gramWorkerBytes(n, maxCols int) int64 {
	e := int64(gramTileGPU)
	return 2*e*e*4 + int64(n)*int64(maxCols)*4 + e*int64(maxCols)*12
}

// KernelMemory implements GramDevice: cuMemGetInfo's free memory less the
// workers' buffers, the default estimate's block Lanczos basis (32 probes
// x 16 steps: 292 MB at n = 60,000, which NewKrylovBasis then finds free)
// and kernelMargin.
func (g *GPU) KernelMemory(n, workers, maxCols int) (int64, error) {
	unbind, err := g.bind()
	if err != nil {
		return 0, err
	}
	defer unbind()
	free, _, err := cu.MemInfo()
	if err != nil {
		return 0, fmt.Errorf("cuMemGetInfo: %w", err)
	}
	return max(0, free-int64(workers)*gramWorkerBytes(n, maxCols)-basisBytes(n, min(n, 512), 32)-kernelMargin), nil
}

// A gpuPanel is a Panel of this backend.
type gpuPanel struct{ deviceMatrix }

// AllocPanel implements GramDevice with one cuMemAlloc.
func (g *GPU) AllocPanel(rows, cols int) (Panel, error) {
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("cuda: panel %d x %d", rows, cols)
	}
	unbind, err := g.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	ptr, err := memAlloc(int64(rows) * int64(cols) * 4)
	if err != nil {
		return nil, err
	}
	return &gpuPanel{deviceMatrix{g: g, ptr: ptr, rows: rows, cols: cols}}, nil
}

type gpuGramWorker struct {
	g          *GPU
	stream     cu.Stream
	handle     uintptr // cuBLAS handle in FP32 math; 0 without cuBLAS
	n, maxCols int
	cols       int
	scratch    *gpuPanel
	tt         cu.DevicePtr // the text Gram tile
	x          cu.DevicePtr // the block X, n x maxCols
	tmp        cu.DevicePtr // one tile's product, float32
	acc        cu.DevicePtr // the row panel's product, float64
}

// NewGramWorker implements GramDevice: a stream, a cuBLAS handle in its
// default (FP32) math mode whatever the device's join precision, and the
// tile, block and accumulator buffers. On error everything allocated so
// far is freed.
func (g *GPU) NewGramWorker(n, maxCols int) (_ GramWorker, err error) {
	if n <= 0 || maxCols <= 0 {
		return nil, fmt.Errorf("cuda: gram worker for %d x %d blocks", n, maxCols)
	}
	unbind, err := g.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	e := int64(gramTileGPU)
	w := &gpuGramWorker{g: g, n: n, maxCols: maxCols, scratch: &gpuPanel{deviceMatrix{g: g, rows: gramTileGPU, cols: gramTileGPU}}}
	defer func() {
		if err != nil {
			err = errors.Join(err, w.free())
		}
	}()
	if err = g.openStream(&w.stream, &w.handle, cublasDefaultMath); err != nil {
		return nil, err
	}
	if err = allocBufs(
		devBuf{P: &w.scratch.ptr, Bytes: e * e * 4},
		devBuf{P: &w.tt, Bytes: e * e * 4},
		devBuf{P: &w.x, Bytes: int64(n) * int64(maxCols) * 4},
		devBuf{P: &w.tmp, Bytes: e * int64(maxCols) * 4},
		devBuf{P: &w.acc, Bytes: e * int64(maxCols) * 8},
	); err != nil {
		return nil, err
	}
	if err = cu.MemsetD32Async(w.acc, 0, e*int64(maxCols)*2, w.stream); err != nil {
		return nil, fmt.Errorf("clear accumulator: %w", err)
	}
	return w, nil
}

func (w *gpuGramWorker) free() error {
	errs := freeBufs(&w.scratch.ptr, &w.tt, &w.x, &w.tmp, &w.acc)
	return errors.Join(append(errs, w.g.closeStream(&w.stream, &w.handle))...)
}

// Close implements GramWorker.
func (w *gpuGramWorker) Close() error {
	unbind, err := w.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := w.stream.Synchronize(); err != nil {
		return errors.Join(fmt.Errorf("synchronize: %w", err), w.free())
	}
	return w.free()
}

func (w *gpuGramWorker) Scratch() Panel { return w.scratch }

func (w *gpuGramWorker) fail(what string, err error) error {
	return fmt.Errorf("cuda:%d: %s: %w", w.g.ordinal, what, err)
}

// SetBlock implements GramWorker.
func (w *gpuGramWorker) SetBlock(x []float32, cols int) error {
	if cols <= 0 || cols > w.maxCols || len(x) != w.n*cols {
		return fmt.Errorf("cuda: block of %d values with %d columns, want %d x 1..%d", len(x), cols, w.n, w.maxCols)
	}
	unbind, err := w.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := cu.MemcpyHtoDAsync(w.x, unsafe.Pointer(&x[0]), int64(len(x))*4, w.stream); err != nil {
		return w.fail("copy block", err)
	}
	if err := w.stream.Synchronize(); err != nil {
		return w.fail("copy block", err)
	}
	w.cols = cols
	return nil
}

// gemmNT queues C (rows x cols, ldc) = A (rows x d) . B (cols x d)^T.
func (w *gpuGramWorker) gemmNT(a, b, c cu.DevicePtr, rows, cols, d, ldc int) error {
	if w.handle != 0 {
		return w.g.blas.sgemmNT(w.handle, uintptr(a), uintptr(b), uintptr(c), rows, cols, d, ldc)
	}
	r, cc, dd, l := int64(rows), int64(cols), int64(d), int64(ldc)
	k := tileGEMM(FP32)
	gx, gy := k.grid(rows, cols)
	return w.g.gemm.Launch(gx, gy, 1, k.threads, 1, 1, k.sharedBytes, w.stream, []unsafe.Pointer{
		unsafe.Pointer(&a), unsafe.Pointer(&b), unsafe.Pointer(&c),
		unsafe.Pointer(&r), unsafe.Pointer(&cc), unsafe.Pointer(&dd), unsafe.Pointer(&l)})
}

// Gram implements GramWorker: one GEMM into the panel, and for the joint
// kernel a second into tt and their entrywise product.
func (w *gpuGramWorker) Gram(v, t Resident, r0, rows, c0, cols int, dst Panel, at int) error {
	p := dst.(*gpuPanel)
	if rows <= 0 || rows > p.rows || rows > gramTileGPU || cols <= 0 || cols > gramTileGPU || at < 0 || at+cols > p.cols {
		return fmt.Errorf("cuda: gram tile %d x %d at column %d of a %d x %d panel", rows, cols, at, p.rows, p.cols)
	}
	unbind, err := w.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	rv := v.(*gpuResident)
	out := p.ptr + cu.DevicePtr(at*4)
	dv := rv.cols
	if err := w.gemmNT(rv.ptr+cu.DevicePtr(r0*dv*4), rv.ptr+cu.DevicePtr(c0*dv*4), out, rows, cols, dv, p.cols); err != nil {
		return w.fail("video Gram tile", err)
	}
	if t == nil {
		return nil
	}
	rt := t.(*gpuResident)
	dt := rt.cols
	if err := w.gemmNT(rt.ptr+cu.DevicePtr(r0*dt*4), rt.ptr+cu.DevicePtr(c0*dt*4), w.tt, rows, cols, dt, cols); err != nil {
		return w.fail("text Gram tile", err)
	}
	r, cc, ldc, lds := int64(rows), int64(cols), int64(p.cols), int64(cols)
	if err := w.g.gram.hadamard.Launch(min((cols+255)/256, 16), rows, 1, 256, 1, 1, 0, w.stream, []unsafe.Pointer{
		unsafe.Pointer(&out), unsafe.Pointer(&w.tt), unsafe.Pointer(&r), unsafe.Pointer(&cc),
		unsafe.Pointer(&ldc), unsafe.Pointer(&lds)}); err != nil {
		return w.fail("hadamard", err)
	}
	return nil
}

// MulAdd implements GramWorker: the tile's product into tmp (cuBLAS or
// sgemm_nn), then add_f64 into the accumulator.
func (w *gpuGramWorker) MulAdd(src Panel, rows, at, wd, x0 int) error {
	p := src.(*gpuPanel)
	if w.cols == 0 {
		return errors.New("cuda: MulAdd before SetBlock")
	}
	if rows <= 0 || rows > p.rows || rows > gramTileGPU || at < 0 || wd <= 0 || at+wd > p.cols || x0 < 0 || x0+wd > w.n {
		return fmt.Errorf("cuda: product of %d x %d at column %d of a %d x %d panel with rows %d.. of the block", rows, wd, at, p.rows, p.cols, x0)
	}
	unbind, err := w.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	c := w.cols
	a := p.ptr + cu.DevicePtr(at*4)
	b := w.x + cu.DevicePtr(x0*c*4)
	if w.handle != 0 {
		err = w.g.blas.sgemmNN(w.handle, uintptr(a), uintptr(b), uintptr(w.tmp), rows, c, wd, p.cols, c, c)
	} else {
		r, cc, k, lda, ldb, ldc := int64(rows), int64(c), int64(wd), int64(p.cols), int64(c), int64(c)
		err = w.g.gram.nn.Launch((c+63)/64, (rows+63)/64, 1, 256, 1, 1, 0, w.stream, []unsafe.Pointer{
			unsafe.Pointer(&a), unsafe.Pointer(&b), unsafe.Pointer(&w.tmp),
			unsafe.Pointer(&r), unsafe.Pointer(&cc), unsafe.Pointer(&k),
			unsafe.Pointer(&lda), unsafe.Pointer(&ldb), unsafe.Pointer(&ldc)})
	}
	if err != nil {
		return w.fail("kernel tile product", err)
	}
	n := int64(rows * c)
	if err := w.g.gram.add64.Launch(int(min((n+255)/256, 4096)), 1, 1, 256, 1, 1, 0, w.stream, []unsafe.Pointer{
		unsafe.Pointer(&w.acc), unsafe.Pointer(&w.tmp), unsafe.Pointer(&n)}); err != nil {
		return w.fail("add_f64", err)
	}
	return nil
}

// Take implements GramWorker.
func (w *gpuGramWorker) Take(y []float64, rows int) error {
	n := rows * w.cols
	if len(y) != n || rows > gramTileGPU || n == 0 {
		return fmt.Errorf("cuda: take %d values of %d rows x %d columns", len(y), rows, w.cols)
	}
	unbind, err := w.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&y[0]), w.acc, int64(n)*8, w.stream); err != nil {
		return w.fail("copy product", err)
	}
	if err := cu.MemsetD32Async(w.acc, 0, int64(n)*2, w.stream); err != nil {
		return w.fail("clear accumulator", err)
	}
	if err := w.stream.Synchronize(); err != nil {
		return w.fail("panel product", err)
	}
	return nil
}
