package kernels

import (
	"context"
	"math"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/blas/gonum"
)

func bruteTopK(q, x *Matrix, k int, earlier bool) ([]int32, []float64) {
	idx := make([]int32, q.Rows*k)
	sim := make([]float64, q.Rows*k)
	for i := 0; i < q.Rows; i++ {
		type c struct {
			j int
			s float64
		}
		var cs []c
		end := x.Rows
		if earlier {
			end = i
		}
		for j := 0; j < end; j++ {
			cs = append(cs, c{j, bruteDot(q.Row(i), x.Row(j))})
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].s > cs[b].s })
		for r := 0; r < k; r++ {
			idx[i*k+r], sim[i*k+r] = -1, math.Inf(-1)
			if r < len(cs) {
				idx[i*k+r], sim[i*k+r] = int32(cs[r].j), cs[r].s
			}
		}
	}
	return idx, sim
}

func checkNeighbours(t *testing.T, got *Neighbours, idx []int32, sim []float64) {
	t.Helper()
	for i := range idx {
		if got.Index[i] != idx[i] {
			// Allowed only where the two products tie to within rounding.
			if math.Abs(float64(got.Sim[i])-sim[i]) > 1e-6 {
				t.Fatalf("entry %d: index %d sim %v, want %d sim %v", i, got.Index[i], got.Sim[i], idx[i], sim[i])
			}
		}
		if idx[i] >= 0 && math.Abs(float64(got.Sim[i])-sim[i]) > 1e-6 {
			t.Fatalf("entry %d: sim %v, want %v", i, got.Sim[i], sim[i])
		}
	}
}

func TestTopKMatchesBruteForce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		nq, nx, d, k int
		earlier      bool
	}{
		{"k 8 over several column tiles", 300, 5000, 24, 8, false},
		{"k larger than the rows", 20, 5, 8, 9, false},
		{"k 1", 100, 600, 16, 1, false},
		{"k 0", 10, 10, 4, 0, false},
		{"many candidates force pruning", 40, 3000, 4, 50, false},
		{"earlier rows only", 700, 0, 16, 5, true},
		{"earlier rows across tiles", 2300, 0, 8, 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := clustered(5, tc.nq, tc.d, 12, 0.5)
			x := q
			if !tc.earlier {
				x = clustered(6, tc.nx, tc.d, 12, 0.5)
			}
			idx, sim := bruteTopK(q, x, tc.k, tc.earlier)
			var got *Neighbours
			var err error
			run := func(c CPU, threads int) *Neighbours {
				if tc.earlier {
					got, err = c.TopKEarlier(context.Background(), x, tc.k, Options{Threads: threads})
				} else {
					got, err = c.TopK(context.Background(), q, x, tc.k, Options{Threads: threads})
				}
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			first := run(CPU{}, 2)
			checkNeighbours(t, first, idx, sim)
			for _, threads := range []int{1, 5} {
				again := run(CPU{}, threads)
				if !slices.Equal(again.Index, first.Index) || !slices.Equal(again.Sim, first.Sim) {
					t.Errorf("threads %d: different result", threads)
				}
			}
			pure := run(CPU{Gemm: gonum.Implementation{}}, 2)
			if !slices.Equal(pure.Index, first.Index) || !slices.Equal(pure.Sim, first.Sim) {
				t.Error("gonum Sgemm gives different neighbours")
			}
		})
	}
}

func TestTopKBreaksTiesByIndex(t *testing.T) {
	t.Parallel()
	x := NewMatrix(6, 2)
	copy(x.Data, []float32{0, 1, 1, 0, 1, 0, 0.6, 0.8, 1, 0, 0, 1})
	q := NewMatrix(1, 2)
	copy(q.Data, []float32{1, 0})
	got, err := TopK(context.Background(), q, x, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 2, 4, 3}; !slices.Equal(got.Index, want) {
		t.Errorf("index %v, want %v", got.Index, want)
	}
	early, err := TopKEarlier(context.Background(), x, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 has no earlier rows; row 4 ties rows 1 and 2 and takes both.
	if want := []int32{-1, -1, 0, -1, 1, 0, 0, 1, 1, 2, 0, 3}; !slices.Equal(early.Index, want) {
		t.Errorf("earlier index %v, want %v", early.Index, want)
	}
}
