//go:build cuda

package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/vidscreen/vidscreen/gpu/cudactx"
	"github.com/vidscreen/vidscreen/kernels"
)

// kernelsPTX is kernels.cu compiled by `make ptx` for compute_80; the
// driver JIT-compiles it for the chip it runs on (sm_80, sm_90, later).
//
//go:embed kernels.ptx
var kernelsPTX string

// GPU tile shape: 4096 x 16384 float32 is 256 MiB of scratch per worker and
// 137 GFLOP per tile at d = 1024, milliseconds on a Hopper, so the launches
// and the copies of candidates and floors between tiles cost little.
const (
	gpuTileRows = 4096
	gpuTileCols = 16384
	// Candidates a worker can take back from one tile before it grows its
	// buffer and extracts again (12 bytes each).
	initialCandidates = 1 << 20
)

// OpenOptions adjust Open. The zero value loads the first of
// DefaultCUBLAS found and computes in FP32.
type OpenOptions struct {
	// CUBLAS lists the cuBLAS libraries to try (sonames or paths); nil
	// means DefaultCUBLAS. NoCUBLAS skips it and uses the package's own
	// GEMM kernel.
	CUBLAS   []string
	NoCUBLAS bool
	// Precision of the join and top-k tile products: with cuBLAS, its
	// default math (FP32), its TF32 tensor-op math mode (TF32) or GemmEx
	// in CUBLAS_COMPUTE_32F_FAST_16BF (BF16); without, the own kernel for
	// it (tileGEMM: sgemm_nt, gemm_tf32_nt, gemm_bf16_nt).
	Precision Precision
}

// GPU is a Device on one CUDA device: its primary context (the one ONNX
// Runtime and FFmpeg use too), the module of kernels.cu, and cuBLAS when a
// library loads. Workers have a stream and scratch each. Close releases
// the context; memory is allocated with cuMemAlloc (never managed).
type GPU struct {
	ordinal int
	name    string
	c       *cudactx.Context
	mod     cu.Module
	gemm    cu.Function // sgemm_nt, for the Gram tiles (always fp32)
	tile    cu.Function // the join's own tile GEMM in prec (tileK)
	tileK   gemmKernel
	kth     cu.Function
	extract cu.Function
	gram    gramKernels  // gram_cuda.go
	basis   basisKernels // basis_cuda.go: basis.ptx's module and kernels
	blas    *cublas
	blasMsg string // why cuBLAS is not used, when it is not
	prec    Precision
}

// Open opens CUDA device ordinal. The error says what failed (no such
// device, context, module JIT); callers fall back to kernels.CPU.
//
// The binary links libcuda.so.1, so it needs the driver's library to
// start; where the driver answers cuInit with an error (no GPU, a stub
// library) the program still starts (see gpu/cudactx's cuinit_cuda.go) and
// Open returns that error.
func Open(ordinal int, opt OpenOptions) (g *GPU, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := cudactx.Retain(ordinal)
	if err != nil {
		return nil, err
	}
	g = &GPU{ordinal: ordinal, name: c.DeviceName(), c: c, prec: opt.Precision, tileK: tileGEMM(opt.Precision)}
	defer func() {
		if err != nil {
			err = errors.Join(err, g.Close())
			g = nil
		}
	}()
	if err = c.SetCurrent(); err != nil {
		return nil, fmt.Errorf("cuda:%d: set context: %w", ordinal, err)
	}
	if g.mod, err = cu.LoadData(kernelsPTX); err != nil {
		return nil, fmt.Errorf("cuda:%d: load kernels (PTX JIT): %w", ordinal, err)
	}
	fns := []*cu.Function{&g.gemm, &g.tile, &g.kth, &g.extract, &g.gram.nn, &g.gram.hadamard, &g.gram.add64}
	names := moduleEntries(g.prec)
	if len(names) != len(fns) {
		return nil, fmt.Errorf("cuda:%d: %d kernel entries for %d functions (gemmlaunch.go and Open disagree)", ordinal, len(names), len(fns))
	}
	for i, name := range names {
		if *fns[i], err = g.mod.Function(name); err != nil {
			return nil, fmt.Errorf("cuda:%d: kernel %s: %w", ordinal, name, err)
		}
	}
	if err = g.basis.load(); err != nil {
		return nil, fmt.Errorf("cuda:%d: %w", ordinal, err)
	}
	if opt.NoCUBLAS {
		g.blasMsg = "cuBLAS not asked for"
	} else {
		paths := opt.CUBLAS
		if paths == nil {
			paths = DefaultCUBLAS
		}
		if g.blas, err = loadCUBLAS(paths); err != nil {
			g.blasMsg = err.Error()
			err = nil
		}
	}
	return g, nil
}

// Name implements Device: "cuda:0 NVIDIA H200 (cuBLAS libcublas.so.13, fp32)".
func (g *GPU) Name() string {
	gemm := "own GEMM kernel " + g.tileK.name
	if g.blas != nil {
		gemm = "cuBLAS " + g.blas.path
	}
	return fmt.Sprintf("cuda:%d %s (%s, %s)", g.ordinal, g.name, gemm, g.prec)
}

// CUBLASMissing says why cuBLAS is not used; empty when it is.
func (g *GPU) CUBLASMissing() string {
	if g.blas != nil {
		return ""
	}
	return g.blasMsg
}

// Precision implements Device.
func (g *GPU) Precision() Precision { return g.prec }

// TileShape implements Device.
func (g *GPU) TileShape() (rows, cols int) { return gpuTileRows, gpuTileCols }

// Close unloads the module and releases the primary context.
func (g *GPU) Close() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var errs []error
	if g.basis.mod != (cu.Module{}) {
		if err := g.c.SetCurrent(); err != nil {
			errs = append(errs, err)
		} else if err := g.basis.mod.Unload(); err != nil {
			errs = append(errs, fmt.Errorf("unload basis kernels: %w", err))
		}
		g.basis.mod = cu.Module{}
	}
	if g.mod != (cu.Module{}) {
		if err := g.c.SetCurrent(); err != nil {
			errs = append(errs, err)
		} else if err := g.mod.Unload(); err != nil {
			errs = append(errs, fmt.Errorf("unload module: %w", err))
		}
		g.mod = cu.Module{}
	}
	if err := g.c.Release(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("cuda:%d: close: %w", g.ordinal, errors.Join(errs...))
	}
	return nil
}

// bind locks the calling goroutine to its thread and makes the device's
// context current there; the returned func undoes the lock.
func (g *GPU) bind() (func(), error) { return g.c.Bind() }

// Context is the device's primary context, for other code that runs on
// the same device (models/imageprep/gpuprep's preprocessing, the device
// check's uploads); it stays valid until Close.
func (g *GPU) Context() *cudactx.Context { return g.c }

// A gpuResident is a Resident of this backend.
type gpuResident struct{ deviceMatrix }

// Upload implements Device: one cuMemAlloc and a synchronous copy.
func (g *GPU) Upload(m *kernels.Matrix) (Resident, error) {
	unbind, err := g.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	n := int64(len(m.Data)) * 4
	if n == 0 {
		n = 4 // cuMemAlloc refuses zero bytes
	}
	ptr, err := memAlloc(n)
	if err != nil {
		return nil, err
	}
	if len(m.Data) > 0 {
		if err := cu.MemcpyHtoD(ptr, unsafe.Pointer(&m.Data[0]), int64(len(m.Data))*4); err != nil {
			return nil, errors.Join(fmt.Errorf("copy to device: %w", err), cu.MemFree(ptr))
		}
	}
	return &gpuResident{deviceMatrix{g: g, ptr: ptr, rows: m.Rows, cols: m.Cols}}, nil
}

type gpuWorker struct {
	g       *GPU
	stream  cu.Stream
	handle  uintptr // cuBLAS handle; 0 without cuBLAS
	tile    cu.DevicePtr
	floors  cu.DevicePtr
	kthBuf  cu.DevicePtr
	count   cu.DevicePtr
	out     cu.DevicePtr
	outCap  int
	host    []uint32 // candidates copied back
	t       Tile
	hasTile bool
}

// NewWorker implements Device: a non-blocking stream, a cuBLAS handle on
// it, and the tile, floor and candidate buffers. On error everything
// allocated so far is freed.
func (g *GPU) NewWorker() (_ Worker, err error) {
	unbind, err := g.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	w := &gpuWorker{g: g}
	defer func() {
		if err != nil {
			err = errors.Join(err, w.free())
		}
	}()
	mode := int32(cublasDefaultMath)
	if g.prec == TF32 {
		mode = cublasTF32TensorOpMath
	}
	if err = g.openStream(&w.stream, &w.handle, mode); err != nil {
		return nil, err
	}
	if err = allocBufs(
		devBuf{P: &w.tile, Bytes: gpuTileRows * gpuTileCols * 4},
		devBuf{P: &w.floors, Bytes: gpuTileRows * 4},
		devBuf{P: &w.kthBuf, Bytes: gpuTileRows * 4},
		devBuf{P: &w.count, Bytes: 4},
		devBuf{P: &w.out, Bytes: initialCandidates * 12},
	); err != nil {
		return nil, err
	}
	w.outCap = initialCandidates
	return w, nil
}

func (w *gpuWorker) free() error {
	errs := freeBufs(&w.tile, &w.floors, &w.kthBuf, &w.count, &w.out)
	return errors.Join(append(errs, w.g.closeStream(&w.stream, &w.handle))...)
}

// Close implements Worker.
func (w *gpuWorker) Close() error {
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

func (w *gpuWorker) launch(fn cu.Function, gx, gy, bx int, args ...unsafe.Pointer) error {
	return fn.Launch(gx, gy, 1, bx, 1, 1, 0, w.stream, args)
}

// Product implements Worker: cuBLAS (Sgemm, or GemmEx for BF16) or the
// own kernel for the device's precision, queued on the worker's stream
// (RowKth and Extract wait for it).
func (w *gpuWorker) Product(t Tile) error {
	if t.Rows <= 0 || t.Cols <= 0 || t.Rows > gpuTileRows || t.Cols > gpuTileCols {
		return fmt.Errorf("cuda: tile %d x %d outside 1..%d x 1..%d", t.Rows, t.Cols, gpuTileRows, gpuTileCols)
	}
	a, b := t.A.(*gpuResident), t.B.(*gpuResident)
	d := a.cols
	unbind, err := w.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	aPtr := a.ptr + cu.DevicePtr(t.R0*d*4)
	bPtr := b.ptr + cu.DevicePtr(t.C0*d*4)
	switch {
	case w.handle != 0 && w.g.prec == BF16:
		err = w.g.blas.gemmBF16NT(w.handle, uintptr(aPtr), uintptr(bPtr), uintptr(w.tile), t.Rows, t.Cols, d, t.Cols)
	case w.handle != 0:
		err = w.g.blas.sgemmNT(w.handle, uintptr(aPtr), uintptr(bPtr), uintptr(w.tile), t.Rows, t.Cols, d, t.Cols)
	default:
		k := w.g.tileK
		gx, gy := k.grid(t.Rows, t.Cols)
		rows, cols, dd, ldc := int64(t.Rows), int64(t.Cols), int64(d), int64(t.Cols)
		err = w.g.tile.Launch(gx, gy, 1, k.threads, 1, 1, k.sharedBytes, w.stream, []unsafe.Pointer{
			unsafe.Pointer(&aPtr), unsafe.Pointer(&bPtr), unsafe.Pointer(&w.tile),
			unsafe.Pointer(&rows), unsafe.Pointer(&cols), unsafe.Pointer(&dd), unsafe.Pointer(&ldc)})
	}
	if err != nil {
		w.hasTile = false
		return fmt.Errorf("cuda:%d: tile product: %w", w.g.ordinal, err)
	}
	w.t, w.hasTile = t, true
	return nil
}

// RowKth implements Worker with the row_kth kernel.
func (w *gpuWorker) RowKth(k int) ([]float32, error) {
	if !w.hasTile {
		return nil, errors.New("cuda: RowKth before Product")
	}
	unbind, err := w.g.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	t := w.t
	rows, cols, ldc := int64(t.Rows), int64(t.Cols), int64(t.Cols)
	r0, c0, mask, kk := int64(t.R0), int64(t.C0), int64(t.Mask), int64(k)
	if err := w.launch(w.g.kth, t.Rows, 1, 256,
		unsafe.Pointer(&w.tile), unsafe.Pointer(&rows), unsafe.Pointer(&cols), unsafe.Pointer(&ldc),
		unsafe.Pointer(&r0), unsafe.Pointer(&c0), unsafe.Pointer(&mask), unsafe.Pointer(&kk),
		unsafe.Pointer(&w.kthBuf)); err != nil {
		return nil, fmt.Errorf("cuda:%d: row_kth: %w", w.g.ordinal, err)
	}
	out := make([]float32, t.Rows)
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&out[0]), w.kthBuf, int64(t.Rows)*4, w.stream); err != nil {
		return nil, fmt.Errorf("cuda:%d: copy k-th values: %w", w.g.ordinal, err)
	}
	if err := w.stream.Synchronize(); err != nil {
		return nil, fmt.Errorf("cuda:%d: row_kth: %w", w.g.ordinal, err)
	}
	return out, nil
}

// Extract implements Worker with the extract kernel; when the tile has
// more candidates than the buffer holds, the buffer grows to fit and the
// same tile is extracted again.
func (w *gpuWorker) Extract(floors []float32, dst []Candidate) ([]Candidate, error) {
	if !w.hasTile {
		return nil, errors.New("cuda: Extract before Product")
	}
	t := w.t
	if len(floors) != t.Rows {
		return nil, fmt.Errorf("cuda: %d floors for %d tile rows", len(floors), t.Rows)
	}
	unbind, err := w.g.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	if err := cu.MemcpyHtoDAsync(w.floors, unsafe.Pointer(&floors[0]), int64(len(floors))*4, w.stream); err != nil {
		return nil, fmt.Errorf("cuda:%d: copy floors: %w", w.g.ordinal, err)
	}
	for {
		var n uint32
		if err := w.runExtract(&n); err != nil {
			return nil, err
		}
		if int(n) > w.outCap {
			if err := w.grow(int(n)); err != nil {
				return nil, err
			}
			continue
		}
		if n == 0 {
			return dst, nil
		}
		if cap(w.host) < 3*int(n) {
			w.host = make([]uint32, 3*int(n))
		}
		h := w.host[:3*int(n)]
		if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&h[0]), w.out, int64(len(h))*4, w.stream); err != nil {
			return nil, fmt.Errorf("cuda:%d: copy candidates: %w", w.g.ordinal, err)
		}
		if err := w.stream.Synchronize(); err != nil {
			return nil, fmt.Errorf("cuda:%d: copy candidates: %w", w.g.ordinal, err)
		}
		for i := 0; i < len(h); i += 3 {
			dst = append(dst, Candidate{Row: int32(h[i]), Col: int32(h[i+1]), Value: math.Float32frombits(h[i+2])})
		}
		return dst, nil
	}
}

// runExtract zeroes the counter, runs extract over the tile and returns
// the number of entries found (written up to outCap).
func (w *gpuWorker) runExtract(n *uint32) error {
	t := w.t
	if err := cu.MemsetD32Async(w.count, 0, 1, w.stream); err != nil {
		return fmt.Errorf("cuda:%d: clear count: %w", w.g.ordinal, err)
	}
	rows, cols, ldc := int64(t.Rows), int64(t.Cols), int64(t.Cols)
	r0, c0, mask, capacity := int64(t.R0), int64(t.C0), int64(t.Mask), int64(w.outCap)
	// Blocks of 256 threads sweep a row's columns: a few blocks per row
	// keep every SM busy without each thread looping long.
	gx := min((t.Cols+255)/256, 16)
	if err := w.launch(w.g.extract, gx, t.Rows, 256,
		unsafe.Pointer(&w.tile), unsafe.Pointer(&rows), unsafe.Pointer(&cols), unsafe.Pointer(&ldc),
		unsafe.Pointer(&r0), unsafe.Pointer(&c0), unsafe.Pointer(&mask), unsafe.Pointer(&w.floors),
		unsafe.Pointer(&w.out), unsafe.Pointer(&capacity), unsafe.Pointer(&w.count)); err != nil {
		return fmt.Errorf("cuda:%d: extract: %w", w.g.ordinal, err)
	}
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(n), w.count, 4, w.stream); err != nil {
		return fmt.Errorf("cuda:%d: copy count: %w", w.g.ordinal, err)
	}
	if err := w.stream.Synchronize(); err != nil {
		return fmt.Errorf("cuda:%d: extract: %w", w.g.ordinal, err)
	}
	return nil
}

// grow replaces the candidate buffer with one of at least n entries.
func (w *gpuWorker) grow(n int) error {
	if err := cu.MemFree(w.out); err != nil {
		return fmt.Errorf("cuda:%d: free candidates: %w", w.g.ordinal, err)
	}
	w.out, w.outCap = 0, 0
	c := max(n, 2*initialCandidates)
	p, err := cu.MemAlloc(int64(c) * 12)
	if err != nil {
		return fmt.Errorf("cuda:%d: cuMemAlloc %d candidates: %w", w.g.ordinal, c, err)
	}
	w.out, w.outCap = p, c
	return nil
}
