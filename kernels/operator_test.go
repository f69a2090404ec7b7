package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteApply returns diag(s) K diag(s) x from the full float64 kernel.
func bruteApply(v, t *Matrix, w []float64, x []float64, cols int) []float64 {
	n := v.Rows
	s, err := itemWeights(w, n)
	if err != nil {
		panic(err)
	}
	y := make([]float64, n*cols)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			kij := bruteDot(v.Row(i), v.Row(j))
			if t != nil {
				kij *= bruteDot(t.Row(i), t.Row(j))
			}
			kij *= s[i] * s[j]
			for c := 0; c < cols; c++ {
				y[i*cols+c] += kij * x[j*cols+c]
			}
		}
	}
	return y
}

// relDiff is |a - b| / |b| in the Frobenius norm.
func relDiff(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		s += b[i] * b[i]
	}
	return math.Sqrt(d / s)
}

// operatorFixture is what the operator tests apply: image rows v (24
// columns) and text rows tx (10), weights 1 to 4, and cols random columns
// of n rows, from seeds seed, seed+1 and seed+2.
func operatorFixture(seed uint64, n, cols int) (v, tx *Matrix, w, x []float64) {
	v = embeddingLike(seed, n, 24, 30)
	tx = embeddingLike(seed+1, n, 10, 12)
	w = make([]float64, n)
	for i := range w {
		w[i] = float64(1 + i%4)
	}
	rng := rand.New(rand.NewPCG(seed+2, 1))
	x = make([]float64, n*cols)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return v, tx, w, x
}

func TestJointKernelFormsAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// 2,500 rows span three feature panels and three kernel tiles; 20
	// columns span two column tasks of the single-kernel product.
	const n, cols = 2500, 20
	v, tx, w, x := operatorFixture(21, n, cols)
	for _, tc := range []struct {
		name string
		t    *Matrix
		w    []float64
	}{
		{"single", nil, nil},
		{"single weighted", nil, w},
		{"joint", tx, nil},
		{"joint weighted", tx, w},
	} {
		want := bruteApply(v, tc.t, tc.w, x, cols)
		for _, f := range []struct {
			path applyPath
			tol  float64 // tiles are float32 (entries good to ~1e-7)
		}{{pathFeatures, 1e-12}, {pathTiles, 1e-5}} {
			var first []float64
			for _, threads := range []int{1, 2, 5} {
				op, err := NewJointKernel(v, tc.t, tc.w, Options{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				op.(*jointKernel).path = f.path
				y := make([]float64, n*cols)
				if err := op.Apply(ctx, x, cols, y); err != nil {
					t.Fatal(err)
				}
				if d := relDiff(y, want); d > f.tol {
					t.Errorf("%s, %s, %d threads: off the float64 product by %.2g (tolerance %g)", tc.name, f.path, threads, d, f.tol)
				}
				if first == nil {
					first = y
				} else if !slices.Equal(y, first) {
					t.Errorf("%s, %s: %d threads changed the product", tc.name, f.path, threads)
				}
			}
		}
	}
}

func TestJointKernelChoosesCheaperForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, dv, dt, cols int
		joint, features bool
	}{
		{60000, 256, 256, 192, true, true},
		{30000, 256, 256, 192, true, false},
		{60000, 1024, 1024, 192, true, false},
		{2000, 48, 32, 192, true, false},
		{60000, 1024, 0, 192, false, true},
		{5000, 1024, 0, 192, false, true},
		{300, 1024, 0, 192, false, false},
	} {
		k := &jointKernel{v: &Matrix{Rows: tc.n, Cols: tc.dv}}
		if tc.joint {
			k.t = &Matrix{Rows: tc.n, Cols: tc.dt}
		}
		if got := k.usesFeatures(tc.cols); got != tc.features {
			t.Errorf("n=%d dv=%d dt=%d joint=%v cols=%d: features %v, want %v", tc.n, tc.dv, tc.dt, tc.joint, tc.cols, got, tc.features)
		}
	}
}

// TestFormedKernelAgrees holds FormJointKernel's products (float32 tiles
// held in memory) to the float64 reference, at any thread count, with
// and without weights and a text kernel; 2,500 rows span three row
// blocks, so both the tiles right of the diagonal and the transposed
// ones left of it are used.
func TestFormedKernelAgrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n, cols = 2500, 7
	v, tx, w, x := operatorFixture(41, n, cols)
	for _, tc := range []struct {
		name string
		t    *Matrix
		w    []float64
	}{{"single", nil, nil}, {"joint", tx, nil}, {"joint weighted", tx, w}} {
		want := bruteApply(v, tc.t, tc.w, x, cols)
		var first []float64
		for _, threads := range []int{1, 2, 5} {
			op, err := FormJointKernel(ctx, v, tc.t, tc.w, Options{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float64, n*cols)
			if err := op.Apply(ctx, x, cols, y); err != nil {
				t.Fatal(err)
			}
			if d := relDiff(y, want); d > 1e-5 {
				t.Errorf("%s, %d threads: off the float64 product by %.2g", tc.name, threads, d)
			}
			if first == nil {
				first = y
			} else if !slices.Equal(y, first) {
				t.Errorf("%s: %d threads changed the product", tc.name, threads)
			}
		}
	}
	for _, n := range []int{1, 1023, 1024, 1025, 60000} {
		nb := (n + operatorTile - 1) / operatorTile
		var elems int64
		for i := 0; i < nb; i++ {
			for j := i; j < nb; j++ {
				elems += int64(min(operatorTile, n-i*operatorTile)) * int64(min(operatorTile, n-j*operatorTile))
			}
		}
		if got := ResidentBytes(n); got != 4*elems {
			t.Errorf("ResidentBytes(%d) = %d, want %d", n, got, 4*elems)
		}
	}
}
