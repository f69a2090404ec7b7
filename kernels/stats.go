package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// bootstrapChunk is the number of resamples drawn from one random stream.
// Streams are keyed by (seed, chunk), never by worker, so the interval does
// not depend on the thread count.
const bootstrapChunk = 64

// BootstrapMean returns the seeded bootstrap percentile interval of the
// mean of x: reps resamples with replacement, then the (1-level)/2 and
// (1+level)/2 quantiles of their means (linear interpolation, numpy's
// default). The same seed gives the same interval at any thread count.
func BootstrapMean(ctx context.Context, x []float64, reps int, seed uint64, level float64) (lo, hi float64, err error) {
	return BootstrapMeanOpt(ctx, x, reps, seed, level, Options{})
}

// BootstrapMeanOpt is BootstrapMean with bounded threads.
func BootstrapMeanOpt(ctx context.Context, x []float64, reps int, seed uint64, level float64, opt Options) (lo, hi float64, err error) {
	if len(x) == 0 {
		return 0, 0, fmt.Errorf("bootstrap: no values")
	}
	if reps < 1 {
		return 0, 0, fmt.Errorf("bootstrap: reps = %d < 1", reps)
	}
	if !(level > 0 && level < 1) {
		return 0, 0, fmt.Errorf("bootstrap: level %v outside (0, 1)", level)
	}
	means := make([]float64, reps)
	chunks := (reps + bootstrapChunk - 1) / bootstrapChunk
	n := uint64(len(x))
	err = parallelFor(ctx, chunks, opt.threads(), func(c int) error {
		rng := rand.New(rand.NewPCG(seed, uint64(c)))
		for r := c * bootstrapChunk; r < min(reps, (c+1)*bootstrapChunk); r++ {
			var s float64
			for range x {
				s += x[rng.Uint64N(n)]
			}
			means[r] = s / float64(n)
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	slices.Sort(means)
	return quantile(means, (1-level)/2), quantile(means, (1+level)/2), nil
}

// quantile of sorted values by linear interpolation (numpy's "linear").
func quantile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := h - float64(i)
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}

// PercentileRanks maps each value to its percentile rank in (0, 1]: its
// 1-based rank among the values divided by their number, ties getting the
// mean of their ranks (pandas' rank(method="average", pct=True)). NaNs get
// NaN and are not counted.
func PercentileRanks(x []float64) []float64 {
	idx := make([]int, 0, len(x))
	for i, v := range x {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, len(x))
	for i := range out {
		out[i] = math.NaN()
	}
	n := float64(len(idx))
	for s := 0; s < len(idx); {
		e := s + 1
		for e < len(idx) && x[idx[e]] == x[idx[s]] {
			e++
		}
		mean := float64(s+1+e) / 2 // mean of the 1-based ranks s+1..e
		for _, i := range idx[s:e] {
			out[i] = mean / n
		}
		s = e
	}
	return out
}
