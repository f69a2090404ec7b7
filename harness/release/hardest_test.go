package release

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/kernels"
)

// Hardness is the maximum mid-rank percentile over the steps, a step's
// missing margin (no verdict, or a verdict without a margin) taking that
// step's largest margin in the pool, as the authors' attack_percentile
// fills it (pandas fillna with the column's max, Video-Index pool/select.py).
// Two attackers x and y on four items, NaN where y has no margin; x is
// always 1, 2, 2, 4, mid-ranks 1/8, 4/8, 4/8, 7/8.
//
//	y missing on item 2:   4, 3, _, 1 -> 4, 3, 4, 1 -> 6/8, 3/8, 6/8, 1/8
//	                       max 6/8, 4/8, 6/8, 7/8 (skipping it made item 2
//	                       4/8, tied with item 1 for the hardest)
//	y scored, no margin:   _, 3, 2, 1 -> 3, 3, 2, 1 -> 6/8, 6/8, 3/8, 1/8
//	                       max 6/8, 6/8, 4/8, 7/8
//	y without any margin:  y does not enter: x's 1/8, 4/8, 4/8, 7/8
//	x and y without any:   every item 0 (the authors' attack_pct)
func TestHardnessFillsAMissingMarginWithItsStepsLargest(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	x := []float64{1, 2, 2, 4}
	for _, tt := range []struct {
		name      string
		x, y      []float64
		noVerdict []bool // y gave no verdict at all (Scored false)
		want      []float64
	}{
		{"y missing on item 2", x, []float64{4, 3, nan, 1}, []bool{false, false, true, false}, []float64{6.0 / 8, 4.0 / 8, 6.0 / 8, 7.0 / 8}},
		{"y scored, no margin", x, []float64{nan, 3, 2, 1}, make([]bool, 4), []float64{6.0 / 8, 6.0 / 8, 4.0 / 8, 7.0 / 8}},
		{"y without any margin", x, []float64{nan, nan, nan, nan}, []bool{true, true, true, true}, []float64{1.0 / 8, 4.0 / 8, 4.0 / 8, 7.0 / 8}},
		{"x and y without any", []float64{nan, nan, nan, nan}, []float64{nan, nan, nan, nan}, make([]bool, 4), []float64{0, 0, 0, 0}},
	} {
		var cs []Candidate
		for i := range tt.x {
			it := &harness.Item{ID: string(rune('a' + i)), Benchmark: "B", Video: "v", Options: []string{"p", "q"}}
			cs = append(cs, Candidate{Item: it, Verdicts: []Verdict{{Scored: true, Margin: tt.x[i]}, {Scored: !tt.noVerdict[i], Margin: tt.y[i]}}})
		}
		p, err := NewPool([]Attacker{{Name: "x"}, {Name: "y"}}, cs)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range tt.want {
			if !approx(p.Hardness(i), w) {
				t.Errorf("%s: item %d: hardness %v, want %v", tt.name, i, p.Hardness(i), w)
			}
		}
	}
}

// Hardest K does not take an item first because a screening step could not
// score it. One group, three items on their own videos; options-reader's
// margins 0, 1, 2 (mid-ranks 1/6, 3/6, 5/6); shuffled-frames-reader scored
// b and c at 1 and 2 but not a, which takes its largest, 2: 2, 1, 2 ->
// 4/6, 1/6, 4/6. Hardness 4/6, 3/6, 5/6: the hardest is b. Skipping the
// missing margin would have given a 1/6 and taken it.
func TestHardestDoesNotTakeAnItemForItsMissingMargin(t *testing.T) {
	t.Parallel()
	margins := [][2]float64{{0, math.NaN()}, {1, 1}, {2, 2}}
	var cs []Candidate
	for i, m := range margins {
		id := string(rune('a' + i))
		it := &harness.Item{ID: id, Benchmark: "B", Video: "v" + id, Group: "g", Question: id + "?", Options: []string{"w", "x", "y", "z"}}
		cs = append(cs, Candidate{Item: it, Template: i, TemplateSize: 1,
			Verdicts: []Verdict{{Scored: true, Margin: m[0]}, {Scored: i != 0, Margin: m[1]}}})
	}
	p, err := NewPool([]Attacker{{Name: "options-reader", Level: harness.LevelOption}, {Name: "shuffled-frames-reader", Level: harness.LevelOrder}}, cs)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{4.0 / 6, 3.0 / 6, 5.0 / 6} {
		if !approx(p.Hardness(i), w) {
			t.Errorf("item %d: hardness %v, want %v", i, p.Hardness(i), w)
		}
	}
	sel, err := Hardest(p, Query{Hardest: 1, Per: PerGroup}, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p, sel.Picks); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("picks %v, want [b]", got)
	}
}

func TestHardestTakesKPerGroupOnePerVideo(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// Hardest K ranks the options-only and blind steps by their mean margin
// over the four seeded option orders, as the authors rank opt_margin and
// blind_margin (Video-Index pool/screen.py text_step_result averages the
// margins of the orders that have one; pool/select.py attack_percentile
// ranks each column with pandas rank(pct=True) and takes the largest).
// Three items of one group on their own videos, every answer wrong (kept
// by the funnel), their margins worked by hand:
//
//	               options-reader            blind-reader
//	item  original  orders 1-4      mean   original  orders 1-4      mean
//	a     -1        3, 1, 2, (none)  2     -1        -2, -2, -2, -2  -2
//	b      2        -1, -1, -1, -1  -1     -2         1, 2, 0, 1      1
//	c      3        0.5, 0.5, 1, 0   0.5    3        -1, -3, 1, -1   -1
//
// The authors' percentiles (rank/3) of the means: options 1, 1/3, 2/3;
// blind 1/3, 1, 2/3; the largest 1, 1, 2/3: c is the hardest. vidscreen's
// mid-ranks are those less 1/6: 5/6, 5/6, 1/2. Ranked by the original
// order's margins instead (options 1/3, 2/3, 1; blind 2/3, 1/3, 1; largest
// 2/3, 2/3, 1) c would be the easiest, and a screen without the orders'
// margins ranks so.
func TestHardestRanksTheTextStepsByTheirMeanOrderMargin(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	type item struct {
		id                 string
		opt, blind         float64    // original-order margins
		optOrd, blindOrder [4]float64 // margins on the seeded orders 1-4
	}
	items := []item{
		{"a", -1, -1, [4]float64{3, 1, 2, nan}, [4]float64{-2, -2, -2, -2}},
		{"b", 2, -2, [4]float64{-1, -1, -1, -1}, [4]float64{1, 2, 0, 1}},
		{"c", 3, 3, [4]float64{0.5, 0.5, 1, 0}, [4]float64{-1, -3, 1, -1}},
	}
	for _, tt := range []struct {
		name    string
		margins bool // the run kept the orders' margins
		want    []float64
		hardest string
	}{
		{"mean over the orders", true, []float64{5.0 / 6, 5.0 / 6, 1.0 / 2}, "c"},
		{"orders without margins: the original's", false, []float64{3.0 / 6, 3.0 / 6, 5.0 / 6}, "a"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := &screen.Input{Run: "hardest",
				Attackers:    []screen.Attacker{{Name: "options-reader", Level: "option"}, {Name: "blind-reader", Level: "text"}},
				Orders:       map[string][][]int32{},
				OrderMargins: map[string][][]float64{},
			}
			wrong := []int32{1, 1, 1}
			for k := range 4 {
				in.Orders["options-reader"] = append(in.Orders["options-reader"], wrong)
				in.Orders["blind-reader"] = append(in.Orders["blind-reader"], wrong)
				if tt.margins {
					var o, b []float64
					for _, it := range items {
						o, b = append(o, it.optOrd[k]), append(b, it.blindOrder[k])
					}
					in.OrderMargins["options-reader"] = append(in.OrderMargins["options-reader"], o)
					in.OrderMargins["blind-reader"] = append(in.OrderMargins["blind-reader"], b)
				}
			}
			for _, it := range items {
				in.Rows = append(in.Rows, screen.Row{ID: it.id, Benchmark: "B", Video: "v" + it.id, Group: "g", Question: it.id + "?",
					Options: []string{"w", "x", "y", "z"}, Cluster: -1, Embedding: -1, Quality: []string{},
					Verdicts: []screen.Verdict{
						{Attacker: "options-reader", Scored: true, Choice: 1, Margin: it.opt},
						{Attacker: "blind-reader", Scored: true, Choice: 1, Margin: it.blind},
					}})
			}
			s, err := screen.Compute(in, screen.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := FromScreen(context.Background(), s, nil, nil, DefaultSceneThreshold, kernels.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Candidates) != 3 {
				t.Fatalf("%d candidates, want the 3 items kept", len(p.Candidates))
			}
			for i, w := range tt.want {
				if !approx(p.Hardness(i), w) {
					t.Errorf("item %s: hardness %v, want %v", items[i].id, p.Hardness(i), w)
				}
			}
			sel, err := Hardest(p, Query{Hardest: 1, Per: PerGroup}, 1, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(p, sel.Picks); !reflect.DeepEqual(got, []string{tt.hardest}) {
				t.Errorf("picks %v, want [%s]", got, tt.hardest)
			}
		})
	}
}
