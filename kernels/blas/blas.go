// Package blas is the thin edge between the kernels and a BLAS/LAPACK
// library: OpenBLAS and LAPACKE through cgo when cgo is on (the default
// build), gonum's pure-Go implementations otherwise or under the
// noopenblas build tag (a cgo binary that must link nothing but the C
// library and the CUDA driver: the device check's).
//
// Products take gonum's blas.Float32Level3/Float64Level3 signatures (row
// major), so the kernels can swap this Implementation for gonum's own
// (gonum.org/v1/gonum/blas/gonum) in tests and on machines without OpenBLAS.
// Every call runs on the calling thread: callers parallelise over tiles.
package blas

import (
	"fmt"

	gblas "gonum.org/v1/gonum/blas"
)

// Implementation serves Sgemm and Dgemm with gonum's signatures.
type Implementation struct{}

// Gemm32 is the one product the kernels need; gonum's pure-Go
// implementation and this package's both satisfy it.
type Gemm32 interface {
	Sgemm(tA, tB gblas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

// Gemm64 is Gemm32 in float64.
type Gemm64 interface {
	Dgemm(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
}

func checkGemm(tA, tB gblas.Transpose, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	rowsA, colsA := m, k
	if tA != gblas.NoTrans {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if tB != gblas.NoTrans {
		rowsB, colsB = n, k
	}
	bad := func(what string, rows, cols, ld, l int) {
		if cols > ld || (rows > 0 && cols > 0 && (rows-1)*ld+cols > l) {
			panic(fmt.Sprintf("blas: gemm: %s is %dx%d with stride %d but has %d elements", what, rows, cols, ld, l))
		}
	}
	bad("A", rowsA, colsA, lda, la)
	bad("B", rowsB, colsB, ldb, lb)
	bad("C", m, n, ldc, lc)
}
