//go:build cgo && !noopenblas

package blas

/*
#cgo LDFLAGS: -lopenblas -llapacke
#include <cblas.h>
#include <lapacke.h>
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	gblas "gonum.org/v1/gonum/blas"
)

// Name says which library serves the products.
const Name = "openblas"

// singleThreaded makes OpenBLAS run each call on the calling thread. The
// kernels parallelise over tiles themselves: that bounds the threads a call
// uses (Options.Threads) and fixes every tile's shape, so results do not
// depend on the thread count.
var singleThreaded sync.Once

func init1() {
	singleThreaded.Do(func() { C.openblas_set_num_threads(1) })
}

func trans(t gblas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == gblas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

// Sgemm computes C = alpha * op(A) * op(B) + beta * C in row-major storage,
// with gonum's blas.Float32Level3 signature.
func (Implementation) Sgemm(tA, tB gblas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	checkGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	init1()
	var pa, pb *float32
	if k > 0 {
		pa, pb = &a[0], &b[0]
	} else {
		var z float32
		pa, pb = &z, &z
	}
	C.cblas_sgemm(C.CblasRowMajor, trans(tA), trans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.float(alpha), (*C.float)(unsafe.Pointer(pa)), C.blasint(lda),
		(*C.float)(unsafe.Pointer(pb)), C.blasint(ldb),
		C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.blasint(ldc))
}

// Dgemm is Sgemm in float64.
func (Implementation) Dgemm(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	checkGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	init1()
	var pa, pb *float64
	if k > 0 {
		pa, pb = &a[0], &b[0]
	} else {
		var z float64
		pa, pb = &z, &z
	}
	C.cblas_dgemm(C.CblasRowMajor, trans(tA), trans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.double(alpha), (*C.double)(unsafe.Pointer(pa)), C.blasint(lda),
		(*C.double)(unsafe.Pointer(pb)), C.blasint(ldb),
		C.double(beta), (*C.double)(unsafe.Pointer(&c[0])), C.blasint(ldc))
}

// Dsyrk computes the upper triangle of C = alpha * A * A^T + beta * C for
// A n x k, row major (gonum's blas.Float64Level3 signature, upper and
// no-transpose only): half the work of Dgemm for a Gram matrix.
func (Implementation) Dsyrk(n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if n == 0 {
		return
	}
	checkGemm(gblas.NoTrans, gblas.Trans, n, n, k, len(a), lda, len(a), lda, len(c), ldc)
	init1()
	var pa *float64
	if k > 0 {
		pa = &a[0]
	} else {
		var z float64
		pa = &z
	}
	C.cblas_dsyrk(C.CblasRowMajor, C.CblasUpper, C.CblasNoTrans, C.blasint(n), C.blasint(k),
		C.double(alpha), (*C.double)(unsafe.Pointer(pa)), C.blasint(lda),
		C.double(beta), (*C.double)(unsafe.Pointer(&c[0])), C.blasint(ldc))
}

// SymEigenvalues returns the eigenvalues, ascending, of the symmetric n x n
// row-major matrix a (only its upper triangle is read), using LAPACKE's
// dsyevd. a is overwritten.
func SymEigenvalues(a []float64, n int) ([]float64, error) {
	// The two-stage reduction (full -> band -> tridiagonal) does most of
	// its work in level-3 BLAS, where the one-stage dsytrd streams the
	// trailing matrix through dsymv once per column: memory bound once the
	// matrix leaves the cache. BenchmarkSymEigenvalues puts the cross-over
	// near n = twoStageFrom.
	return symEigenvalues(a, n, n >= twoStageFrom)
}

// twoStageFrom is where dsyevd_2stage overtakes dsyevd on this machine
// (BenchmarkSymEigenvalues, 2 cores of an AMD EPYC, 32 MiB L3).
const twoStageFrom = 1500

func symEigenvalues(a []float64, n int, twoStage bool) ([]float64, error) {
	if len(a) < n*n {
		panic(fmt.Sprintf("blas: SymEigenvalues: len(a) = %d < %d", len(a), n*n))
	}
	w := make([]float64, n)
	if n == 0 {
		return w, nil
	}
	init1()
	pa, pw := (*C.double)(unsafe.Pointer(&a[0])), (*C.double)(unsafe.Pointer(&w[0]))
	// The upper triangle in row major is the lower one in column major:
	// asking for that spares LAPACKE a transposed copy of the matrix.
	var info C.lapack_int
	name := "LAPACKE_dsyevd"
	if twoStage {
		name += "_2stage"
		info = C.LAPACKE_dsyevd_2stage(C.LAPACK_COL_MAJOR, 'N', 'L', C.lapack_int(n), pa, C.lapack_int(n), pw)
	} else {
		info = C.LAPACKE_dsyevd(C.LAPACK_COL_MAJOR, 'N', 'L', C.lapack_int(n), pa, C.lapack_int(n), pw)
	}
	if info != 0 {
		return nil, fmt.Errorf("%s: info %d", name, int(info))
	}
	return w, nil
}

// SymEigen returns the eigenvalues (ascending) of the symmetric n x n
// row-major matrix a and overwrites a with the eigenvectors, one per column.
func SymEigen(a []float64, n int) ([]float64, error) {
	if len(a) < n*n {
		panic(fmt.Sprintf("blas: SymEigen: len(a) = %d < %d", len(a), n*n))
	}
	w := make([]float64, n)
	if n == 0 {
		return w, nil
	}
	init1()
	info := C.LAPACKE_dsyevd(C.LAPACK_ROW_MAJOR, 'V', 'U', C.lapack_int(n),
		(*C.double)(unsafe.Pointer(&a[0])), C.lapack_int(n), (*C.double)(unsafe.Pointer(&w[0])))
	if info != 0 {
		return nil, fmt.Errorf("LAPACKE_dsyevd: info %d", int(info))
	}
	return w, nil
}
