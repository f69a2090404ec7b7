// Package dups finds near-duplicate items within and across benchmarks
// (Video-Index 4.5): pairs whose question embeddings have a cosine of at
// least a threshold (001: "a question cosine similarity of at least 0.9
// under BGE-large, confirmed with MPNet"), clusters of them by union-find, and per benchmark the
// share of items with a near-duplicate, the pairs flowing to other benchmarks
// and the videos shared with them.
//
// Data moves one way: the run's items and their unit question embeddings
// (rows in item order; question+options rows work the same way for a caller
// that wants them) go in; a Result with every pair and every per-benchmark figure comes
// out. Results depend only on the inputs, never on the thread count.
package dups

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// DefaultThreshold is the cosine at or above which two items are near
// duplicates (docs/attackers.md, diversity and duplicates: BGE cosine >= 0.90).
const DefaultThreshold = 0.90

// A Pair is two near-duplicate items (indices into the run's items, A < B)
// and the cosine of their embeddings. ConfirmSim is their
// cosine under the confirming model (see Confirm), zero when none ran.
type Pair struct {
	A, B       int
	Sim        float32
	ConfirmSim float32
}

// A Flow counts what two benchmarks share. For near-duplicate pairs From <=
// To by name and From == To counts pairs within one benchmark; for videos it
// counts the items of From whose video To uses too.
type Flow struct {
	From, To string
	Count    int
}

// Benchmark holds the duplicate figures of one benchmark.
type Benchmark struct {
	Benchmark string
	N         int
	// WithinPairs counts near-duplicate pairs inside the benchmark.
	WithinPairs int
	// NearDuplicateShare is the share of its items with a near duplicate in
	// the same benchmark.
	NearDuplicateShare float64
	// Clusters is the number of near-duplicate clusters within the benchmark
	// (its items once every cluster is counted once): an upper bound on its
	// distinct questions.
	Clusters int
	// CrossItems counts its items with a near duplicate in another benchmark;
	// CrossPairs counts those pairs.
	CrossItems, CrossPairs int
	// SharedVideoItems counts its items whose video (by Result.VideosBy:
	// content when the videos were read, else the video id) appears in
	// another benchmark too: items, not distinct ids (Video-Index
	// 4.5: "a tenth of items use videos that appear in another benchmark").
	SharedVideoItems int
	// Unconfirmed counts the pairs touching the benchmark (within it or
	// across) that the confirming model rejected; zero when none ran.
	Unconfirmed int
}

// A Result is the near-duplicate analysis of a run.
type Result struct {
	Threshold float32
	// Pairs lists every near-duplicate pair, sorted by (A, B).
	Pairs []Pair
	// Cluster labels each item with the smallest item index of its cluster
	// over all benchmarks; ClusterSize is that cluster's size.
	Cluster     []int32
	ClusterSize []int32
	// WithinSize is the size of each item's cluster when only pairs inside
	// its own benchmark count: the weight 1/WithinSize[i] gives accuracy
	// weighted by inverse cluster size.
	WithinSize []int32
	// Benchmarks holds the per-benchmark figures, sorted by name.
	Benchmarks []Benchmark
	// Flows counts near-duplicate pairs between (and within) benchmarks;
	// Videos counts, for each ordered pair of benchmarks, the items of From
	// whose video To uses too. Both are sorted by (From, To) and hold only
	// nonzero counts.
	Flows  []Flow
	Videos []Flow
	// VideosBy says what identifies a video for Videos and
	// SharedVideoItems: VideosByID or VideosByContent (SharedVideos).
	VideosBy string
	// videoIdentity is the identity SharedVideos set, kept so that a
	// confirmation's summary counts shared videos alike.
	videoIdentity func(i int) string
	// Confirmed is true when a second model confirmed the pairs (Confirm):
	// Pairs then holds only those it confirmed, and Unconfirmed the pairs
	// the first model found and the second rejected, sorted by (A, B).
	Confirmed   bool
	Unconfirmed []Pair
}

// Find joins the rows of text (unit question embeddings, one per item, in
// item order) with themselves at cosine >= tau (DefaultThreshold
// when tau <= 0) and summarises the pairs per benchmark.
func Find(ctx context.Context, items []*harness.Item, text *kernels.Matrix, tau float32) (*Result, error) {
	return FindOpt(ctx, items, text, tau, kernels.Options{})
}

// FindOpt is Find with bounded kernel threads; the result does not depend on
// them.
func FindOpt(ctx context.Context, items []*harness.Item, text *kernels.Matrix, tau float32, opt kernels.Options) (*Result, error) {
	if text == nil || text.Rows != len(items) {
		rows := 0
		if text != nil {
			rows = text.Rows
		}
		return nil, fmt.Errorf("near duplicates: %d embedding rows for %d items", rows, len(items))
	}
	if tau <= 0 {
		tau = DefaultThreshold
	}
	return find(items, tau, func(emit func([]kernels.Pair) error) error {
		return kernels.ThresholdJoin(ctx, text, nil, tau, opt, emit)
	})
}

// FindRows is FindOpt over question embeddings read by tiles (from .npy
// files on disk: kernels.ThresholdJoinRows), so that the join over a whole
// pool holds two tiles of rows, not the matrix. Its result is FindOpt's.
func FindRows(ctx context.Context, items []*harness.Item, text kernels.RowReader, tau float32, opt kernels.Options) (*Result, error) {
	if rows, _ := text.Shape(); rows != len(items) {
		return nil, fmt.Errorf("near duplicates: %d embedding rows for %d items", rows, len(items))
	}
	if tau <= 0 {
		tau = DefaultThreshold
	}
	return find(items, tau, func(emit func([]kernels.Pair) error) error {
		return kernels.ThresholdJoinRows(ctx, text, nil, tau, 0, opt, emit)
	})
}

// find collects the pairs join emits, sorted by (A, B), and summarises them.
func find(items []*harness.Item, tau float32, join func(emit func([]kernels.Pair) error) error) (*Result, error) {
	res := &Result{Threshold: tau}
	err := join(func(ps []kernels.Pair) error {
		for _, p := range ps {
			a, b := int(p.I), int(p.J)
			if a > b {
				a, b = b, a
			}
			res.Pairs = append(res.Pairs, Pair{A: a, B: b, Sim: p.Sim})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("near duplicates: %w", err)
	}
	slices.SortFunc(res.Pairs, func(x, y Pair) int {
		if x.A != y.A {
			return x.A - y.A
		}
		return x.B - y.B
	})
	summarise(res, items)
	return res, nil
}

// summarise fills the clusters and the per-benchmark figures from res.Pairs.
func summarise(res *Result, items []*harness.Item) {
	n := len(items)
	all, within := kernels.NewUnionFind(n), kernels.NewUnionFind(n)
	withinDup := make([]bool, n)
	crossDup := make([]bool, n)
	names := benchmarkNames(items)
	at := make(map[string]int, len(names))
	for k, b := range names {
		at[b] = k
	}
	stats := make([]Benchmark, len(names))
	for k, b := range names {
		stats[k].Benchmark = b
	}
	for _, it := range items {
		stats[at[it.Benchmark]].N++
	}
	flows := map[[2]string]int{}
	for _, p := range res.Pairs {
		all.Union(p.A, p.B)
		ba, bb := items[p.A].Benchmark, items[p.B].Benchmark
		if ba == bb {
			within.Union(p.A, p.B)
			withinDup[p.A], withinDup[p.B] = true, true
			stats[at[ba]].WithinPairs++
		} else {
			crossDup[p.A], crossDup[p.B] = true, true
			stats[at[ba]].CrossPairs++
			stats[at[bb]].CrossPairs++
		}
		flows[flowKey(ba, bb)]++
	}
	res.Cluster = all.Labels()
	res.ClusterSize = all.Sizes()
	res.WithinSize = within.Sizes()
	wl := within.Labels()
	for i, it := range items {
		s := &stats[at[it.Benchmark]]
		if withinDup[i] {
			s.NearDuplicateShare++
		}
		if crossDup[i] {
			s.CrossItems++
		}
		if wl[i] == int32(i) {
			s.Clusters++
		}
	}
	for k := range stats {
		if stats[k].N > 0 {
			stats[k].NearDuplicateShare /= float64(stats[k].N)
		}
	}
	res.Benchmarks = stats
	res.Flows = sortedFlows(flows)
	identity := res.videoIdentity
	if identity == nil {
		identity = func(i int) string { return IDPrefix + items[i].Video }
	}
	res.countSharedVideos(items, identity)
}

func flowKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

func sortedFlows(m map[[2]string]int) []Flow {
	out := make([]Flow, 0, len(m))
	for k, c := range m {
		out = append(out, Flow{From: k[0], To: k[1], Count: c})
	}
	slices.SortFunc(out, func(x, y Flow) int {
		if c := strings.Compare(x.From, y.From); c != 0 {
			return c
		}
		return strings.Compare(x.To, y.To)
	})
	return out
}

func benchmarkNames(items []*harness.Item) []string {
	var names []string
	for _, it := range items {
		if !slices.Contains(names, it.Benchmark) {
			names = append(names, it.Benchmark)
		}
	}
	slices.Sort(names)
	return names
}

// ForBenchmark returns the figures of benchmark b, or false when no item of
// the run belongs to it.
func (r *Result) ForBenchmark(b string) (Benchmark, bool) {
	k, ok := slices.BinarySearchFunc(r.Benchmarks, b, func(x Benchmark, b string) int { return strings.Compare(x.Benchmark, b) })
	if !ok {
		return Benchmark{}, false
	}
	return r.Benchmarks[k], true
}
