package screen

import (
	"cmp"
	"math"

	"github.com/vidscreen/vidscreen/kernels"
)

// DuplicateCosine is the cosine of two items' question+options embeddings
// at which the funnel's duplicate steps call them duplicates when they are
// on the same video: above it within a benchmark, at or above it across
// benchmarks (the authors' pool/dedup.py, COS_DUP).
const DuplicateCosine = 0.90

// withinDuplicates is the funnel's first step: within each benchmark, the
// items on one video whose question+options cosine exceeds DuplicateCosine
// are joined (connected components), and each component keeps its smallest
// id (Video-Index 5.1, pool/dedup.py within_benchmark). Items without an
// embedding, or without a video, are never duplicates.
func withinDuplicates(rows []Row, text *kernels.Matrix) {
	groups := videoGroups(rows, func(r *Row) string { return r.Benchmark + "\x00" + r.VideoID }, func(r *Row) bool { return true })
	dsu := newDSU(len(rows))
	for _, g := range groups {
		for a := 0; a < len(g); a++ {
			for b := a + 1; b < len(g); b++ {
				if c, ok := cosine(text, &rows[g[a]], &rows[g[b]]); ok && c > DuplicateCosine {
					dsu.union(g[a], g[b])
				}
			}
		}
	}
	for _, comp := range dsu.components() {
		keep := comp[0]
		for _, i := range comp[1:] {
			if rows[i].ID < rows[keep].ID {
				keep = i
			}
		}
		for _, i := range comp {
			if i != keep {
				rows[i].RemovedBy, rows[i].DuplicateOf = StepDuplicate, rows[keep].ID
			}
		}
	}
}

// crossDuplicates is the funnel's last step: among the items every other
// step left, pairs of items of different benchmarks on one video with
// question+options cosine >= DuplicateCosine are joined (connected
// components), and each component keeps the item of the earliest benchmark
// in the run's order, ties by smallest id (pool/dedup.py cross_benchmark:
// the authors keep the benchmark with the earliest release year; the run's
// order of benchmarks stands in for it, docs/screen.md).
func crossDuplicates(rows []Row, text *kernels.Matrix) {
	rank := map[string]int{}
	for i := range rows {
		if _, ok := rank[rows[i].Benchmark]; !ok {
			rank[rows[i].Benchmark] = len(rank)
		}
	}
	groups := videoGroups(rows, func(r *Row) string { return r.VideoID }, func(r *Row) bool { return r.RemovedBy == "" && r.Pending == "" })
	dsu := newDSU(len(rows))
	for _, g := range groups {
		for a := 0; a < len(g); a++ {
			for b := a + 1; b < len(g); b++ {
				x, y := &rows[g[a]], &rows[g[b]]
				if x.Benchmark == y.Benchmark {
					continue
				}
				if c, ok := cosine(text, x, y); ok && c >= DuplicateCosine {
					dsu.union(g[a], g[b])
				}
			}
		}
	}
	for _, comp := range dsu.components() {
		keep := comp[0]
		for _, i := range comp[1:] {
			if cmp.Or(cmp.Compare(rank[rows[i].Benchmark], rank[rows[keep].Benchmark]), cmp.Compare(rows[i].ID, rows[keep].ID)) < 0 {
				keep = i
			}
		}
		for _, i := range comp {
			if i != keep {
				rows[i].RemovedBy, rows[i].DuplicateOf = StepCrossDuplicate, rows[keep].Benchmark+"/"+rows[keep].ID
			}
		}
	}
}

// videoGroups returns, in the order of their first member, the groups of
// two or more rows (those in) that share key; rows without a video are in
// none.
func videoGroups(rows []Row, key func(*Row) string, in func(*Row) bool) [][]int {
	at := map[string]int{}
	var groups [][]int
	for i := range rows {
		r := &rows[i]
		if r.VideoID == "" || !in(r) {
			continue
		}
		k := key(r)
		g, ok := at[k]
		if !ok {
			g = len(groups)
			at[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g) >= 2 {
			out = append(out, g)
		}
	}
	return out
}

// cosine returns the cosine of the embedding rows of x and y; false when
// either has none (no row, or a row of zeros: the run had no text for it).
func cosine(m *kernels.Matrix, x, y *Row) (float64, bool) {
	if m == nil || x.Embedding < 0 || y.Embedding < 0 || int(x.Embedding) >= m.Rows || int(y.Embedding) >= m.Rows {
		return 0, false
	}
	a, b := m.Row(int(x.Embedding)), m.Row(int(y.Embedding))
	var dot, na, nb float64
	for j := range a {
		dot += float64(a[j]) * float64(b[j])
		na += float64(a[j]) * float64(a[j])
		nb += float64(b[j]) * float64(b[j])
	}
	if na == 0 || nb == 0 {
		return 0, false
	}
	return dot / math.Sqrt(na*nb), true
}

// A dsu is a union-find over row indices.
type dsu struct{ parent []int }

func newDSU(n int) *dsu {
	d := &dsu{parent: make([]int, n)}
	for i := range d.parent {
		d.parent[i] = i
	}
	return d
}

func (d *dsu) find(x int) int {
	for d.parent[x] != x {
		d.parent[x] = d.parent[d.parent[x]]
		x = d.parent[x]
	}
	return x
}

func (d *dsu) union(a, b int) {
	ra, rb := d.find(a), d.find(b)
	if ra != rb {
		d.parent[max(ra, rb)] = min(ra, rb)
	}
}

// components returns the components of two or more members, each in row
// order, in the order of their first member.
func (d *dsu) components() [][]int {
	at := map[int]int{}
	var out [][]int
	for i := range d.parent {
		r := d.find(i)
		k, ok := at[r]
		if !ok {
			k = len(out)
			at[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	res := out[:0]
	for _, c := range out {
		if len(c) >= 2 {
			res = append(res, c)
		}
	}
	return res
}
