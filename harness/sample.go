package harness

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
)

// A SampleInfo says how the items of one benchmark were drawn by Sample.
type SampleInfo struct {
	Benchmark string
	N, Of     int
	Method    string
	// Duplicates counts the drawn items that were near-duplicates of
	// another drawn item (SampleDuplicate) and left the sample; Refilled
	// how many of them were replaced from the unsampled items (the rest
	// could not be: the benchmark ran out of distinct items).
	Duplicates, Refilled int
}

// SampleCosine is the question cosine at or above which two items of one
// benchmark on one video with the same option set and answer are one
// near-duplicate group for the sample (the authors' duplicate rule, blog
// 001: "within each benchmark we keep one item per near-duplicate group").
const SampleCosine = 0.90

// SampleRule describes the sample's near-duplicate rule, for config.json.
const SampleRule = "one item per near-duplicate group (same video, same option set and answer, question cosine >= 0.90; the smallest id stays), refilled from the unsampled items of the same task and group, then of the benchmark, skipping near-duplicates of kept items"

// DedupRule describes the duplicate rule run before every audit (with or
// without a sample), for config.json: the authors' audit/screen.py guard
// and threshold with their text normalisation and id order.
const DedupRule = "duplicates removed before the audit: one item per group of items of one benchmark with the same video id and clip, the same option set and gold option (letter prefix cut, scoring.py norm_text) and question cosine >= 0.90; connected groups, the smallest id in plain string order stays (Video-Index audit/screen.py)"

// A QuestionEmbedder returns unit embeddings of questions of one benchmark,
// one row per question in the order given; Sample asks it only for the
// questions of items that share a video, an option set and an answer with
// another item of their benchmark.
type QuestionEmbedder func(ctx context.Context, benchmark string, questions []string) ([][]float32, error)

// Sample draws at most n items per benchmark, as Video-Index audits n = 300
// questions per benchmark "preserving subtask proportions and keeping every
// question when fewer are available" (002, section 3.1). The n places of a
// benchmark are shared among its tasks in proportion to their sizes, then
// within each task among its groups, by largest remainders (ties to the
// larger stratum, then the name); each stratum keeps the items that rank
// first by a hash of (seed, item key). The draw depends only on the seed and
// the benchmark's own keys, tasks and groups, not on the file order or on
// other benchmarks. n <= 0 draws every item.
//
// With embed, the sample then keeps one item per near-duplicate group (blog
// 001: "within each benchmark we keep one item per near-duplicate group,
// refill to 300 where possible, and screen the replacements"): two items
// are near-duplicates when they share their video and clip, their option
// set and their gold option text, both compared as DuplicateText (the
// authors' prefix cut and norm_text), and their questions have cosine >=
// SampleCosine under embed (the authors' audit/screen.py); groups are
// connected components and the smallest id in plain string order stays
// (their members.sort() on string ids: "10" before "9"). This runs with
// n <= 0 too (paper 002, 3.1: duplicates leave before the audit, not only
// from a sample; DedupRule), each benchmark whole. Each item that leaves is
// replaced by the next unsampled item of its task and group in the hash
// order, else of its benchmark's other strata in name order, skipping a
// candidate that is a near-duplicate of a kept item; replacements are
// attacked and screened as every other item. Benchmarks with n items or
// fewer are deduplicated too and cannot refill. Items come back in their
// input order; infos lists the sampled benchmarks (those with more than n
// items when n > 0, or with a near-duplicate) by name.
func Sample(ctx context.Context, items []*Item, n int, seed uint64, embed QuestionEmbedder) (kept []*Item, infos []SampleInfo, err error) {
	if n <= 0 && embed == nil {
		return items, nil, nil
	}
	byBench := map[string][]int{}
	var names []string
	for i, it := range items {
		if _, ok := byBench[it.Benchmark]; !ok {
			names = append(names, it.Benchmark)
		}
		byBench[it.Benchmark] = append(byBench[it.Benchmark], i)
	}
	slices.Sort(names)
	keep := make([]bool, len(items))
	for _, b := range names {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		members := byBench[b]
		// rest holds each stratum's unsampled items in hash order.
		var rest [][]int
		drawn := 0
		whole := n <= 0 || len(members) <= n
		if whole {
			for _, i := range members {
				keep[i] = true
			}
			drawn = len(members)
		} else {
			tasks := strata(items, members, func(it *Item) string { return it.Task })
			for t, quota := range allocate(tasks, n) {
				groups := strata(items, tasks[t].members, func(it *Item) string { return it.Group })
				for g, q := range allocate(groups, quota) {
					ranked := rankByHash(items, groups[g].members, seed)
					for _, i := range ranked[:q] {
						keep[i] = true
					}
					drawn += q
					rest = append(rest, ranked[q:])
				}
			}
		}
		info := SampleInfo{Benchmark: b, N: n, Of: len(members)}
		if embed != nil {
			d, err := newSampleDups(ctx, items, members, embed)
			if err != nil {
				return nil, nil, fmt.Errorf("sample %s: %w", b, err)
			}
			info.Duplicates, info.Refilled = d.dedup(items, members, keep, rest)
		}
		if whole && info.Duplicates == 0 {
			continue
		}
		info.N = drawn - info.Duplicates + info.Refilled
		if !whole {
			info.Method = fmt.Sprintf("%d of %d items, stratified by task, then group (largest remainders), ranked by a hash of seed %d and the item key", info.N, len(members), seed)
		} else {
			info.Method = fmt.Sprintf("every item but duplicates: %d of %d", info.N, len(members))
		}
		if embed != nil {
			info.Method += fmt.Sprintf("; %d duplicates removed before the audit (same video, options and answer, question cosine >= %.2f), %d replaced", info.Duplicates, SampleCosine, info.Refilled)
		}
		infos = append(infos, info)
	}
	for i, it := range items {
		if keep[i] {
			kept = append(kept, it)
		}
	}
	return kept, infos, nil
}

// sampleDups knows, for the items of one benchmark, which are
// near-duplicates: rows holds the unit question embedding of each item
// that shares its duplicate key with another, and byKey the items of each
// such key.
type sampleDups struct {
	key   map[int]string
	byKey map[string][]int
	rows  map[int][]float32
}

func newSampleDups(ctx context.Context, items []*Item, members []int, embed QuestionEmbedder) (*sampleDups, error) {
	d := &sampleDups{key: map[int]string{}, byKey: map[string][]int{}, rows: map[int][]float32{}}
	keys := make([]string, len(members))
	for x, i := range members {
		keys[x] = dupKey(items[i])
		d.byKey[keys[x]] = append(d.byKey[keys[x]], i)
	}
	var ask []int
	for x, i := range members {
		k := keys[x]
		if len(d.byKey[k]) > 1 {
			d.key[i] = k
			ask = append(ask, i)
		}
	}
	if len(ask) == 0 {
		return d, nil
	}
	qs := make([]string, len(ask))
	for j, i := range ask {
		qs[j] = items[i].Question
	}
	rows, err := embed(ctx, items[ask[0]].Benchmark, qs)
	if err != nil {
		return nil, fmt.Errorf("embed questions: %w", err)
	}
	if len(rows) != len(ask) {
		return nil, fmt.Errorf("embed questions: %d rows for %d questions", len(rows), len(ask))
	}
	for j, i := range ask {
		d.rows[i] = rows[j]
	}
	return d, nil
}

// near reports whether items i and j are near-duplicates.
func (d *sampleDups) near(i, j int) bool {
	ki, ok := d.key[i]
	if !ok || ki != d.key[j] {
		return false
	}
	a, b := d.rows[i], d.rows[j]
	if len(a) != len(b) {
		return false
	}
	var dot float64
	for k := range a {
		dot += float64(a[k]) * float64(b[k])
	}
	return dot >= SampleCosine
}

// dedup keeps one item of each near-duplicate group among the kept members
// (the smallest id) and refills from rest; it returns how many left and how
// many were replaced.
func (d *sampleDups) dedup(items []*Item, members []int, keep []bool, rest [][]int) (left, refilled int) {
	var drawn []int
	for _, i := range members {
		if keep[i] {
			drawn = append(drawn, i)
		}
	}
	slices.SortFunc(drawn, func(a, b int) int { return strings.Compare(items[a].ID, items[b].ID) })
	// Connected components over the drawn items, each led by its smallest
	// id: an item joins the component of every earlier item it is near.
	leader := map[int]int{}
	var find func(i int) int
	find = func(i int) int {
		for leader[i] != i {
			leader[i] = leader[leader[i]]
			i = leader[i]
		}
		return i
	}
	at := make(map[int]int, len(drawn)) // position in drawn
	for x, i := range drawn {
		leader[i] = i
		at[i] = x
	}
	for x, i := range drawn {
		k, ok := d.key[i]
		if !ok {
			continue
		}
		// Only items of the same key can be near: comparing each with
		// every earlier item would be quadratic in the benchmark, which
		// every audit now deduplicates whole.
		for _, j := range d.byKey[k] {
			if y, ok := at[j]; !ok || y >= x {
				continue
			}
			if d.near(i, j) {
				ri, rj := find(i), find(j)
				if ri != rj {
					// The root with the smaller id leads (drawn is sorted by id).
					if items[ri].ID < items[rj].ID {
						leader[rj] = ri
					} else {
						leader[ri] = rj
					}
				}
			}
		}
	}
	var gone []int
	for _, i := range drawn {
		if find(i) != i {
			keep[i] = false
			gone = append(gone, i)
		}
	}
	// The stratum of each unsampled item, to refill from the leaving item's
	// own stratum first.
	stratumOf := map[[2]string]int{}
	for s, r := range rest {
		if len(r) > 0 {
			stratumOf[[2]string{items[r[0]].Task, items[r[0]].Group}] = s
		}
	}
	next := make([]int, len(rest))
	duplicatesKept := func(c int) bool {
		k, ok := d.key[c]
		if !ok {
			return false
		}
		for _, j := range d.byKey[k] {
			if j != c && keep[j] && d.near(c, j) {
				return true
			}
		}
		return false
	}
	take := func(s int) bool {
		for next[s] < len(rest[s]) {
			c := rest[s][next[s]]
			next[s]++
			if !duplicatesKept(c) {
				keep[c] = true
				return true
			}
		}
		return false
	}
	for _, i := range gone {
		s, ok := stratumOf[[2]string{items[i].Task, items[i].Group}]
		if ok && take(s) {
			refilled++
			continue
		}
		for o := range rest {
			if take(o) {
				refilled++
				break
			}
		}
	}
	return len(gone), refilled
}

// A stratum is the members sharing one value of a field.
type stratum struct {
	name    string
	members []int
}

func strata(items []*Item, members []int, key func(*Item) string) []stratum {
	at := map[string]int{}
	var out []stratum
	for _, i := range members {
		k := key(items[i])
		s, ok := at[k]
		if !ok {
			s = len(out)
			at[k] = s
			out = append(out, stratum{name: k})
		}
		out[s].members = append(out[s].members, i)
	}
	slices.SortFunc(out, func(a, b stratum) int { return strings.Compare(a.name, b.name) })
	return out
}

// allocate shares n places among strata in proportion to their sizes by
// largest remainders (Hamilton's method); no stratum gets more places than
// it has members.
func allocate(ss []stratum, n int) []int {
	total := 0
	for _, s := range ss {
		total += len(s.members)
	}
	out := make([]int, len(ss))
	if total <= n {
		for k, s := range ss {
			out[k] = len(s.members)
		}
		return out
	}
	type rem struct {
		k    int
		frac int // remainder numerator over total
	}
	rems := make([]rem, len(ss))
	given := 0
	for k, s := range ss {
		q := len(s.members) * n
		out[k] = q / total
		given += out[k]
		rems[k] = rem{k, q % total}
	}
	slices.SortStableFunc(rems, func(a, b rem) int {
		if a.frac != b.frac {
			return b.frac - a.frac
		}
		return len(ss[b.k].members) - len(ss[a.k].members)
	})
	for _, r := range rems {
		if given == n {
			break
		}
		out[r.k]++
		given++
	}
	return out
}

// rankByHash returns members ranked by a hash of (seed, item key), ties by
// the key.
func rankByHash(items []*Item, members []int, seed uint64) []int {
	type ranked struct {
		h uint64
		i int
	}
	rs := make([]ranked, len(members))
	for k, i := range members {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d\x00%s", seed, items[i].Key())
		rs[k] = ranked{h.Sum64(), i}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		switch {
		case a.h < b.h:
			return -1
		case a.h > b.h:
			return 1
		}
		return strings.Compare(items[a.i].Key(), items[b.i].Key())
	})
	out := make([]int, len(rs))
	for k := range out {
		out[k] = rs[k].i
	}
	return out
}
