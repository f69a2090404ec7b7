package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteTail is the textbook O(n^2) dynamic programme over the trials one at
// a time: the check on the grouped convolution.
func bruteTail(p []float64, k int) float64 {
	d := []float64{1}
	for _, q := range p {
		next := make([]float64, len(d)+1)
		for j, x := range d {
			next[j] += x * (1 - q)
			next[j+1] += x * q
		}
		d = next
	}
	var t float64
	for j := k; j < len(d); j++ {
		t += d[j]
	}
	return t
}

func TestPoissonBinomialUpperTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    []float64
		k    int
		want float64
	}{
		// Hand-worked: two fair coins, at least one head.
		{"two coins, k=1", []float64{0.5, 0.5}, 1, 0.75},
		// A yes/no item and two four-option items, at least two right:
		// exactly two 0.5*0.25*0.75*2 + 0.5*0.25*0.25 = 0.21875, all three
		// 0.03125.
		{"mixed option counts", []float64{0.5, 0.25, 0.25}, 2, 0.25},
		{"all three", []float64{0.5, 0.25, 0.25}, 3, 0.03125},
		{"k=0 is certain", []float64{0.25}, 0, 1},
		{"k above n is impossible", []float64{0.25, 0.25}, 3, 0},
		{"no trials", nil, 1, 0},
		{"a certain trial", []float64{1, 0.5}, 1, 1},
		{"an impossible trial", []float64{0, 0.5}, 2, 0},
		// Ten four-option items all right: 4^-10.
		{"ten of ten", []float64{0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25}, 10, math.Pow(0.25, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PoissonBinomialUpperTail(tt.p, tt.k)
			if math.Abs(got-tt.want) > 1e-15 {
				t.Errorf("P(X >= %d) = %.17g, want %.17g", tt.k, got, tt.want)
			}
		})
	}
}

// The grouped convolution agrees with the trial-by-trial programme to
// rounding, on seeded mixes of 2, 3, 4 and 5 options, at every k.
func TestPoissonBinomialUpperTailMatchesBrute(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 60, 400, 2000} {
		p := make([]float64, n)
		for i := range p {
			p[i] = 1 / float64(2+r.IntN(4))
		}
		for k := 0; k <= n+1; k += 1 + n/50 {
			got, want := PoissonBinomialUpperTail(p, k), bruteTail(p, k)
			if math.Abs(got-want) > 1e-12*math.Max(want, 1e-30) && math.Abs(got-want) > 1e-40 {
				t.Fatalf("n=%d k=%d: %.17g, brute force %.17g", n, k, got, want)
			}
		}
	}
}

func TestHolm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    []float64
		want []bool
	}{
		// 0.01 <= 0.05/3; 0.03 > 0.05/2: stop, 0.04 is not tested.
		{"stops at the first failure", []float64{0.01, 0.04, 0.03}, []bool{true, false, false}},
		// 0.01 <= 0.05/3, 0.02 <= 0.05/2, 0.04 <= 0.05/1.
		{"all rejected", []float64{0.04, 0.01, 0.02}, []bool{true, true, true}},
		// Raw 0.03 < 0.05 passes alone but not against 0.05/2.
		{"raw pass, corrected fail", []float64{0.03, 0.5}, []bool{false, false}},
		{"one hypothesis", []float64{0.05}, []bool{true}},
		{"NaN never rejected", []float64{math.NaN(), 0.001}, []bool{false, true}},
		{"none", nil, []bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Holm(tt.p, Alpha)
			if len(got) != len(tt.want) {
				t.Fatalf("len %d, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("Holm(%v)[%d] = %v, want %v", tt.p, i, got[i], tt.want[i])
				}
			}
		})
	}
}

// BenchmarkPoissonBinomialUpperTail is the size the issue asks for: 60,000
// items of two, four and five options, k two standard deviations above the
// mean.
func BenchmarkPoissonBinomialUpperTail(b *testing.B) {
	p := make([]float64, 60000)
	var mean, v float64
	for i := range p {
		p[i] = 1 / float64([]int{2, 4, 5}[i%3])
		mean += p[i]
		v += p[i] * (1 - p[i])
	}
	k := int(mean + 2*math.Sqrt(v))
	for b.Loop() {
		PoissonBinomialUpperTail(p, k)
	}
}
