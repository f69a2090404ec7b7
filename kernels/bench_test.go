package kernels

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

// Benchmarks report the unit a user plans with: GFLOP/s for products
// (2*m*n*k per product), pairs/s and items/s for joins and searches.
// Run them under flock /tmp/vidscreen-bench.lock (bench/kernels.sh does).

func BenchmarkSgemm(b *testing.B) {
	for _, impl := range []struct {
		name string
		g    blas.Gemm32
	}{{"openblas", blas.Implementation{}}, {"gonum", gonum.Implementation{}}} {
		for _, s := range [][3]int{{joinRowBlock, joinColBlock, 1024}, {1024, 1024, 1024}} {
			m, n, k := s[0], s[1], s[2]
			b.Run(fmt.Sprintf("%s/%dx%dx%d", impl.name, m, n, k), func(b *testing.B) {
				if impl.name == "gonum" && testing.Short() {
					b.Skip("slow")
				}
				x := make([]float32, m*k)
				y := make([]float32, n*k)
				c := make([]float32, m*n)
				rng := rand.New(rand.NewPCG(1, 1))
				for i := range x {
					x[i] = rng.Float32()
				}
				for i := range y {
					y[i] = rng.Float32()
				}
				b.ResetTimer()
				for b.Loop() {
					impl.g.Sgemm(gblas.NoTrans, gblas.Trans, m, n, k, 1, x, k, y, k, 0, c, n)
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkThresholdJoin(b *testing.B) {
	for _, n := range []int{4096, 16384} {
		b.Run(fmt.Sprintf("self/n=%d/d=1024", n), func(b *testing.B) {
			a := clustered(1, n, 1024, n/8, 0.6)
			var pairs int
			for b.Loop() {
				pairs = 0
				err := ThresholdJoin(context.Background(), a, nil, 0.9, Options{}, func(ps []Pair) error {
					pairs += len(ps)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			// The useful work is the upper triangle: n(n-1)/2 products of length d.
			b.ReportMetric(float64(n)*float64(n-1)*1024/sec/1e9, "GFLOP/s")
			b.ReportMetric(float64(n)*float64(n-1)/2/sec, "pairs-scored/s")
			b.ReportMetric(float64(pairs), "pairs-found")
		})
	}
}

func BenchmarkVendi(b *testing.B) {
	for _, n := range []int{200, 2000, 5000} {
		v := clustered(3, n, 1024, 50, 1)
		t := clustered(4, n, 1024, 50, 1)
		b.Run(fmt.Sprintf("joint/n=%d/d=1024", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := VendiJoint(context.Background(), v, t, 1, nil, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}
