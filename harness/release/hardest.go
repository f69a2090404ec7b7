package release

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Hardest takes the q.Hardest hardest items of each group of the pool (the
// items' capability group, task or benchmark, as q.Per says; group by
// default), one item per video over the whole release (Video-Index 5.3:
// "210 per capability group and one per video, ranked by their maximum
// percentile over the five attacker margins"). Items are ranked by
// Hardness, lower first, ties by a seeded hash of their key. Groups take
// turns, one item each, in name order, so that no group takes a shared
// video just because its name sorts first. keep and exclude are as for
// Select; a group that runs out of items of unused videos ends short, and
// the selection says which.
func Hardest(p *Pool, q Query, seed uint64, keep []int, exclude []bool) (*Selection, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	if q.Hardest <= 0 {
		return nil, fmt.Errorf("hardest: no count")
	}
	if err := q.checkSources(p); err != nil {
		return nil, err
	}
	per := q.Per
	if per == "" {
		per = PerGroup
	}
	groupOf := func(c *Candidate) string {
		switch per {
		case PerTask:
			return c.Item.Task
		case PerBenchmark:
			return c.Item.Benchmark
		}
		return c.Item.Group
	}
	sel := &Selection{Caps: Caps{PerVideo: 1}}
	picked := make([]bool, len(p.Candidates))
	videos := map[string]bool{}
	count := map[string]int{}
	for _, i := range keep {
		if i < 0 || i >= len(p.Candidates) || picked[i] {
			return nil, fmt.Errorf("hardest: kept item %d out of range or kept twice", i)
		}
		c := &p.Candidates[i]
		picked[i] = true
		videos[c.video()] = true
		count[groupOf(c)]++
		sel.Picks = append(sel.Picks, i)
	}
	lists := map[string][]int{}
	for i := range p.Candidates {
		c := &p.Candidates[i]
		if picked[i] || (exclude != nil && exclude[i]) || !q.admits(c) {
			continue
		}
		g := groupOf(c)
		lists[g] = append(lists[g], i)
	}
	for g := range count {
		if _, ok := lists[g]; !ok {
			lists[g] = nil
		}
	}
	// A group whose every item screening removed takes part with an empty
	// list, so the shortfall names it.
	for _, it := range p.Screened {
		c := &Candidate{Item: it}
		if !q.admits(c) {
			continue
		}
		if _, ok := lists[groupOf(c)]; !ok {
			lists[groupOf(c)] = nil
		}
	}
	var all []int
	for _, l := range lists {
		all = append(all, l...)
	}
	ranks := itemRanks(p, all, seed, "hardest")
	groups := make([]string, 0, len(lists))
	for g, l := range lists {
		groups = append(groups, g)
		slices.SortFunc(l, func(a, b int) int {
			if c := cmp.Or(cmp.Compare(p.hardness[a], p.hardness[b]), cmp.Compare(ranks[a], ranks[b])); c != 0 {
				return c
			}
			return strings.Compare(p.Candidates[a].Item.Key(), p.Candidates[b].Item.Key())
		})
	}
	slices.Sort(groups)
	cursor := map[string]int{}
	for {
		took := false
		for _, g := range groups {
			if count[g] >= q.Hardest {
				continue
			}
			l := lists[g]
			for cursor[g] < len(l) {
				i := l[cursor[g]]
				cursor[g]++
				if videos[p.Candidates[i].video()] {
					continue
				}
				picked[i] = true
				videos[p.Candidates[i].video()] = true
				count[g]++
				sel.Picks = append(sel.Picks, i)
				took = true
				break
			}
		}
		if !took {
			break
		}
	}
	var short []string
	for _, g := range groups {
		if count[g] < q.Hardest {
			short = append(short, fmt.Sprintf("%s %s: %d of %d", per, groupName(g), count[g], q.Hardest))
		}
	}
	if len(short) > 0 {
		sel.Shortfall = "the pool holds too few items of unused videos: " + strings.Join(short, "; ")
	}
	return sel, nil
}

// groupName shows an empty group as such.
func groupName(g string) string {
	if g == "" {
		return "(none)"
	}
	return g
}
