//go:build cgo && !noopenblas

package blas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
)

func randomKernel(n int) []float64 {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	const d = 64
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	k := make([]float64, n*n)
	Implementation{}.Dgemm(gblas.NoTrans, gblas.Trans, n, n, d, 1/float64(n*d), x, d, x, d, 0, k, n)
	return k
}

func TestTwoStageAgrees(t *testing.T) {
	k := randomKernel(300)
	one, err := symEigenvalues(slices.Clone(k), 300, false)
	if err != nil {
		t.Fatal(err)
	}
	two, err := symEigenvalues(slices.Clone(k), 300, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		if math.Abs(one[i]-two[i]) > 1e-13 {
			t.Fatalf("eigenvalue %d: %v one-stage, %v two-stage", i, one[i], two[i])
		}
	}
}

func BenchmarkSymEigenvalues(b *testing.B) {
	for _, n := range []int{200, 500, 1000, 2000} {
		k := randomKernel(n)
		for _, two := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/twostage=%v", n, two), func(b *testing.B) {
				a := make([]float64, len(k))
				for b.Loop() {
					copy(a, k)
					if _, err := symEigenvalues(a, n, two); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "solves/s")
			})
		}
	}
}
