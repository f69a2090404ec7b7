package dups

import (
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// Confirm returns res with only the pairs that a second model also finds
// near-duplicate: those whose rows of second (unit question
// embeddings by that model, one row per item in item order) have a cosine of
// at least res.Threshold. docs/attackers.md (diversity and duplicates) confirms BGE's
// pairs with MPNet so that one model's blind spots, such as a shared
// template that dominates its embedding, do not merge distinct questions.
// Only the rows of items in some pair of res are read; the others may be
// left zero, so a caller embeds just those items. Clusters and per-benchmark
// figures are recomputed from the confirmed pairs; the rejected ones are
// kept in Unconfirmed and counted per benchmark. res is not modified.
func Confirm(items []*harness.Item, res *Result, second *kernels.Matrix) (*Result, error) {
	if res == nil {
		return nil, fmt.Errorf("confirm near duplicates: no pairs to confirm")
	}
	if second == nil || second.Rows != len(items) {
		rows := 0
		if second != nil {
			rows = second.Rows
		}
		return nil, fmt.Errorf("confirm near duplicates: %d embedding rows for %d items", rows, len(items))
	}
	return confirm(items, res, second.Row)
}

// ConfirmPairs is Confirm with the second model's rows of the paired items
// only: row j of second is that of item idx[j], idx being PairItems(res,
// len(items)). A pool's confirmation then holds the rows of its pairs, not
// a matrix of every item.
func ConfirmPairs(items []*harness.Item, res *Result, idx []int, second *kernels.Matrix) (*Result, error) {
	if res == nil {
		return nil, fmt.Errorf("confirm near duplicates: no pairs to confirm")
	}
	if second == nil || second.Rows != len(idx) {
		return nil, fmt.Errorf("confirm near duplicates: embedding rows for %d items, %d given", len(idx), rowsOf(second))
	}
	at := make(map[int]int, len(idx))
	for j, i := range idx {
		at[i] = j
	}
	var missing error
	row := func(i int) []float32 {
		j, ok := at[i]
		if !ok {
			missing = fmt.Errorf("confirm near duplicates: item %d is in a pair but has no row", i)
			return make([]float32, second.Cols)
		}
		return second.Row(j)
	}
	out, err := confirm(items, res, row)
	if err == nil {
		err = missing
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func rowsOf(m *kernels.Matrix) int {
	if m == nil {
		return 0
	}
	return m.Rows
}

// confirm keeps the pairs of res whose rows under the second model (row(i)
// for item i) have a cosine of at least res.Threshold.
func confirm(items []*harness.Item, res *Result, row func(int) []float32) (*Result, error) {
	out := &Result{Threshold: res.Threshold, Confirmed: true, VideosBy: res.VideosBy, videoIdentity: res.videoIdentity}
	for _, p := range res.Pairs {
		if p.A < 0 || p.B >= len(items) || p.A >= p.B {
			return nil, fmt.Errorf("confirm near duplicates: bad pair (%d, %d) for %d items", p.A, p.B, len(items))
		}
		p.ConfirmSim = cosine(row(p.A), row(p.B))
		if p.ConfirmSim >= res.Threshold {
			out.Pairs = append(out.Pairs, p)
		} else {
			out.Unconfirmed = append(out.Unconfirmed, p)
		}
	}
	summarise(out, items)
	names := benchmarkNames(items)
	at := make(map[string]int, len(names))
	for k, b := range names {
		at[b] = k
	}
	for _, p := range out.Unconfirmed {
		ba, bb := items[p.A].Benchmark, items[p.B].Benchmark
		out.Benchmarks[at[ba]].Unconfirmed++
		if bb != ba {
			out.Benchmarks[at[bb]].Unconfirmed++
		}
	}
	return out, nil
}

// PairItems returns, in increasing order, the items that belong to some pair
// of res: the rows Confirm reads.
func PairItems(res *Result, n int) []int {
	in := make([]bool, n)
	for _, p := range res.Pairs {
		in[p.A], in[p.B] = true, true
	}
	var out []int
	for i, ok := range in {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// cosine is the inner product of two unit rows, summed in float64 in a
// fixed order so that it is the same on every machine and thread count.
func cosine(x, y []float32) float32 {
	var s float64
	for k := range x {
		s += float64(x[k]) * float64(y[k])
	}
	return float32(math.Max(-1, math.Min(1, s)))
}
