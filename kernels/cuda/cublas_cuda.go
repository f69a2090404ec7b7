//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/ebitengine/purego"
)

// DefaultCUBLAS lists the cuBLAS sonames tried, newest first: the library
// is loaded at run time, never linked, because the one a machine has
// follows its CUDA version (13 on a CUDA 13 machine, 11 from Debian's
// 11.8 packages) and a binary linked to one would not start where only
// another is.
var DefaultCUBLAS = []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"}

// cublas is the part of cuBLAS the tiles need, bound by dlopen as ONNX
// Runtime's CUDA provider and ollama's discover/ load theirs.
type cublas struct {
	path        string
	create      func(handle *uintptr) int32
	destroy     func(handle uintptr) int32
	setStream   func(handle uintptr, stream uintptr) int32
	setMathMode func(handle uintptr, mode int32) int32
	sgemm       func(handle uintptr, transa, transb int32, m, n, k int32, alpha *float32, a uintptr, lda int32, b uintptr, ldb int32, beta *float32, c uintptr, ldc int32) int32
	dgemm       func(handle uintptr, transa, transb int32, m, n, k int32, alpha *float64, a uintptr, lda int32, b uintptr, ldb int32, beta *float64, c uintptr, ldc int32) int32
	gemmEx      func(handle uintptr, transa, transb int32, m, n, k int32, alpha *float32, a uintptr, atype, lda int32, b uintptr, btype, ldb int32, beta *float32, c uintptr, ctype, ldc int32, compute, algo int32) int32
}

// cuBLAS enums (cublas_api.h).
const (
	cublasOpN              = 0
	cublasOpT              = 1
	cublasDefaultMath      = 0
	cublasTF32TensorOpMath = 3
	// cudaDataType_t CUDA_R_32F; cublasComputeType_t
	// CUBLAS_COMPUTE_32F_FAST_16BF (float32 matrices, inputs down-converted
	// to bfloat16 or TF32 on the tensor cores, float32 accumulation);
	// cublasGemmAlgo_t CUBLAS_GEMM_DEFAULT.
	cudaR32F               = 0
	cublasCompute32FFast16 = 75
	cublasGemmDefault      = -1
)

// loadCUBLAS opens the first of paths that loads and has every symbol;
// the error names each one tried.
func loadCUBLAS(paths []string) (*cublas, error) {
	var errs []string
	for _, p := range paths {
		c, err := openCUBLAS(p)
		if err == nil {
			return c, nil
		}
		errs = append(errs, fmt.Sprintf("%s: %v", p, err))
	}
	return nil, errors.New(strings.Join(errs, "; "))
}

func openCUBLAS(path string) (*cublas, error) {
	// dlerror is per thread: read it on the thread that failed.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	c := &cublas{path: path}
	for _, b := range []struct {
		fptr any
		name string
	}{
		{&c.create, "cublasCreate_v2"},
		{&c.destroy, "cublasDestroy_v2"},
		{&c.setStream, "cublasSetStream_v2"},
		{&c.setMathMode, "cublasSetMathMode"},
		{&c.sgemm, "cublasSgemm_v2"},
		{&c.dgemm, "cublasDgemm_v2"},
		{&c.gemmEx, "cublasGemmEx"},
	} {
		sym, err := purego.Dlsym(lib, b.name)
		if err != nil {
			purego.Dlclose(lib)
			return nil, fmt.Errorf("symbol %s: %w", b.name, err)
		}
		purego.RegisterFunc(b.fptr, sym)
	}
	return c, nil
}

func (c *cublas) check(what string, status int32) error {
	if status == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s (cublasStatus_t %d)", what, cublasStatusName(status), status)
}

// cublasStatusName spells cuBLAS's status codes (cublas_api.h).
func cublasStatusName(s int32) string {
	switch s {
	case 1:
		return "CUBLAS_STATUS_NOT_INITIALIZED"
	case 3:
		return "CUBLAS_STATUS_ALLOC_FAILED"
	case 7:
		return "CUBLAS_STATUS_INVALID_VALUE"
	case 8:
		return "CUBLAS_STATUS_ARCH_MISMATCH"
	case 11:
		return "CUBLAS_STATUS_MAPPING_ERROR"
	case 13:
		return "CUBLAS_STATUS_EXECUTION_FAILED"
	case 14:
		return "CUBLAS_STATUS_INTERNAL_ERROR"
	case 15:
		return "CUBLAS_STATUS_NOT_SUPPORTED"
	case 16:
		return "CUBLAS_STATUS_LICENSE_ERROR"
	}
	return "unknown status"
}

// sgemmNT computes, on stream's order, the row-major tile
// C (rows x cols, leading dimension ldc) = A (rows x d) . B (cols x d)^T.
// cuBLAS is column-major: the row-major C is the column-major C^T =
// B . A^T, where the column-major views of A and B are A^T and B^T.
func (c *cublas) sgemmNT(handle uintptr, a, b, out uintptr, rows, cols, d, ldc int) error {
	one, zero := float32(1), float32(0)
	st := c.sgemm(handle, cublasOpT, cublasOpN, int32(cols), int32(rows), int32(d),
		&one, b, int32(d), a, int32(d), &zero, out, int32(ldc))
	return c.check("cublasSgemm", st)
}

// sgemmNN computes, on stream's order, the row-major product
// C (rows x cols, ldc) = A (rows x k, lda) . B (k x cols, ldb): the
// column-major C^T = B^T . A^T, whose operands are B and A as they lie.
func (c *cublas) sgemmNN(handle uintptr, a, b, out uintptr, rows, cols, k, lda, ldb, ldc int) error {
	one, zero := float32(1), float32(0)
	st := c.sgemm(handle, cublasOpN, cublasOpN, int32(cols), int32(rows), int32(k),
		&one, b, int32(ldb), a, int32(lda), &zero, out, int32(ldc))
	return c.check("cublasSgemm", st)
}

// gemmBF16NT is sgemmNT with cublasGemmEx in CUBLAS_COMPUTE_32F_FAST_16BF:
// the same float32 matrices and layout, the products on the tensor cores
// from inputs cuBLAS converts on the device.
func (c *cublas) gemmBF16NT(handle uintptr, a, b, out uintptr, rows, cols, d, ldc int) error {
	one, zero := float32(1), float32(0)
	st := c.gemmEx(handle, cublasOpT, cublasOpN, int32(cols), int32(rows), int32(d),
		&one, b, cudaR32F, int32(d), a, cudaR32F, int32(d), &zero, out, cudaR32F, int32(ldc),
		cublasCompute32FFast16, cublasGemmDefault)
	return c.check("cublasGemmEx", st)
}

// dgemmTN computes, on the handle's stream, the row-major product
// H (m x r) = Q_m^T W for Q (n x ld, its first m columns: the basis, or
// the block itself for its Gram matrix) and the block W (n x r): the
// column-major H^T = W^T . Q_m, whose operands are W (r x n, leading
// dimension r) as it lies and Q (m x n, ld) transposed.
func (c *cublas) dgemmTN(handle uintptr, q, w, h uintptr, n, ld, m, r int) error {
	one, zero := 1.0, 0.0
	st := c.dgemm(handle, cublasOpN, cublasOpT, int32(r), int32(m), int32(n),
		&one, w, int32(r), q, int32(ld), &zero, h, int32(r))
	return c.check("cublasDgemm", st)
}

// dgemmNN computes, on the handle's stream, W (n x r) = W - A_m H, or
// A_m H when set, row major, for A (n x lda, its first m columns) and H
// (m x r): the column-major W^T = W^T - H^T . A_m^T, whose operands are H
// (r x m, r) and A (m x n, lda) as they lie.
func (c *cublas) dgemmNN(handle uintptr, a, h, w uintptr, n, lda, m, r int, set bool) error {
	alpha, beta := -1.0, 1.0
	if set {
		alpha, beta = 1, 0
	}
	st := c.dgemm(handle, cublasOpN, cublasOpN, int32(r), int32(n), int32(m),
		&alpha, h, int32(r), a, int32(lda), &beta, w, int32(r))
	return c.check("cublasDgemm", st)
}
