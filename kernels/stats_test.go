package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func TestPercentileRanks(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		{"distinct", []float64{3, 1, 2}, []float64{1, 1.0 / 3, 2.0 / 3}},
		{"ties get the mean rank", []float64{5, 5, 1, 5}, []float64{3.0 / 4, 3.0 / 4, 1.0 / 4, 3.0 / 4}},
		{"NaN is skipped", []float64{nan, 2, 1}, []float64{nan, 1, 0.5}},
		{"empty", nil, []float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PercentileRanks(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if !(got[i] == tc.want[i] || math.IsNaN(got[i]) && math.IsNaN(tc.want[i])) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestBootstrapMean(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	x := make([]float64, 400)
	var mean float64
	for i := range x {
		x[i] = rng.NormFloat64() + 3
		mean += x[i] / float64(len(x))
	}
	lo, hi, err := BootstrapMeanOpt(context.Background(), x, 2000, 42, 0.95, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The normal-theory interval has half-width 1.96*sd/sqrt(n), about 0.098
	// here; the percentile bootstrap agrees to within resampling noise.
	if !(lo < mean && mean < hi) || math.Abs((hi-lo)/2-0.098) > 0.02 {
		t.Errorf("interval [%v, %v] around mean %v", lo, hi, mean)
	}
	for _, threads := range []int{2, 5} {
		l2, h2, err := BootstrapMeanOpt(context.Background(), x, 2000, 42, 0.95, Options{Threads: threads})
		if err != nil || l2 != lo || h2 != hi {
			t.Errorf("threads %d: [%v, %v], want [%v, %v] (err %v)", threads, l2, h2, lo, hi, err)
		}
	}
	if l3, _, _ := BootstrapMean(context.Background(), x, 2000, 43, 0.95); l3 == lo {
		t.Error("another seed gave the same interval")
	}
	for _, bad := range []struct {
		x     []float64
		reps  int
		level float64
	}{{nil, 10, 0.9}, {x, 0, 0.9}, {x, 10, 1}} {
		if _, _, err := BootstrapMean(context.Background(), bad.x, bad.reps, 1, bad.level); err == nil {
			t.Errorf("accepted %d values, %d reps, level %v", len(bad.x), bad.reps, bad.level)
		}
	}
}
