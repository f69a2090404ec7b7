package kernels

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

// embeddingLike is ConeRows drawn from seed's stream 3, the stream the
// package's tests key their data by.
func embeddingLike(seed uint64, n, d, nc int) *Matrix {
	return ConeRows(rand.New(rand.NewPCG(seed, 3)), n, d, nc)
}

// powerLaw returns n unit rows whose coordinate j has scale (j+1)^-beta
// around a common direction of length common: a covariance spectrum that
// decays like a power law, as embedding spectra do, with no clusters.
func powerLaw(seed uint64, n, d int, beta, common float64) *Matrix {
	rng := rand.New(rand.NewPCG(seed, 9))
	c := make([]float64, d)
	for j := range c {
		c[j] = rng.NormFloat64() / math.Sqrt(float64(d))
	}
	m := NewMatrix(n, d)
	for i := 0; i < n; i++ {
		r := m.Row(i)
		for j := range r {
			r[j] = float32(common*c[j] + rng.NormFloat64()*math.Pow(float64(j+1), -beta))
		}
	}
	NormalizeRows(m)
	return m
}

// slqFixture is a pair of embedding matrices for the joint kernel.
type slqFixture struct {
	name string
	v, t func(n int) *Matrix
}

// slqFixtures have SigLIP x BGE widths (1152 x 1024): a cone with
// clusters, well-separated clusters, and power-law spectra.
var slqFixtures = []slqFixture{
	{"cone", func(n int) *Matrix { return embeddingLike(13, n, 1152, 40) }, func(n int) *Matrix { return embeddingLike(14, n, 1024, 120) }},
	{"clustered", func(n int) *Matrix { return clustered(3, n, 1152, 50, 1) }, func(n int) *Matrix { return clustered(4, n, 1024, 50, 1) }},
	{"power-law", func(n int) *Matrix { return powerLaw(5, n, 1152, 0.7, 1) }, func(n int) *Matrix { return powerLaw(6, n, 1024, 0.5, 1.2) }},
}

// checkEstimate compares VendiEstimate on the formed kernel with the exact
// score at orders 1, 2 and inf, for several seeds: the score within 1%.
func checkEstimate(t *testing.T, n int, fx slqFixture, seeds ...uint64) {
	ctx := context.Background()
	v, tx := fx.v(n), fx.t(n)
	op, err := FormJointKernel(ctx, v, tx, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lambda := jointEigenvalues(t, v, tx)
	for _, q := range []float64{1, 2, math.Inf(1)} {
		exact := vendiOf(slices.Clone(lambda), q, "kernel")
		for _, seed := range seeds {
			est, err := VendiEstimate(ctx, op, q, SLQConfig{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			rel := (est.Score - exact.Score) / exact.Score
			t.Logf("%s n=%d q=%v seed %d: exact %.4f, estimate %.4f (%+.3f%%)", fx.name, n, q, seed, exact.Score, est.Score, 100*rel)
			if math.Abs(rel) > 0.01 || est.Method != "slq" {
				t.Errorf("%s n=%d q=%v seed %d: estimate %v (%s) is %+.2f%% from the exact %v", fx.name, n, q, seed, est.Score, est.Method, 100*rel, exact.Score)
			}
		}
	}
}

// jointEigenvalues returns the eigenvalues of K/n for the joint kernel
// of v and tx, from one float64 eigensolve (VendiJoint solves once per
// order; TestVendiFormsAgree holds the two to each other).
func jointEigenvalues(t *testing.T, v, tx *Matrix) []float64 {
	t.Helper()
	var g blas.Implementation
	n := v.Rows
	gram := func(x *Matrix) []float64 {
		xs := scaledRows(x, nil)
		out := make([]float64, n*n)
		g.Dgemm(gblas.NoTrans, gblas.Trans, n, n, x.Cols, 1, xs, x.Cols, xs, x.Cols, 0, out, n)
		return out
	}
	k, kt := gram(v), gram(tx)
	for e := range k {
		k[e] *= kt[e] / float64(n)
	}
	lambda, err := blas.SymEigenvalues(k, n)
	if err != nil {
		t.Fatal(err)
	}
	return lambda
}

func TestVendiEstimateWithinOnePercent(t *testing.T) {
	t.Parallel()
	for _, fx := range slqFixtures {
		t.Run(fx.name, func(t *testing.T) { checkEstimate(t, 2000, fx, 1, 2) })
	}
}

// TestVendiEstimateLarge checks n = 4,000 and 8,000 (minutes on 2 cores,
// most of it the exact eigenvalues); bench/kernels.sh runs it with
// VIDSCREEN_LONG_TESTS=1.
func TestVendiEstimateLarge(t *testing.T) {
	t.Parallel()
	if os.Getenv("VIDSCREEN_LONG_TESTS") == "" {
		t.Skip("set VIDSCREEN_LONG_TESTS=1 to compare the estimate with the exact Vendi at n = 4,000 and 8,000")
	}
	for _, n := range []int{4000, 8000} {
		for _, fx := range slqFixtures {
			checkEstimate(t, n, fx, 1, 2, 3)
		}
	}
}

// TestVendiEstimateOperatorForms runs the estimate through the products
// formed on the fly (features and tiles), which must agree with the
// formed kernel's.
func TestVendiEstimateOperatorForms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 2000
	v := embeddingLike(uint64(n), n, 48, 40)
	tx := embeddingLike(uint64(n)+1, n, 32, 60)
	exact, err := VendiJoint(ctx, v, tx, 1, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	formed, err := FormJointKernel(ctx, v, tx, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := VendiEstimate(ctx, formed, 1, SLQConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rel := math.Abs(want.Score-exact.Score) / exact.Score; rel > 0.01 {
		t.Errorf("formed: estimate %v is %.2f%% from the exact %v", want.Score, 100*rel, exact.Score)
	}
	for _, path := range []applyPath{pathTiles, pathFeatures} {
		op, err := NewJointKernel(v, tx, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		op.(*jointKernel).path = path
		got, err := VendiEstimate(ctx, op, 1, SLQConfig{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		// Float32 tiles and float64 features differ by rounding only.
		if !near(got.Score, want.Score, 1e-4) {
			t.Errorf("%s: estimate %v, formed kernel's %v", path, got.Score, want.Score)
		}
	}
}

// gaussianRows returns n unit rows of isotropic Gaussian noise in d
// dimensions: a kernel of rank d whose score is close to d.
func gaussianRows(seed uint64, n, d int) *Matrix {
	rng := rand.New(rand.NewPCG(seed, 17))
	m := NewMatrix(n, d)
	for i := range m.Data {
		m.Data[i] = float32(rng.NormFloat64())
	}
	NormalizeRows(m)
	return m
}

// TestVendiEstimateLowRank: a kernel of rank below n, applied through the
// features (exact to rounding, as vendi --kernel-memory 0 does), leaves
// the Krylov space after a step or two; the estimate must still be the
// exact score, never above n. It was 2.77e9 against 15.94 at 2000 x 16
// and 1762 against 163.9 at 500 x 200: rounding noise kept as basis
// vectors had broken the basis's orthogonality.
func TestVendiEstimateLowRank(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		v, t *Matrix
	}{
		{"2000 x 16", gaussianRows(1, 2000, 16), nil},
		{"500 x 200", gaussianRows(2, 500, 200), nil},
		{"clustered 3000 x 8", embeddingLike(3, 3000, 8, 10), nil},
		{"joint 2000 x 4 x 4", gaussianRows(4, 2000, 4), gaussianRows(5, 2000, 4)},
	} {
		n := tc.v.Rows
		for _, q := range []float64{1, 2, math.Inf(1)} {
			exact, err := VendiJoint(ctx, tc.v, tc.t, q, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// The formed kernel with its squared norm: a low-rank bulk is
			// rounding noise that tr(A^2) cannot resolve, and the
			// quadratic variate must give way to the linear one (it was
			// 27.8 against 15.9 at 2000 x 16).
			formed, err := FormJointKernel(ctx, tc.v, tc.t, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			sq, _ := SquaredNorm(formed)
			got, err := VendiEstimate(ctx, formed, q, SLQConfig{SquaredNorm: sq})
			if err != nil {
				t.Fatalf("%s, formed, q=%v: %v", tc.name, q, err)
			}
			if got.Score > float64(n) || !near(got.Score, exact.Score, 0.01) {
				t.Errorf("%s, formed with its squared norm, q=%v: estimate %v, exact %v", tc.name, q, got.Score, exact.Score)
			}
			for _, path := range []applyPath{pathFeatures, pathTiles} {
				op, err := NewJointKernel(tc.v, tc.t, nil, Options{})
				if err != nil {
					t.Fatal(err)
				}
				op.(*jointKernel).path = path
				for _, seed := range []uint64{0} {
					got, err := VendiEstimate(ctx, op, q, SLQConfig{Seed: seed})
					if err != nil {
						t.Fatalf("%s, %s, q=%v: %v", tc.name, path, q, err)
					}
					if got.Score > float64(n) || !near(got.Score, exact.Score, 0.01) {
						t.Errorf("%s, %s, q=%v, seed %d: estimate %v, exact %v", tc.name, path, q, seed, got.Score, exact.Score)
					}
				}
			}
		}
	}
}

// TestVendiEstimateExactWhenSpanned: once the probes' Krylov space is
// the whole space (Probes x Steps >= n), every Ritz pair is an eigenpair
// and the estimate is the exact score.
func TestVendiEstimateExactWhenSpanned(t *testing.T) {
	ctx := context.Background()
	v := embeddingLike(31, 150, 64, 8)
	tx := powerLaw(32, 150, 48, 0.6, 1)
	op, err := FormJointKernel(ctx, v, tx, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{0.5, 1, 2, math.Inf(1)} {
		exact, err := VendiJoint(ctx, v, tx, q, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := VendiEstimate(ctx, op, q, SLQConfig{Seed: 4, Probes: 16, Steps: 10})
		if err != nil {
			t.Fatal(err)
		}
		if !near(got.Score, exact.Score, 1e-6) {
			t.Errorf("q=%v: estimate %v, exact %v", q, got.Score, exact.Score)
		}
	}
}

func TestVendiEstimateIsDeterministic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := embeddingLike(5, 2500, 16, 10)
	forms := []struct {
		name string
		op   func(threads int) SymOperator
	}{
		{"formed", func(threads int) SymOperator {
			op, err := FormJointKernel(ctx, v, v, nil, Options{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			return op
		}},
	}
	for _, path := range []applyPath{pathTiles, pathFeatures} {
		forms = append(forms, struct {
			name string
			op   func(threads int) SymOperator
		}{path.String(), func(threads int) SymOperator {
			op, _ := NewJointKernel(v, v, nil, Options{Threads: threads})
			op.(*jointKernel).path = path
			return op
		}})
	}
	for _, f := range forms {
		var first Vendi
		for i, threads := range []int{1, 2, 5} {
			got, err := VendiEstimate(ctx, f.op(threads), 1, SLQConfig{Seed: 3, Probes: 8, Steps: 10})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = got
			} else if got != first {
				t.Errorf("%s, threads %d: %+v, want %+v", f.name, threads, got, first)
			}
		}
	}
}

func TestVendiEstimateStopsOnCancel(t *testing.T) {
	t.Parallel()
	v := embeddingLike(6, 1500, 32, 10)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FormJointKernel(ctx, v, v, nil, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("forming under a cancelled context: %v, want context.Canceled", err)
	}
	op, err := FormJointKernel(context.Background(), v, v, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VendiEstimate(ctx, op, 1, SLQConfig{}); !errors.Is(err, context.Canceled) {
		t.Errorf("estimating under a cancelled context: %v, want context.Canceled", err)
	}
}

// TestVendiEstimateSpreadOverSeeds holds the default estimate (32 probes
// x 16 steps) on a formed kernel, with its squared norm, to what vendi
// --help states, over 20 seeds at n = 2,000 on the two fixtures whose
// spread was widest (power-law spectra; a pool-like cone with 1,000 and
// 3,000 centres): every seed within 0.2% of the exact score, and the
// root mean square error at most 0.05%. Measured at n = 3,000 (docs/
// scale.md): RMS 0.004% to 0.02%, the largest of 100 estimates 0.06%;
// with the linear control variate alone (no squared norm) the RMS was
// 0.02% to 0.10% and the largest error 0.21% (0.08% and 0.09% RMS on
// these two fixtures, which the bound on the RMS here would refuse).
func TestVendiEstimateSpreadOverSeeds(t *testing.T) {
	t.Parallel()
	const n, seeds = 2000, 20
	ctx := context.Background()
	for _, fx := range []slqFixture{
		slqFixtures[2],
		{"pool-like", func(n int) *Matrix { return embeddingLike(13, n, 1152, 1000) }, func(n int) *Matrix { return embeddingLike(14, n, 1024, 3000) }},
	} {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			v, tx := fx.v(n), fx.t(n)
			op, err := FormJointKernel(ctx, v, tx, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			sq, ok := SquaredNorm(op)
			if !ok {
				t.Fatal("the formed kernel offers no squared norm")
			}
			lambda := jointEigenvalues(t, v, tx)
			var want float64
			for _, l := range lambda {
				want += l * l
			}
			// The float32 tiles' squared norm against the float64
			// eigenvalues' sum of squares.
			if !near(sq, want, 1e-5) {
				t.Errorf("squared norm %v, sum of squared eigenvalues %v", sq, want)
			}
			exact := vendiOf(lambda, 1, "kernel")
			var ss, worst float64
			for seed := uint64(1); seed <= seeds; seed++ {
				est, err := VendiEstimate(ctx, op, 1, SLQConfig{Seed: seed, SquaredNorm: sq})
				if err != nil {
					t.Fatal(err)
				}
				rel := (est.Score - exact.Score) / exact.Score
				ss += rel * rel
				worst = max(worst, math.Abs(rel))
				if math.Abs(rel) > 0.002 {
					t.Errorf("seed %d: estimate %v is %+.3f%% from the exact %v", seed, est.Score, 100*rel, exact.Score)
				}
			}
			rms := math.Sqrt(ss / seeds)
			t.Logf("%s n=%d, %d seeds: RMS %.4f%%, largest %.4f%% (exact %.4f)", fx.name, n, seeds, 100*rms, 100*worst, exact.Score)
			if rms > 0.0005 {
				t.Errorf("RMS error %.4f%% over %d seeds, want <= 0.05%%", 100*rms, seeds)
			}
		})
	}
}
