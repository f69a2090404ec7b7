package kernels_test

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// The benchmarks below run on .npy files named by environment variables,
// so bench/kernels.sh can time the kernels on the very files it gives
// FAISS and numpy. They skip when the variables are unset.

func loadBenchFile(b *testing.B, env string) *kernels.Matrix {
	path := os.Getenv(env)
	if path == "" {
		b.Skipf("set %s to a .npy file", env)
	}
	m, err := npy.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	kernels.NormalizeRows(m)
	return m
}

// BenchmarkJoinFile self-joins VIDSCREEN_BENCH_JOIN at cosine 0.9.
func BenchmarkJoinFile(b *testing.B) {
	a := loadBenchFile(b, "VIDSCREEN_BENCH_JOIN")
	var pairs int
	for b.Loop() {
		pairs = 0
		err := kernels.ThresholdJoin(context.Background(), a, nil, 0.9, kernels.Options{}, func(ps []kernels.Pair) error {
			pairs += len(ps)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	n, d := float64(a.Rows), float64(a.Cols)
	b.ReportMetric(n*(n-1)*d/sec/1e9, "GFLOP/s")
	b.ReportMetric(n*(n-1)/2/sec, "pairs-scored/s")
	b.ReportMetric(float64(pairs), "pairs-found")
}

// BenchmarkVendiFile scores the joint kernel of VIDSCREEN_BENCH_V and
// VIDSCREEN_BENCH_T exactly.
func BenchmarkVendiFile(b *testing.B) {
	v := loadBenchFile(b, "VIDSCREEN_BENCH_V")
	t := loadBenchFile(b, "VIDSCREEN_BENCH_T")
	var res kernels.Vendi
	best := math.Inf(1)
	for b.Loop() {
		var err error
		start := time.Now()
		if res, err = kernels.VendiJoint(context.Background(), v, t, 1, nil, kernels.Options{}); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(start).Seconds())
	}
	b.ReportMetric(float64(v.Rows)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	// The fastest call, to set beside numpy's best of as many runs.
	b.ReportMetric(best, "best-s")
	b.ReportMetric(res.Score, "vendi")
	b.Logf("vendi %.15g", res.Score) // full precision for the numpy cross-check
}
