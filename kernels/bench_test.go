package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
			a := clustered(1, n, 1024, n/8, 0.35)
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

func BenchmarkTopK(b *testing.B) {
	const n, d, k = 8192, 1024, 8
	x := clustered(2, n, d, n/8, 0.35)
	for _, earlier := range []bool{false, true} {
		b.Run(fmt.Sprintf("earlier=%v/n=%d/d=%d/k=%d", earlier, n, d, k), func(b *testing.B) {
			for b.Loop() {
				var err error
				if earlier {
					_, err = TopKEarlier(context.Background(), x, k, Options{})
				} else {
					_, err = TopK(context.Background(), x, x, k, Options{})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			products := float64(n) * float64(n)
			if earlier {
				products /= 2
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(n)/sec, "items/s")
			b.ReportMetric(2*products*d/sec/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkLeaderClusters(b *testing.B) {
	const n, d = 8192, 1024
	x := clustered(3, n, d, 512, 0.35)
	for b.Loop() {
		if _, err := LeaderClusters(context.Background(), x, 0.9, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

func BenchmarkUnionFind(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(4, 4))
	pairs := make([][2]int, n)
	for i := range pairs {
		pairs[i] = [2]int{rng.IntN(n), rng.IntN(n)}
	}
	for b.Loop() {
		u := NewUnionFind(n)
		for _, p := range pairs {
			u.Union(p[0], p[1])
		}
		_ = u.Labels()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "unions/s")
}

func BenchmarkPrequentialLogistic(b *testing.B) {
	const n, d, maxC, orders = 4000, 1024, 5, 4
	x, y, nc := optionData(5, n, d, maxC)
	ords := make([][]int32, orders)
	rng := rand.New(rand.NewPCG(5, 5))
	for o := range ords {
		for _, p := range rng.Perm(n) {
			ords[o] = append(ords[o], int32(p))
		}
	}
	b.Run(fmt.Sprintf("orders=%d/n=%d/d=%d", orders, n, d), func(b *testing.B) {
		for b.Loop() {
			if _, err := PrequentialLogisticOrders(context.Background(), x, y, nc, maxC, ords, DefaultSGDConfig(), Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*orders)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	})
}

func BenchmarkPrequentialChoice(b *testing.B) {
	const n, d, c = 4000, 256, 4
	feats := clustered(6, n*c, d, 64, 1)
	off := make([]int32, n+1)
	y := make([]int32, n)
	for i := range y {
		off[i+1] = int32((i + 1) * c)
		y[i] = int32(i % c)
	}
	cfg := DefaultSGDConfig()
	cfg.OneHotClasses = false
	for b.Loop() {
		if _, err := PrequentialChoice(context.Background(), feats, off, y, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

func BenchmarkBootstrapMean(b *testing.B) {
	x := make([]float64, 10000)
	for i := range x {
		x[i] = float64(i % 7)
	}
	const reps = 1000
	for b.Loop() {
		if _, _, err := BootstrapMean(context.Background(), x, reps, 1, 0.95); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(reps*len(x))*float64(b.N)/b.Elapsed().Seconds(), "draws/s")
}

func BenchmarkPercentileRanks(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := make([]float64, 500000)
	for i := range x {
		x[i] = float64(rng.IntN(1000))
	}
	for b.Loop() {
		PercentileRanks(x)
	}
	b.ReportMetric(float64(len(x))*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

func BenchmarkVendiDual(b *testing.B) {
	const n, d = 60000, 1024
	x := clustered(8, n, d, 1000, 1)
	for b.Loop() {
		if _, err := VendiFeatures(context.Background(), x, 1, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

func BenchmarkVendiEstimate(b *testing.B) {
	const n, d = 4096, 1024
	v := embeddingLike(9, n, d, 50)
	t := embeddingLike(10, n, d, 80)
	op, err := NewJointKernel(v, t, nil, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := VendiEstimate(context.Background(), op, 1, SLQConfig{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkJointKernelApply times one product of the joint kernel with a
// block of 192 vectors (the former estimator's block, with which
// usesFeatures' cost model was fitted) in each form; the model should pick
// the faster one.
func BenchmarkJointKernelApply(b *testing.B) {
	const n, cols = 8192, 192
	for _, d := range []int{64, 256} {
		v := embeddingLike(11, n, d, 50)
		t := embeddingLike(12, n, d, 80)
		x := make([]float64, n*cols)
		for i := range x {
			x[i] = float64(i%7) - 3
		}
		y := make([]float64, n*cols)
		for _, path := range []applyPath{pathTiles, pathFeatures} {
			b.Run(fmt.Sprintf("n=%d/d=%d/%s", n, d, path), func(b *testing.B) {
				op, err := NewJointKernel(v, t, nil, Options{})
				if err != nil {
					b.Fatal(err)
				}
				op.(*jointKernel).path = path
				for b.Loop() {
					if err := op.Apply(context.Background(), x, cols, y); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "products/s")
			})
		}
	}
}

// BenchmarkVendiEstimatePool estimates the Vendi score of a 60,000-item
// pool's joint kernel (Video-Index's pool size) at the dimensions named by
// VIDSCREEN_BENCH_POOL ("256", "256,1024", or "1152x1024" for SigLIP x BGE
// rows), and at VIDSCREEN_BENCH_POOL_N items instead of 60,000 when set.
// It runs only when VIDSCREEN_BENCH_POOL is set: at 60,000 items K takes
// 7.2 GB and minutes to form on 2 cores. form times FormJointKernel,
// estimate the default VendiEstimate on the formed kernel; both report
// the process's CPU seconds beside the wall time, since a shared machine
// stretches the one and not the other.
func BenchmarkVendiEstimatePool(b *testing.B) {
	dims := os.Getenv("VIDSCREEN_BENCH_POOL")
	if dims == "" {
		b.Skip("set VIDSCREEN_BENCH_POOL=1152x1024 (or 256,1024) to estimate a 60,000-item pool")
	}
	n := 60000
	if s := os.Getenv("VIDSCREEN_BENCH_POOL_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("VIDSCREEN_BENCH_POOL_N=%q: want a positive item count", s)
		}
	}
	for _, ds := range strings.Split(dims, ",") {
		dvs, dts, joint := strings.Cut(ds, "x")
		if !joint {
			dts = dvs
		}
		dv, err := strconv.Atoi(dvs)
		if err != nil {
			b.Fatalf("VIDSCREEN_BENCH_POOL: %v", err)
		}
		dt, err := strconv.Atoi(dts)
		if err != nil {
			b.Fatalf("VIDSCREEN_BENCH_POOL: %v", err)
		}
		v := embeddingLike(13, n, dv, 1000)
		t := embeddingLike(14, n, dt, 3000)
		var op SymOperator
		b.Run(fmt.Sprintf("n=%d/d=%s/form", n, ds), func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				op = nil
				if op, err = FormJointKernel(context.Background(), v, t, nil, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/form")
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/form")
			b.ReportMetric(float64(n)*float64(n)*float64(dv+dt)/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GFLOP/s")
		})
		if op == nil {
			continue
		}
		b.Run(fmt.Sprintf("n=%d/d=%s/estimate", n, ds), func(b *testing.B) {
			var res Vendi
			// As vidscreen vendi runs it: K held, its squared norm given.
			sq, _ := SquaredNorm(op)
			cpu0 := cpuSeconds()
			for b.Loop() {
				if res, err = VendiEstimate(context.Background(), op, 1, SLQConfig{Seed: 1, SquaredNorm: sq}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/estimate")
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/estimate")
			b.ReportMetric(res.Score, "vendi")
		})
		op = nil
	}
}

// cpuSeconds is the user and system CPU time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
