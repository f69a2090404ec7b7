//go:build !cgo || noopenblas

package blas

import (
	"fmt"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// Name says which library serves the products.
const Name = "gonum"

var pure gonum.Implementation

// Sgemm computes C = alpha * op(A) * op(B) + beta * C (gonum, pure Go).
func (Implementation) Sgemm(tA, tB gblas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	checkGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	pure.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm is Sgemm in float64.
func (Implementation) Dgemm(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	checkGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	pure.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dsyrk computes the upper triangle of C = alpha * A * A^T + beta * C.
func (Implementation) Dsyrk(n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if n == 0 {
		return
	}
	checkGemm(gblas.NoTrans, gblas.Trans, n, n, k, len(a), lda, len(a), lda, len(c), ldc)
	pure.Dsyrk(gblas.Upper, gblas.NoTrans, n, k, alpha, a, lda, beta, c, ldc)
}

// SymEigenvalues returns the eigenvalues, ascending, of the symmetric n x n
// row-major matrix a (upper triangle read). a is overwritten.
func SymEigenvalues(a []float64, n int) ([]float64, error) {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, a[:n*n]), false) {
		return nil, fmt.Errorf("gonum EigenSym: no convergence")
	}
	return es.Values(nil), nil
}

// SymEigen returns the eigenvalues (ascending) and overwrites a with the
// eigenvectors, one per column.
func SymEigen(a []float64, n int) ([]float64, error) {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, a[:n*n]), true) {
		return nil, fmt.Errorf("gonum EigenSym: no convergence")
	}
	var v mat.Dense
	es.VectorsTo(&v)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i*n+j] = v.At(i, j)
		}
	}
	return es.Values(nil), nil
}
