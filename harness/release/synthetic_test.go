package release

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// authorsSynthetic is the pool of the authors' tests/test_pool_select.py
// (synthetic): 8 benchmarks over 900 videos of 2 to 4 items, lengths drawn
// from 5, 20, 45, 100, 400, 1000 and 3000 s, every fifth video of a run of
// fifty in one scene, task t0..t4 (none for B7), B0's questions of one
// template ("How many times does the person jump in clip N?"), the rest six
// random words; about a tenth of the items screened out (left out here).
func authorsSynthetic(t testing.TB) *Pool {
	rng := rand.New(rand.NewPCG(5, 5))
	words := strings.Fields("what why when where who which how does is the a person object colour moves before after left right")
	durs := []float64{5, 20, 45, 100, 400, 1000, 3000}
	var cs []cand
	for v := range 900 {
		bench := fmt.Sprintf("B%d", v%8)
		dur := durs[rng.IntN(len(durs))]
		scene := fmt.Sprint("c", v)
		if v%5 == 0 {
			scene = fmt.Sprint("c", v-v%50)
		}
		for j := range 2 + rng.IntN(3) {
			q := fmt.Sprintf("How many times does the person jump in clip %d?", v)
			if bench != "B0" {
				var w []string
				for range 6 {
					w = append(w, words[rng.IntN(len(words))])
				}
				q = strings.Join(w, " ") + "?"
			}
			task := fmt.Sprintf("task%d", (v+j)%5)
			if bench == "B7" {
				task = ""
			}
			if rng.Float64() < 0.1 {
				continue // removed by screening
			}
			cs = append(cs, cand{id: fmt.Sprintf("%s_%04d_%d", bench, v, j), source: bench, video: fmt.Sprintf("v%04d", v),
				task: task, scene: scene, question: q, dur: dur, margin: rng.NormFloat64()})
		}
	}
	return testPool(t, cs)
}

// The properties the authors' test_selection_rules asserts of their
// select(), on their synthetic pool, with a budget of 300.
func TestSelectKeepsTheAuthorsSelectionRules(t *testing.T) {
	t.Parallel()
	p := authorsSynthetic(t)
	const budget = 300
	sel, err := Select(p, Query{Budget: budget}, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Picks) != budget || sel.Shortfall != "" {
		t.Fatalf("%d picks, shortfall %q; want %d", len(sel.Picks), sel.Shortfall, budget)
	}
	// The per-source cap: 5% of 300 is 15 items, unless a group lifted it.
	perSource, perVideo, perGroup := map[string]int{}, map[string]int{}, map[string]int{}
	pairs := map[string]bool{}
	for _, i := range sel.Picks {
		it := p.Candidates[i].Item
		perSource[it.Benchmark]++
		perVideo[it.Video]++
		perGroup[DurationGroup(it)]++
		pairs[it.Benchmark+"/"+it.Task] = true
	}
	lifted := false
	for _, g := range sel.Caps.Groups {
		lifted = lifted || g.SourceExempt
	}
	for s, n := range perSource {
		if n > 15 && !lifted {
			t.Errorf("%s holds %d items over the cap of 15 and no group lifted it", s, n)
		}
	}
	// The video cap: one item per video, up to three in a scarce cell (a
	// cell under its share: 300 / 7 groups / the group's cells).
	cells, cellsOf := map[cellKey]int{}, map[string]map[string]bool{}
	for i := range p.Candidates {
		k := cellKey{DurationGroup(p.Candidates[i].Item), p.Candidates[i].Item.Task}
		cells[k]++
		if cellsOf[k.group] == nil {
			cellsOf[k.group] = map[string]bool{}
		}
		cellsOf[k.group][k.event] = true
	}
	for _, i := range sel.Picks {
		it := p.Candidates[i].Item
		k := cellKey{DurationGroup(it), it.Task}
		scarce := float64(cells[k]) < budget/7.0/float64(len(cellsOf[k.group]))
		if n := perVideo[it.Video]; n > 3 || n > 1 && !scarce {
			t.Errorf("video %s gives %d items (scarce cell: %v)", it.Video, n, scarce)
		}
	}
	// The coverage pass: every (source, task) pair is represented.
	for i := range p.Candidates {
		it := p.Candidates[i].Item
		if !pairs[it.Benchmark+"/"+it.Task] {
			t.Errorf("pair %s/%q has no item", it.Benchmark, it.Task)
		}
	}
	// Every duration group is represented, and the groups are balanced.
	counts := slices.Collect(func(yield func(int) bool) {
		for _, n := range perGroup {
			if !yield(n) {
				return
			}
		}
	})
	if len(counts) != 7 || slices.Max(counts)-slices.Min(counts) > budget/7/2 {
		t.Errorf("per duration group %v: want all seven within %d of each other", perGroup, budget/7/2)
	}
	// Deterministic.
	again, err := Select(p, Query{Budget: budget}, 1, nil, nil)
	if err != nil || !slices.Equal(again.Picks, sel.Picks) {
		t.Error("the same seed gave another selection")
	}
	// A budget above the supply stops when nothing is admissible.
	small := testPool(t, func() []cand {
		var cs []cand
		for i := range 50 {
			it := p.Candidates[i].Item
			cs = append(cs, cand{id: it.ID, source: it.Benchmark, video: it.Video, task: it.Task, scene: p.Candidates[i].Scene,
				question: it.Question, dur: *it.Duration, margin: p.Candidates[i].Verdicts[0].Margin})
		}
		return cs
	}())
	short, err := Select(small, Query{Budget: 1000}, 1, nil, nil)
	if err != nil || len(short.Picks) == 0 || len(short.Picks) > 50 || short.Shortfall == "" {
		t.Errorf("50 items for a budget of 1000: %d picks, shortfall %q, %v", len(short.Picks), short.Shortfall, err)
	}
}

// The authors' test_template_cap: B0's questions are one template, so
// outside scarce cells a duration group takes at most its template cap of
// them, plus the coverage pass's items (at most one per pair, ten pairs).
func TestSelectCapsTheAuthorsOneTemplateBenchmark(t *testing.T) {
	t.Parallel()
	all := authorsSynthetic(t)
	var cs []cand
	for i := range all.Candidates {
		c := &all.Candidates[i]
		if it := c.Item; it.Benchmark == "B0" || it.Benchmark == "B1" {
			cs = append(cs, cand{id: it.ID, source: it.Benchmark, video: it.Video, task: it.Task, scene: c.Scene,
				question: it.Question, dur: *it.Duration, margin: c.Verdicts[0].Margin})
		}
	}
	p := testPool(t, cs)
	caps := DefaultCaps()
	caps.SourceShare = 1
	sel, err := Select(p, Query{Budget: 70, Caps: &caps}, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cells, cellsOf := map[cellKey]int{}, map[string]map[string]bool{}
	for i := range p.Candidates {
		k := cellKey{DurationGroup(p.Candidates[i].Item), p.Candidates[i].Item.Task}
		cells[k]++
		if cellsOf[k.group] == nil {
			cellsOf[k.group] = map[string]bool{}
		}
		cellsOf[k.group][k.event] = true
	}
	b0 := map[string]int{}
	for _, i := range sel.Picks {
		it := p.Candidates[i].Item
		k := cellKey{DurationGroup(it), it.Task}
		if it.Benchmark == "B0" && float64(cells[k]) >= 70/float64(len(cellsOf))/float64(len(cellsOf[k.group])) {
			b0[k.group]++
		}
	}
	if len(b0) == 0 {
		t.Fatal("no B0 item outside a scarce cell: the case tests nothing")
	}
	for g, n := range b0 {
		capOf := caps.PerTemplate
		if gc, ok := sel.Caps.Groups[g]; ok {
			capOf = gc.PerTemplate
		}
		if n > capOf+10 {
			t.Errorf("duration group %s takes %d B0 items outside scarce cells, over its template cap %d and the coverage pass", g, n, capOf)
		}
	}
}
