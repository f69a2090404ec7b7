package kernels

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"
)

// diagOperator is diag(d): products that cost n x cols, so that a block
// Lanczos run times the estimator's own work alone.
type diagOperator struct{ d []float64 }

func (o diagOperator) Size() int { return len(o.d) }

func (o diagOperator) Apply(_ context.Context, x []float64, cols int, y []float64) error {
	for i, v := range o.d {
		for c := 0; c < cols; c++ {
			y[i*cols+c] = v * x[i*cols+c]
		}
	}
	return nil
}

// basisTimer offers the host basis through BasisOperator and adds the
// seconds of its Gram-Schmidt calls to secs, of its orthonormalisation
// products (Gram, Combine) to orth.
type basisTimer struct {
	SymOperator
	secs, orth float64
}

func (o *basisTimer) NewKrylovBasis(_ context.Context, cols, block int) (KrylovBasis, error) {
	n := o.Size()
	return &timedHostBasis{hostBasis{n: n, ld: cols, q: make([]float64, n*cols), threads: runtime.GOMAXPROCS(0)}, &o.secs, &o.orth}, nil
}

type timedHostBasis struct {
	hostBasis
	secs, orth *float64
}

func (b *timedHostBasis) time(start time.Time) { *b.secs += time.Since(start).Seconds() }

func (b *timedHostBasis) Gram(ctx context.Context, r int, x, g []float64) error {
	start := time.Now()
	defer func() { *b.orth += time.Since(start).Seconds() }()
	return b.hostBasis.Gram(ctx, r, x, g)
}

func (b *timedHostBasis) Combine(ctx context.Context, r, k int, x, u, y []float64) error {
	start := time.Now()
	defer func() { *b.orth += time.Since(start).Seconds() }()
	return b.hostBasis.Combine(ctx, r, k, x, u, y)
}

func (b *timedHostBasis) Set(ctx context.Context, m, r int, x []float64) error {
	defer b.time(time.Now())
	return b.hostBasis.Set(ctx, m, r, x)
}

func (b *timedHostBasis) Project(ctx context.Context, m, r int, w, h []float64) error {
	defer b.time(time.Now())
	return b.hostBasis.Project(ctx, m, r, w, h)
}

func (b *timedHostBasis) Coords(ctx context.Context, m, c int, x, z []float64) error {
	defer b.time(time.Now())
	return b.hostBasis.Coords(ctx, m, c, x, z)
}

// BenchmarkBlockKrylov times the default block Lanczos run (32 probes x
// 16 steps, a 512-column basis) on a diagonal operator, whose products
// are free, at pool-like n: the host's part of a device estimate. It
// reports, per run, what a BasisOperator's basis takes over: the
// Gram-Schmidt products (basis-s) and the orthonormalisation's n x r x r
// products (orth-s: each block's Gram matrix and W U); and the rest,
// which stays on the host whichever basis runs (rest-s: the r x r
// eigenproblems, T's eigenvalues, the probes, the copies).
func BenchmarkBlockKrylov(b *testing.B) {
	for _, n := range []int{2048, 8192, 60000} {
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Pow(float64(i+1), -1.2)
		}
		omega := make([]float64, n*32)
		for i := range omega {
			omega[i] = float64(1 - 2*int((uint64(i)*0x9e3779b97f4a7c15>>63)&1))
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			op := &basisTimer{SymOperator: diagOperator{d}}
			for b.Loop() {
				if _, err := blockKrylov(context.Background(), op, omega, 32, 16); err != nil {
					b.Fatal(err)
				}
			}
			per := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(op.secs/float64(b.N), "basis-s")
			b.ReportMetric(op.orth/float64(b.N), "orth-s")
			b.ReportMetric(per-(op.secs+op.orth)/float64(b.N), "rest-s")
		})
	}
}
