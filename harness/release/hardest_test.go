package release

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// Two attackers on four items. Attacker x's margins 1, 2, 2, 4 have mid-rank
// percentiles 1/8, 4/8, 4/8, 7/8; attacker y's 4, 3, 2, 1 have 7/8, 5/8,
// 3/8, 1/8; y did not score item 2. The maximum: 7/8, 5/8, 4/8, 7/8.
func TestHardnessIsTheMaximumMidRankPercentile(t *testing.T) {
	x := []float64{1, 2, 2, 4}
	y := []float64{4, 3, 2, 1}
	var cs []Candidate
	for i := range x {
		it := &harness.Item{ID: string(rune('a' + i)), Benchmark: "B", Video: "v", Options: []string{"p", "q"}}
		cs = append(cs, Candidate{Item: it, Verdicts: []Verdict{{Scored: true, Margin: x[i]}, {Scored: i != 2, Margin: y[i]}}})
	}
	p, err := NewPool([]Attacker{{Name: "x"}, {Name: "y"}}, cs)
	if err != nil {
		t.Fatal(err)
	}
	// y's percentiles over its three scored margins 4, 3, 1: 5/6, 3/6, 1/6.
	want := []float64{5.0 / 6, 4.0 / 8, 4.0 / 8, 7.0 / 8}
	for i, w := range want {
		if !approx(p.Hardness(i), w) {
			t.Errorf("item %d: hardness %v, want %v", i, p.Hardness(i), w)
		}
	}
}

func TestHardestTakesKPerGroupOnePerVideo(t *testing.T) {
	cs := []cand{
		// group g1 (task as group below): h1 hardest, on video shared with g2's k1
		{id: "h1", source: "A", video: "shared", task: "g1", margin: 0},
		{id: "h2", source: "A", video: "v2", task: "g1", margin: 2},
		{id: "h3", source: "A", video: "v3", task: "g1", margin: 4},
		{id: "k1", source: "B", video: "shared", task: "g2", margin: 1},
		{id: "k2", source: "B", video: "v5", task: "g2", margin: 3},
		{id: "k3", source: "B", video: "v6", task: "g2", margin: 5},
		{id: "m1", source: "B", video: "v7", task: "g3", margin: 6},
	}
	for i := range cs {
		cs[i].dur = 5
		cs[i].template, cs[i].templateSize = i, 1
	}
	p := testPool(t, cs)
	sel, err := Hardest(p, Query{Hardest: 2, Per: PerTask}, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Turns in group order: g1 takes h1 (and the shared video), g2 skips k1
	// for k2, g3 takes m1; then g1 takes h2 and g2 takes k3; g3 has no more.
	if got, want := ids(p, sel.Picks), []string{"h1", "k2", "m1", "h2", "k3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("picks %v, want %v", got, want)
	}
	if !strings.Contains(sel.Shortfall, "task g3: 1 of 2") {
		t.Errorf("shortfall %q does not name g3", sel.Shortfall)
	}
}

// A group whose every item screening removed is named in the shortfall, at
// 0 of K, instead of vanishing from the release without a word; a removed
// group outside the query's sources is not.
func TestHardestNamesAGroupScreeningEmptied(t *testing.T) {
	p := testPool(t, []cand{
		{id: "a1", source: "A", video: "v1", task: "g1", margin: 0, dur: 5},
		{id: "a2", source: "A", video: "v2", task: "g1", margin: 1, dur: 5, template: 1, templateSize: 1},
	})
	p.Screened = []*harness.Item{
		{ID: "gone", Benchmark: "A", Video: "v9", Task: "g2", Options: []string{"p", "q"}},
		{ID: "other", Benchmark: "Z", Video: "v8", Task: "g3", Options: []string{"p", "q"}},
	}
	sel, err := Hardest(p, Query{Hardest: 1, Per: PerTask, Sources: []string{"A"}}, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p, sel.Picks); !reflect.DeepEqual(got, []string{"a1"}) {
		t.Errorf("picks %v, want [a1]", got)
	}
	if !strings.Contains(sel.Shortfall, "task g2: 0 of 1") || strings.Contains(sel.Shortfall, "g3") {
		t.Errorf("shortfall %q: want task g2 at 0 of 1 and nothing of g3 (source Z was not asked for)", sel.Shortfall)
	}
}
