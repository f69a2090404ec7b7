package release

import (
	"reflect"
	"slices"
	"testing"
)

func noCaps() *Caps { return &Caps{PerVideo: 1, PerScene: 1, PerTemplate: 5, SourceShare: 1} }

func TestSelectHandWorked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		pool  []cand
		query Query
		// want is the set of selected ids (order checked elsewhere).
		want []string
		// relaxed lists the caps relaxed, in order, with their new values.
		relaxed   [][2]string
		shortfall bool
	}{
		{
			name: "one item per video keeps the harder of two items on one video",
			pool: []cand{
				{id: "a1", source: "A", video: "v1", task: "t", dur: 5, template: 1, templateSize: 1, margin: 0.9},
				{id: "a2", source: "A", video: "v1", task: "t", dur: 5, template: 2, templateSize: 1, margin: 0.1},
				{id: "a3", source: "A", video: "v2", task: "t", dur: 5, template: 3, templateSize: 1, margin: 0.5},
			},
			query: Query{Budget: 2, Caps: noCaps()},
			want:  []string{"a2", "a3"},
		},
		{
			name: "a less templated question goes before a harder templated one",
			pool: []cand{
				{id: "t1", source: "A", video: "v1", task: "t", dur: 5, template: 9, templateSize: 3, margin: 0},
				{id: "t2", source: "A", video: "v2", task: "t", dur: 5, template: 9, templateSize: 3, margin: 0},
				{id: "t3", source: "A", video: "v3", task: "t", dur: 5, template: 9, templateSize: 3, margin: 0},
				{id: "u1", source: "A", video: "v4", task: "t", dur: 5, template: 4, templateSize: 1, margin: 5},
			},
			query: Query{Budget: 1, Caps: noCaps()},
			want:  []string{"u1"},
		},
		{
			name: "two videos of one scene count as one until the scene cap is relaxed",
			pool: []cand{
				{id: "s1", source: "A", video: "v1", scene: "kitchen", task: "t", dur: 5, template: 1, templateSize: 1, margin: 0},
				{id: "s2", source: "A", video: "v2", scene: "kitchen", task: "t", dur: 5, template: 2, templateSize: 1, margin: 1},
				{id: "s3", source: "A", video: "v3", scene: "garden", task: "t", dur: 5, template: 3, templateSize: 1, margin: 2},
			},
			query:   Query{Budget: 3, Caps: noCaps()},
			want:    []string{"s1", "s2", "s3"},
			relaxed: [][2]string{{capScene, "2"}},
		},
		{
			name: "the sixth item of one template waits for the template cap to double",
			pool: func() []cand {
				cs := many("A", "t", 7, 5)
				for i := range cs {
					cs[i].template, cs[i].templateSize = 1, 7
				}
				return cs
			}(),
			query:   Query{Budget: 6, Caps: noCaps()},
			want:    []string{"A-t-0", "A-t-1", "A-t-2", "A-t-3", "A-t-4", "A-t-5"},
			relaxed: [][2]string{{capTemplate, "10"}},
		},
		{
			name: "a short pool ends short after relaxing what it can",
			pool: []cand{
				{id: "a1", source: "A", video: "v1", task: "t", dur: 5, template: 1, templateSize: 1, margin: 0},
				{id: "a2", source: "A", video: "v1", task: "t", dur: 5, template: 2, templateSize: 1, margin: 1},
			},
			query:     Query{Budget: 5, Caps: noCaps()},
			want:      []string{"a1", "a2"},
			relaxed:   [][2]string{{capScene, "2"}, {capVideo, "2"}},
			shortfall: true,
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
			p := testPool(t, tt.pool)
			sel, err := Select(p, tt.query, 1, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(p, sel.Picks)
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("selected %v, want %v", got, want)
			}
			var relaxed [][2]string
			for _, r := range sel.Relaxations {
				relaxed = append(relaxed, [2]string{r.Cap, r.To})
				if r.Reason == "" || r.Blocked == 0 {
					t.Errorf("relaxation %+v has no reason or no blocked count", r)
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

// Three sources of ten items under the 5% source cap: a budget of 20 allows
// one item per source, so the cap doubles three times (1, 2, 4, 8 items)
// and the round-robin leaves the sources 7, 7 and 6 items.
func TestSelectSourceShareRelaxesByDoubling(t *testing.T) {
	t.Parallel()
	var cs []cand
	for _, s := range []string{"A", "B", "C"} {
		cs = append(cs, many(s, "t", 10, 5)...)
	}
	p := testPool(t, cs)
	sel, err := Select(p, Query{Budget: 20}, 7, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Picks) != 20 || sel.Shortfall != "" {
		t.Fatalf("%d picks, shortfall %q", len(sel.Picks), sel.Shortfall)
	}
	var steps []string
	for _, r := range sel.Relaxations {
		if r.Cap != capSource {
			t.Errorf("relaxed %s, want only the source cap", r.Cap)
		}
		steps = append(steps, r.To)
	}
	want := []string{"10% of the budget (2 items)", "20% of the budget (4 items)", "40% of the budget (8 items)"}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps %q, want %q", steps, want)
	}
	if sel.Relaxations[0].Selected != 3 || sel.Relaxations[1].Selected != 6 || sel.Relaxations[2].Selected != 12 {
		t.Errorf("relaxed after %d, %d, %d items, want 3, 6, 12", sel.Relaxations[0].Selected, sel.Relaxations[1].Selected, sel.Relaxations[2].Selected)
	}
	per := map[string]int{}
	for _, i := range sel.Picks {
		per[p.Candidates[i].Item.Benchmark]++
	}
	got := []int{per["A"], per["B"], per["C"]}
	slices.Sort(got)
	if !reflect.DeepEqual(got, []int{6, 7, 7}) {
		t.Errorf("per source %v, want 6, 7, 7", per)
	}
	// Round-robin: every run of three consecutive picks holds three sources
	// (each pass visits the sources of the one cell in turn).
	for k := 0; k+3 <= 18; k += 3 {
		seen := map[string]bool{}
		for _, i := range sel.Picks[k : k+3] {
			seen[p.Candidates[i].Item.Benchmark] = true
		}
		if len(seen) != 3 {
			t.Errorf("picks %d-%d come from %v, want three sources", k, k+2, seen)
		}
	}
	// Within a source, items go in preference order: lower margin first.
	last := map[string]float64{"A": -1, "B": -1, "C": -1}
	for _, i := range sel.Picks {
		c := &p.Candidates[i]
		if m := c.Verdicts[0].Margin; m <= last[c.Item.Benchmark] {
			t.Errorf("%s taken after an easier item of its source", c.Item.ID)
		} else {
			last[c.Item.Benchmark] = m
		}
	}
}

// Two duration groups by two tasks, one source: the round-robin gives each
// duration group a turn in every pass and each task of a group a turn in
// its group's turns, so four picks cover the four cells.
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
		sel, err := Select(p, Query{Budget: 4, Caps: noCaps()}, seed, nil, nil)
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
