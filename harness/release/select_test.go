package release

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

func noCaps() *Caps { return &Caps{PerVideo: 1, PerScene: 1, PerTemplate: 5, SourceShare: 1} }

// The cases are worked by hand through the rules of Video-Index's
// pool/select.py (eligible and select): the preference order, the caps,
// the coverage pass, the scarce cells and the relaxation ladder.
func TestSelectHandWorked(t *testing.T) {
	t.Parallel()
	jump := func(n int) string { return fmt.Sprintf("How many times does the man jump in clip %d?", n) }
	tests := []struct {
		name  string
		pool  []cand
		query Query
		// want is the set of selected ids; order, when set, the picks in
		// the order they were taken.
		want, order []string
		// relaxed lists the caps relaxed, in order, with their new values.
		relaxed   [][2]string
		shortfall bool
	}{
		{
			name: "one item per video keeps the harder of two items on one video",
			pool: []cand{
				{id: "a1", source: "A", video: "v1", task: "t", dur: 5, margin: 0.9},
				{id: "a2", source: "A", video: "v1", task: "t", dur: 5, margin: 0.1},
				{id: "a3", source: "A", video: "v2", task: "t", dur: 5, margin: 0.5},
			},
			query: Query{Budget: 2, Caps: noCaps()},
			order: []string{"a2", "a3"},
		},
		{
			// The coverage pass takes the hardest item of the pair (t1);
			// the round-robin then takes u1, whose template no other item
			// has, before t2 and t3, which share one (tgroup 3).
			name: "a less templated question goes before a harder templated one",
			pool: []cand{
				{id: "t1", source: "A", video: "v1", task: "t", dur: 5, question: jump(1), margin: 0},
				{id: "t2", source: "A", video: "v2", task: "t", dur: 5, question: jump(2), margin: 0.1},
				{id: "t3", source: "A", video: "v3", task: "t", dur: 5, question: jump(3), margin: 0.2},
				{id: "u1", source: "A", video: "v4", task: "t", dur: 5, margin: 5},
			},
			query: Query{Budget: 2, Caps: noCaps()},
			order: []string{"t1", "u1"},
		},
		{
			// s1 (coverage), s3 (s2 waits: kitchen has given its one
			// video), then nothing: the group relaxes its scene cap to 2
			// and s2 comes back.
			name: "two videos of one scene count as one until the scene cap is relaxed",
			pool: []cand{
				{id: "s1", source: "A", video: "v1", scene: "kitchen", task: "t", dur: 5, margin: 0},
				{id: "s2", source: "A", video: "v2", scene: "kitchen", task: "t", dur: 5, margin: 1},
				{id: "s3", source: "A", video: "v3", scene: "garden", task: "t", dur: 5, margin: 2},
			},
			query:   Query{Budget: 3, Caps: noCaps()},
			order:   []string{"s1", "s3", "s2"},
			relaxed: [][2]string{{capScene, "2"}},
		},
		{
			// Seven questions of one template (the numbers are <NUM>): five
			// pass, then the ladder raises the scene cap to 4 (which holds
			// nothing back) and doubles the template cap.
			name: "the sixth item of one template waits for the template cap to double",
			pool: func() []cand {
				cs := many("A", "t", 7, 5)
				for i := range cs {
					cs[i].question = jump(i)
				}
				return cs
			}(),
			query:   Query{Budget: 6, Caps: noCaps()},
			order:   []string{"A-t-0", "A-t-1", "A-t-2", "A-t-3", "A-t-4", "A-t-5"},
			relaxed: [][2]string{{capScene, "2"}, {capScene, "3"}, {capScene, "4"}, {capTemplate, "10"}},
		},
		{
			// Six videos of one scene: the scene cap rises to j_max = 4,
			// the template cap doubles (nothing waits on it), and with one
			// source there is no source cap to lift: the group is done.
			name: "the scene cap rises to its bound and no further",
			pool: func() []cand {
				cs := many("A", "t", 6, 5)
				for i := range cs {
					cs[i].scene = "one"
				}
				return cs
			}(),
			query:     Query{Budget: 6, Caps: noCaps()},
			order:     []string{"A-t-0", "A-t-1", "A-t-2", "A-t-3"},
			relaxed:   [][2]string{{capScene, "2"}, {capScene, "3"}, {capScene, "4"}, {capTemplate, "10"}},
			shortfall: true,
		},
		{
			// The cell holds 2 items against a share of 5: scarce, so one
			// video gives up to 3 items.
			name: "a scarce cell takes up to three items of one video",
			pool: []cand{
				{id: "a1", source: "A", video: "v1", task: "t", dur: 5, margin: 0},
				{id: "a2", source: "A", video: "v1", task: "t", dur: 5, margin: 1},
			},
			query:     Query{Budget: 5, Caps: noCaps()},
			order:     []string{"a1", "a2"},
			shortfall: true,
		},
		{
			// Five items on one video against a share of 5: not scarce, and
			// the video cap is never relaxed.
			name: "outside a scarce cell one video gives one item",
			pool: []cand{
				{id: "a1", source: "A", video: "v1", task: "t", dur: 5, margin: 0},
				{id: "a2", source: "A", video: "v1", task: "t", dur: 5, margin: 1},
				{id: "a3", source: "A", video: "v1", task: "t", dur: 5, margin: 2},
				{id: "a4", source: "A", video: "v1", task: "t", dur: 5, margin: 3},
				{id: "a5", source: "A", video: "v1", task: "t", dur: 5, margin: 4},
			},
			query:     Query{Budget: 5, Caps: noCaps()},
			order:     []string{"a1"},
			shortfall: true,
		},
		{
			// Pairs rarest first: (A, t2) takes a-t2 (0-10s); (B, t1)
			// prefers b-long, whose group (1-3m) has no item yet, to the
			// harder b-short; (A, t1) then takes its hardest in 10-30s.
			name: "the coverage pass gives each source and task one item, rarest pairs first",
			pool: []cand{
				{id: "a-t2", source: "A", video: "v1", task: "t2", dur: 5, margin: 3},
				{id: "b-short", source: "B", video: "v2", task: "t1", dur: 5, margin: 0},
				{id: "b-long", source: "B", video: "v3", task: "t1", dur: 100, margin: 2},
				{id: "a-t1-x", source: "A", video: "v4", task: "t1", dur: 20, margin: 1},
				{id: "a-t1-y", source: "A", video: "v5", task: "t1", dur: 20, margin: 4},
				{id: "a-t1-z", source: "A", video: "v6", task: "t1", dur: 20, margin: 5},
			},
			query: Query{Budget: 3, Caps: noCaps()},
			order: []string{"a-t2", "b-long", "a-t1-x"},
		},
		{
			name:  "a source filter admits only that source",
			pool:  append(many("A", "t", 3, 5), many("B", "t", 3, 5)...),
			query: Query{Budget: 3, Sources: []string{"B"}, Caps: noCaps()},
			want:  []string{"B-t-0", "B-t-1", "B-t-2"},
		},
		{
			name:  "a duration filter admits only that duration group",
			pool:  append(many("A", "t", 3, 5), many("A", "u", 3, 700)...),
			query: Query{Budget: 2, Durations: []string{"10-30m"}, Caps: noCaps()},
			want:  []string{"A-u-0", "A-u-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := testPool(t, tt.pool)
			sel, err := Select(p, tt.query, 1, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(p, sel.Picks)
			if tt.order != nil {
				if !reflect.DeepEqual(got, tt.order) {
					t.Errorf("selected %v, want %v", got, tt.order)
				}
			} else if slices.Sort(got); !reflect.DeepEqual(got, slices.Sorted(slices.Values(tt.want))) {
				t.Errorf("selected %v, want %v", got, tt.want)
			}
			var relaxed [][2]string
			for _, r := range sel.Relaxations {
				relaxed = append(relaxed, [2]string{r.Cap, r.To})
				if r.Reason == "" || r.Blocked == 0 || r.DurationGroup == "" {
					t.Errorf("relaxation %+v has no reason, blocked count or group", r)
				}
			}
			if !reflect.DeepEqual(relaxed, tt.relaxed) {
				t.Errorf("relaxed %v, want %v", relaxed, tt.relaxed)
			}
			if (sel.Shortfall != "") != tt.shortfall {
				t.Errorf("shortfall %q, want one: %v", sel.Shortfall, tt.shortfall)
			}
		})
	}
}

// Issue 33: a release of one source has no source cap: the 5% share would
// only add relaxation rows. With two sources the share binds (one item
// each of a budget of 20) and the group climbs the authors' whole ladder:
// the scene cap to 4, the template cap doubled, then the source cap
// lifted, after which the two sources alternate.
func TestSelectSourceCapOnlyWithSeveralSources(t *testing.T) {
	t.Parallel()
	one := testPool(t, many("A", "t", 40, 5))
	sel, err := Select(one, Query{Budget: 20}, 7, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Picks) != 20 || len(sel.Relaxations) != 0 || sel.Shortfall != "" {
		t.Errorf("one source: %d picks, relaxations %+v, shortfall %q; want 20, none", len(sel.Picks), sel.Relaxations, sel.Shortfall)
	}

	two := testPool(t, append(many("A", "t", 20, 5), many("B", "t", 20, 5)...))
	sel, err = Select(two, Query{Budget: 20}, 7, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var steps [][2]string
	for _, r := range sel.Relaxations {
		steps = append(steps, [2]string{r.Cap, r.To})
		if r.Selected != 2 || r.DurationGroup != "0-10s" {
			t.Errorf("relaxed %s after %d items in %s, want after the two coverage items in 0-10s", r.Cap, r.Selected, r.DurationGroup)
		}
	}
	want := [][2]string{{capScene, "2"}, {capScene, "3"}, {capScene, "4"}, {capTemplate, "10"}, {capSource, "lifted"}}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
	per := map[string]int{}
	for _, i := range sel.Picks {
		per[two.Candidates[i].Item.Benchmark]++
	}
	if len(sel.Picks) != 20 || per["A"] != 10 || per["B"] != 10 {
		t.Errorf("%d picks, per source %v; want 10 and 10", len(sel.Picks), per)
	}
	if g := sel.Caps.Groups["0-10s"]; g != (GroupCaps{PerScene: 4, PerTemplate: 10, SourceExempt: true}) {
		t.Errorf("final caps of 0-10s %+v", g)
	}
	// Within a source, items go in preference order: lower margin first.
	last := map[string]float64{"A": -1, "B": -1}
	for _, i := range sel.Picks {
		c := &two.Candidates[i]
		if m := c.Verdicts[0].Margin; m <= last[c.Item.Benchmark] {
			t.Errorf("%s taken after an easier item of its source", c.Item.ID)
		} else {
			last[c.Item.Benchmark] = m
		}
	}
}

// The gate's refill starts from the caps a selection reached: a group's
// relaxations are not climbed again.
func TestSelectRefillStartsFromTheRelaxedCaps(t *testing.T) {
	t.Parallel()
	p := testPool(t, append(many("A", "t", 20, 5), many("B", "t", 20, 5)...))
	first, err := Select(p, Query{Budget: 10}, 3, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	exclude := make([]bool, len(p.Candidates))
	exclude[first.Picks[0]] = true
	caps := first.Caps
	refill, err := Select(p, Query{Budget: 10, Caps: &caps}, 3, first.Picks[1:], exclude)
	if err != nil {
		t.Fatal(err)
	}
	if len(refill.Picks) != 10 || len(refill.Relaxations) != 0 {
		t.Errorf("refill: %d picks, relaxations %+v; want 10 and none", len(refill.Picks), refill.Relaxations)
	}
}

// Two duration groups by two tasks, one source: the coverage pass puts its
// two items in the two groups, then the round-robin gives each group a
// turn in every pass and each task of a group a turn in its group's turns,
// so eight picks cover the four cells.
func TestSelectRoundRobinCoversDurationsAndEvents(t *testing.T) {
	t.Parallel()
	var cs []cand
	cs = append(cs, many("A", "count", 4, 5)...)
	cs = append(cs, many("A", "order", 4, 5)...)
	cs = append(cs, many("A", "count", 4, 1000)...)
	cs = append(cs, many("A", "order", 4, 1000)...)
	for i := range cs { // distinct ids across the duration groups
		cs[i].id = cs[i].id + "-" + DurationGroup(testPool(t, cs[i:i+1]).Candidates[0].Item)
		cs[i].video = cs[i].id
	}
	p := testPool(t, cs)
	for seed := uint64(0); seed < 5; seed++ {
		sel, err := Select(p, Query{Budget: 8, Caps: noCaps()}, seed, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		cells := map[string]bool{}
		for k, i := range sel.Picks {
			it := p.Candidates[i].Item
			cells[DurationGroup(it)+"/"+it.Task] = true
			if k%2 == 1 && DurationGroup(it) == DurationGroup(p.Candidates[sel.Picks[k-1]].Item) {
				t.Errorf("seed %d: picks %d and %d share duration group %s", seed, k-1, k, DurationGroup(it))
			}
		}
		if len(cells) != 4 {
			t.Errorf("seed %d: cells %v, want all four", seed, cells)
		}
	}
}

func TestSelectKeepsAndExcludes(t *testing.T) {
	t.Parallel()
	p := testPool(t, many("A", "t", 6, 5))
	exclude := make([]bool, 6)
	exclude[0] = true // the hardest item: dropped by the gate
	sel, err := Select(p, Query{Budget: 3, Caps: noCaps()}, 1, []int{4}, exclude)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(p, sel.Picks), []string{"A-t-4", "A-t-1", "A-t-2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("picks %v, want %v (the kept item first, then the hardest not excluded)", got, want)
	}
}

func TestSelectIsSeededAndDeterministic(t *testing.T) {
	t.Parallel()
	var cs []cand
	for _, s := range []string{"A", "B", "C", "D", "E"} {
		for _, task := range []string{"t1", "t2", "t3"} {
			cs = append(cs, many(s, task, 5, 5)...)
		}
	}
	p := testPool(t, cs)
	q := Query{Budget: 30}
	a, _ := Select(p, q, 42, nil, nil)
	b, _ := Select(p, q, 42, nil, nil)
	c, _ := Select(p, q, 43, nil, nil)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave two selections")
	}
	if reflect.DeepEqual(a.Picks, c.Picks) {
		t.Error("seeds 42 and 43 gave the same order")
	}
}

func TestQueryCheckRefusesBadQueries(t *testing.T) {
	t.Parallel()
	p := testPool(t, many("A", "t", 2, 5))
	for _, q := range []Query{
		{},
		{Budget: 2, Hardest: 1},
		{Budget: -1},
		{Budget: 2, Events: "colour"},
		{Budget: 2, Durations: []string{"5-10s"}},
		{Budget: 2, Caps: &Caps{PerVideo: 0, PerScene: 1, PerTemplate: 1, SourceShare: 0.1}},
		{Budget: 2, Caps: &Caps{PerVideo: 1, PerScene: 1, PerTemplate: 1, SourceShare: 1.5}},
		{Budget: 2, Sources: []string{"Z"}},
		{Hardest: 2, Per: "colour"},
	} {
		if _, err := Draw(p, q, 1, nil, nil); err == nil {
			t.Errorf("query %+v accepted", q)
		}
	}
}
