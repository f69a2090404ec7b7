package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/gonum"
)

func bruteJoin(a, b *Matrix, tau float64) []Pair {
	var out []Pair
	self := b == nil
	if self {
		b = a
	}
	for i := 0; i < a.Rows; i++ {
		j0 := 0
		if self {
			j0 = i + 1
		}
		for j := j0; j < b.Rows; j++ {
			if s := bruteDot(a.Row(i), b.Row(j)); s >= tau {
				out = append(out, Pair{int32(i), int32(j), float32(s)})
			}
		}
	}
	return out
}

func collectJoin(t *testing.T, j Joiner, a, b *Matrix, tau float32, threads int) []Pair {
	t.Helper()
	var got []Pair
	err := j.ThresholdJoin(context.Background(), a, b, tau, Options{Threads: threads}, func(ps []Pair) error {
		got = append(got, ps...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// samePairs compares pair sets, ignoring pairs whose reference product lies
// within 1e-6 of tau, where float64 summation order may decide either way.
func samePairs(t *testing.T, got, want []Pair, tau float64, a, b *Matrix) {
	t.Helper()
	if b == nil {
		b = a
	}
	near := func(p Pair) bool { return math.Abs(bruteDot(a.Row(int(p.I)), b.Row(int(p.J)))-tau) < 1e-6 }
	key := func(p Pair) [2]int32 { return [2]int32{p.I, p.J} }
	inWant := map[[2]int32]bool{}
	for _, p := range want {
		inWant[key(p)] = true
	}
	inGot := map[[2]int32]bool{}
	for _, p := range got {
		inGot[key(p)] = true
		if !inWant[key(p)] && !near(p) {
			t.Errorf("extra pair %v", p)
		}
		if d := math.Abs(float64(p.Sim) - bruteDot(a.Row(int(p.I)), b.Row(int(p.J)))); d > 1e-6 {
			t.Errorf("pair %v: sim off by %g", p, d)
		}
	}
	for _, p := range want {
		if !inGot[key(p)] && !near(p) {
			t.Errorf("missing pair %v", p)
		}
	}
}

func TestThresholdJoinMatchesBruteForce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		na, nb, d int
		tau       float32
		self      bool
		nc        int
		noise     float64
	}{
		{"self join of clustered rows at 0.9", 700, 0, 64, 0.9, true, 20, 0.45},
		{"self join spanning several tiles", 2600, 0, 16, 0.95, true, 40, 0.25},
		{"cross join at 0.8", 300, 2500, 32, 0.8, false, 10, 0.6},
		{"threshold above every pair", 200, 0, 8, 1.5, true, 4, 0.1},
		{"negative threshold keeps all pairs", 60, 70, 5, -1.01, false, 3, 1},
		{"one row", 1, 0, 8, 0, true, 1, 0.1},
		{"empty b", 10, 0, 8, 0, false, 2, 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := clustered(1, tc.na, tc.d, tc.nc, tc.noise)
			var b *Matrix
			if !tc.self {
				b = clustered(2, tc.nb, tc.d, tc.nc, tc.noise)
				if tc.nb == 0 {
					b = NewMatrix(0, tc.d)
				}
			}
			want := bruteJoin(a, b, float64(tc.tau))
			got := collectJoin(t, CPU{}, a, b, tc.tau, 2)
			samePairs(t, got, want, float64(tc.tau), a, b)
			if !slices.IsSortedFunc(got, comparePairs) {
				t.Error("pairs not in increasing (I, J) order")
			}
			for _, threads := range []int{1, 3, 7} {
				if again := collectJoin(t, CPU{}, a, b, tc.tau, threads); !slices.Equal(again, got) {
					t.Errorf("threads %d: different result", threads)
				}
			}
			// The pure-Go BLAS must give the very same pairs: decisions are made in float64.
			if pure := collectJoin(t, CPU{Gemm: gonum.Implementation{}}, a, b, tc.tau, 2); !slices.Equal(pure, got) {
				t.Error("gonum Sgemm gives different pairs")
			}
		})
	}
}

func TestThresholdJoinExactAtTheThreshold(t *testing.T) {
	t.Parallel()
	// Rows whose products equal tau exactly in float64 must be found even
	// though float32 rounding would put some just below.
	a := NewMatrix(3, 2)
	copy(a.Data, []float32{1, 0, 0.75, 0.5, 0.75, -0.5})
	got := collectJoin(t, CPU{}, a, nil, 0.75, 1)
	want := []Pair{{0, 1, 0.75}, {0, 2, 0.75}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestThresholdJoinStopsOnError(t *testing.T) {
	t.Parallel()
	a := clustered(3, 3000, 8, 3, 0.1)
	stop := errors.New("stop")
	calls := 0
	err := ThresholdJoin(context.Background(), a, nil, 0.5, Options{Threads: 2}, func([]Pair) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err %v after %d calls, want %v after 1", err, calls, stop)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = ThresholdJoin(ctx, a, nil, 0.5, Options{}, func([]Pair) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled join returned %v", err)
	}
	if err := ThresholdJoin(context.Background(), a, NewMatrix(2, 3), 0.5, Options{}, nil); err == nil {
		t.Error("mismatched widths accepted")
	}
}

func ExampleThresholdJoin() {
	m := NewMatrix(4, 2)
	copy(m.Data, []float32{1, 0, 0.99, 0.141, 0, 1, -1, 0})
	NormalizeRows(m)
	_ = ThresholdJoin(context.Background(), m, nil, 0.9, Options{}, func(ps []Pair) error {
		for _, p := range ps {
			fmt.Printf("%d %d %.3f\n", p.I, p.J, p.Sim)
		}
		return nil
	})
	// Output: 0 1 0.990
}
