package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHostBasisPanelsAtAnyThreadCount: the host basis's products run in
// 4096-row panels summed in panel order, so their bits do not depend on
// the thread count, and they are the float64 products to rounding. n
// spans three panels, the last one partial.
func TestHostBasisPanelsAtAnyThreadCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n, ld, m, r = 2*basisPanel + 123, 24, 20, 4
	rng := rand.New(rand.NewPCG(7, 8))
	fill := func(k int) []float64 {
		x := make([]float64, k)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x
	}
	q, w, u := fill(n*ld), fill(n*r), fill(r*3)
	type out struct{ h, w, z, g, y []float64 }
	run := func(threads int) out {
		b := &hostBasis{n: n, ld: ld, q: slices.Clone(q), threads: threads}
		o := out{h: make([]float64, m*r), w: slices.Clone(w), z: make([]float64, m*r), g: make([]float64, r*r), y: make([]float64, n*3)}
		if err := b.Coords(ctx, m, r, w, o.z); err != nil {
			t.Fatal(err)
		}
		if err := b.Project(ctx, m, r, o.w, o.h); err != nil {
			t.Fatal(err)
		}
		if err := b.Gram(ctx, r, w, o.g); err != nil {
			t.Fatal(err)
		}
		if err := b.Combine(ctx, r, 3, w, u, o.y); err != nil {
			t.Fatal(err)
		}
		return o
	}
	want := run(1)
	for _, threads := range []int{2, 3, 8} {
		got := run(threads)
		for name, pair := range map[string][2][]float64{"h": {got.h, want.h}, "w": {got.w, want.w}, "z": {got.z, want.z}, "g": {got.g, want.g}, "y": {got.y, want.y}} {
			if !slices.Equal(pair[0], pair[1]) {
				t.Errorf("%d threads: %s differs from 1 thread's", threads, name)
			}
		}
	}
	// Against plain float64 sums: Q_m^T W, W - Q_m H, W^T W, W U.
	for a := 0; a < m; a++ {
		for c := 0; c < r; c++ {
			var s float64
			for i := 0; i < n; i++ {
				s += q[i*ld+a] * w[i*r+c]
			}
			if math.Abs(want.h[a*r+c]-s) > 1e-10 || want.z[a*r+c] != want.h[a*r+c] {
				t.Fatalf("Q^T W (%d, %d): %v and %v, want %v", a, c, want.h[a*r+c], want.z[a*r+c], s)
			}
		}
	}
	for i := 0; i < n; i += 997 {
		for c := 0; c < r; c++ {
			s := w[i*r+c]
			for a := 0; a < m; a++ {
				s -= q[i*ld+a] * want.h[a*r+c]
			}
			if math.Abs(want.w[i*r+c]-s) > 1e-10 {
				t.Fatalf("W - Q H (%d, %d): %v, want %v", i, c, want.w[i*r+c], s)
			}
		}
		for c := 0; c < 3; c++ {
			var s float64
			for k := 0; k < r; k++ {
				s += w[i*r+k] * u[k*3+c]
			}
			if math.Abs(want.y[i*3+c]-s) > 1e-12 {
				t.Fatalf("W U (%d, %d): %v, want %v", i, c, want.y[i*3+c], s)
			}
		}
	}
	for a := 0; a < r; a++ {
		for c := 0; c < r; c++ {
			var s float64
			for i := 0; i < n; i++ {
				s += w[i*r+a] * w[i*r+c]
			}
			if math.Abs(want.g[a*r+c]-s) > 1e-9 {
				t.Fatalf("W^T W (%d, %d): %v, want %v", a, c, want.g[a*r+c], s)
			}
		}
	}
}
