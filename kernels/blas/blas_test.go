package blas

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestGemmMatchesGonum(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct {
		tA, tB  gblas.Transpose
		m, n, k int
	}{{gblas.NoTrans, gblas.Trans, 7, 5, 3}, {gblas.Trans, gblas.NoTrans, 4, 9, 6}, {gblas.NoTrans, gblas.NoTrans, 33, 17, 65}} {
		a := make([]float64, s.m*s.k)
		b := make([]float64, s.k*s.n)
		c := make([]float64, s.m*s.n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		for i := range c {
			c[i] = rng.NormFloat64()
		}
		lda, ldb := max(1, s.k), s.n
		if s.tA != gblas.NoTrans {
			lda = max(1, s.m)
		}
		if s.tB != gblas.NoTrans {
			ldb = max(1, s.k)
		}
		want := slices.Clone(c)
		gonum.Implementation{}.Dgemm(s.tA, s.tB, s.m, s.n, s.k, 0.5, a, lda, b, ldb, 2, want, s.n)
		got := slices.Clone(c)
		Implementation{}.Dgemm(s.tA, s.tB, s.m, s.n, s.k, 0.5, a, lda, b, ldb, 2, got, s.n)
		a32, b32 := f32(a), f32(b)
		want32 := f32(c)
		gonum.Implementation{}.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 0.5, a32, lda, b32, ldb, 2, want32, s.n)
		got32 := f32(c)
		Implementation{}.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 0.5, a32, lda, b32, ldb, 2, got32, s.n)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*float64(s.k+1) || math.Abs(float64(got32[i]-want32[i])) > 1e-5*float64(s.k+1) {
				t.Fatalf("%+v: element %d: %v / %v, want %v / %v", s, i, got[i], got32[i], want[i], want32[i])
			}
		}
	}
}

func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func TestSymEigen(t *testing.T) {
	t.Parallel()
	// A = Q diag(l) Q^T for a random orthogonal Q: the solvers must return l.
	const n = 60
	rng := rand.New(rand.NewPCG(3, 4))
	l := make([]float64, n)
	for i := range l {
		l[i] = float64(i) - 20.5
	}
	q := make([]float64, n*n)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	// Gram-Schmidt on the columns.
	for j := 0; j < n; j++ {
		for p := 0; p < j; p++ {
			var d float64
			for i := 0; i < n; i++ {
				d += q[i*n+j] * q[i*n+p]
			}
			for i := 0; i < n; i++ {
				q[i*n+j] -= d * q[i*n+p]
			}
		}
		var s float64
		for i := 0; i < n; i++ {
			s += q[i*n+j] * q[i*n+j]
		}
		for i := 0; i < n; i++ {
			q[i*n+j] /= math.Sqrt(s)
		}
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				a[i*n+j] += q[i*n+k] * l[k] * q[j*n+k]
			}
		}
	}
	vals, err := SymEigenvalues(slices.Clone(a), n)
	if err != nil {
		t.Fatal(err)
	}
	vecs := slices.Clone(a)
	vals2, err := SymEigen(vecs, n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range l {
		if math.Abs(vals[i]-l[i]) > 1e-10 || math.Abs(vals2[i]-l[i]) > 1e-10 {
			t.Fatalf("eigenvalue %d: %v and %v, want %v", i, vals[i], vals2[i], l[i])
		}
	}
	// A v = l v for each returned column.
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			var av float64
			for j := 0; j < n; j++ {
				av += a[i*n+j] * vecs[j*n+k]
			}
			if math.Abs(av-vals2[k]*vecs[i*n+k]) > 1e-9 {
				t.Fatalf("column %d is not an eigenvector", k)
			}
		}
	}
}
