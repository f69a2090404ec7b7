package harness

import (
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
}

// Sample draws at most n items per benchmark, as Video-Index audits n = 300
// questions per benchmark "preserving subtask proportions and keeping every
// question when fewer are available" (002, section 3.1). The n places of a
// benchmark are shared among its tasks in proportion to their sizes, then
// within each task among its groups, by largest remainders (ties to the
// larger stratum, then the name); each stratum keeps the items that rank
// first by a hash of (seed, item key). The draw depends only on the seed and
// the benchmark's own keys, tasks and groups, not on the file order or on
// other benchmarks. Items come back in their input order; infos lists the
// sampled benchmarks (those with more than n items) by name. n <= 0 keeps
// everything.
func Sample(items []*Item, n int, seed uint64) (kept []*Item, infos []SampleInfo) {
	if n <= 0 {
		return items, nil
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
		members := byBench[b]
		if len(members) <= n {
			for _, i := range members {
				keep[i] = true
			}
			continue
		}
		tasks := strata(items, members, func(it *Item) string { return it.Task })
		for t, quota := range allocate(tasks, n) {
			groups := strata(items, tasks[t].members, func(it *Item) string { return it.Group })
			for g, q := range allocate(groups, quota) {
				for _, i := range firstByHash(items, groups[g].members, q, seed) {
					keep[i] = true
				}
			}
		}
		infos = append(infos, SampleInfo{Benchmark: b, N: n, Of: len(members),
			Method: fmt.Sprintf("%d of %d items, stratified by task, then group (largest remainders), ranked by a hash of seed %d and the item key", n, len(members), seed)})
	}
	for i, it := range items {
		if keep[i] {
			kept = append(kept, it)
		}
	}
	return kept, infos
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

// firstByHash returns the q members that rank first by a hash of (seed,
// item key).
func firstByHash(items []*Item, members []int, q int, seed uint64) []int {
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
	out := make([]int, q)
	for k := range out {
		out[k] = rs[k].i
	}
	return out
}
