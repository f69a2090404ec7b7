package kernels

import (
	"math"
	"slices"
)

// A Shortlist keeps, for one query, every row that may still be among its
// k best by approximate (float32 or device) products, so that only those
// get an exact float64 product. The CPU top-k and the CUDA backend share
// it, which is why they return the same neighbours.
type Shortlist struct {
	// Admit is the floor: a candidate below it cannot make the top k.
	Admit float32
	c     []candidate
}

type candidate struct {
	j int32
	s float32 // the approximate product
	e float64 // the exact (float64) product
}

// NewShortlists returns n empty shortlists, each admitting everything.
func NewShortlists(n int) []Shortlist {
	s := make([]Shortlist, n)
	for i := range s {
		s[i].Admit = float32(math.Inf(-1))
	}
	return s
}

// Add offers row j with approximate product s; the caller has checked s
// against Admit.
func (s *Shortlist) Add(j int32, approx float32) {
	s.c = append(s.c, candidate{j: j, s: approx})
}

// Len is the number of candidates held.
func (s *Shortlist) Len() int { return len(s.c) }

// Prune raises the floor to twice margin (the approximate products' worst
// rounding error, see gamma) below the k-th best approximate product, and
// drops what falls under it: such a row is provably outside the exact top
// k. The floor never falls, because the k-th best held never does.
func (s *Shortlist) Prune(k int, margin float64) {
	vals := make([]float32, len(s.c))
	for i, c := range s.c {
		vals[i] = c.s
	}
	slices.Sort(vals)
	kth := vals[len(vals)-k]
	s.Admit = max(s.Admit, float32(float64(kth)-2*margin))
	keep := s.c[:0]
	for _, c := range s.c {
		if c.s >= s.Admit {
			keep = append(keep, c)
		}
	}
	s.c = keep
}

// Finish decides the shortlist: it prunes to k (fewer exact products),
// computes each candidate's exact product of query against x's rows, and
// writes the k best into index and sim (exact product descending, then
// row ascending), leaving the slots it has no candidate for untouched.
func (s *Shortlist) Finish(k int, margin float64, query []float32, x *Matrix, index []int32, sim []float32) {
	if len(s.c) > k {
		s.Prune(k, margin)
	}
	for ci := range s.c {
		s.c[ci].e = dot64(query, x.Row(int(s.c[ci].j)))
	}
	slices.SortFunc(s.c, func(a, b candidate) int {
		if a.e != b.e {
			if a.e > b.e {
				return -1
			}
			return 1
		}
		return int(a.j - b.j)
	})
	for r := 0; r < k && r < len(s.c); r++ {
		index[r] = s.c[r].j
		sim[r] = float32(s.c[r].e)
	}
}
