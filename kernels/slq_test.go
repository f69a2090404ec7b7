package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// embeddingLike returns n unit rows that share a common direction (real
// embeddings sit in a narrow cone: typical cosines 0.3 to 0.7) around nc
// clusters, so the kernel spectrum has the shape SLQ meets in practice.
func embeddingLike(seed uint64, n, d, nc int) *Matrix {
	rng := rand.New(rand.NewPCG(seed, 3))
	common := make([]float64, d)
	for j := range common {
		common[j] = rng.NormFloat64() / math.Sqrt(float64(d))
	}
	centres := make([][]float64, nc)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range centres[c] {
			centres[c][j] = 0.8 * rng.NormFloat64() / math.Sqrt(float64(d))
		}
	}
	m := NewMatrix(n, d)
	for i := 0; i < n; i++ {
		c := centres[rng.IntN(nc)]
		r := m.Row(i)
		for j := range r {
			r[j] = float32(common[j] + c[j] + 0.6*rng.NormFloat64()/math.Sqrt(float64(d)))
		}
	}
	NormalizeRows(m)
	return m
}

func checkSLQ(t *testing.T, n, dv, dt int, paths ...applyPath) {
	ctx := context.Background()
	v := embeddingLike(uint64(n), n, dv, 40)
	tx := embeddingLike(uint64(n)+1, n, dt, 60)
	for _, q := range []float64{1, 2, math.Inf(1)} {
		exact, err := VendiJoint(ctx, v, tx, q, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			op, err := NewJointKernel(v, tx, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			op.(*jointKernel).path = path
			est, err := VendiEstimate(ctx, op, q, SLQConfig{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			rel := math.Abs(est.Entropy-exact.Entropy) / exact.Entropy
			relScore := math.Abs(est.Score-exact.Score) / exact.Score
			t.Logf("n=%d q=%v %s: exact VS %.4f (H %.5f), SLQ %.4f (H %.5f): entropy off by %.3f%%, score by %.3f%%",
				n, q, path, exact.Score, exact.Entropy, est.Score, est.Entropy, 100*rel, 100*relScore)
			if rel > 0.01 {
				t.Errorf("n=%d q=%v %s: SLQ entropy %v is %.2f%% from the exact %v", n, q, path, est.Entropy, 100*rel, exact.Entropy)
			}
		}
	}
}

func TestVendiEstimateWithinOnePercent(t *testing.T) {
	checkSLQ(t, 2000, 48, 32, pathTiles, pathFeatures)
}

// TestVendiEstimateLarge checks n = 5,000 and 10,000 (about two minutes on
// 2 cores); bench/kernels.sh runs it with VIDSCREEN_LONG_TESTS=1.
func TestVendiEstimateLarge(t *testing.T) {
	if os.Getenv("VIDSCREEN_LONG_TESTS") == "" {
		t.Skip("set VIDSCREEN_LONG_TESTS=1 to compare SLQ with the exact Vendi at n = 5,000 and 10,000")
	}
	for _, n := range []int{5000, 10000} {
		checkSLQ(t, n, 48, 32, pathAuto)
	}
}

func TestVendiEstimateIsDeterministic(t *testing.T) {
	ctx := context.Background()
	v := embeddingLike(5, 700, 16, 10)
	for _, path := range []applyPath{pathTiles, pathFeatures} {
		var first Vendi
		for i, threads := range []int{1, 2, 5} {
			op, _ := NewJointKernel(v, v, []float64(nil), Options{Threads: threads})
			op.(*jointKernel).path = path
			got, err := VendiEstimate(ctx, op, 1, SLQConfig{Seed: 3, Probes: 8, Steps: 10, Deflate: 8})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = got
			} else if got != first {
				t.Errorf("%s, threads %d: %+v, want %+v", path, threads, got, first)
			}
		}
	}
}
