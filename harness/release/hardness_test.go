package release

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// Hardness ranks items by the funnel's screening steps' margins only (the
// authors' worst-case attacker percentile over "the five screening
// margins", Video-Index 5.3), not a learner's or a further Video-Oasis
// model's. Four items, mid-rank percentiles among four margins:
//
//	options-reader  1, 2, 3, 4  -> 0.125, 0.375, 0.625, 0.875
//	fixed-position  9, 0, 0, 0  -> 0.875, 0.375, 0.375, 0.375
//	blind-reader#2  0, 9, 0, 0  -> 0.375, 0.875, 0.375, 0.375
//
// Screening steps alone: 0.125, 0.375, 0.625, 0.875; over every attacker
// (a pool with no screening step) the maxima would be 0.875, 0.875,
// 0.625, 0.875.
func TestHardnessRanksByTheScreeningSteps(t *testing.T) {
	t.Parallel()
	margins := [][]float64{{1, 2, 3, 4}, {9, 0, 0, 0}, {0, 9, 0, 0}}
	pool := func(names ...string) *Pool {
		var atts []Attacker
		for _, n := range names {
			atts = append(atts, Attacker{Name: n, Level: harness.LevelOption})
		}
		var cs []Candidate
		for i := 0; i < 4; i++ {
			it := &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Video: fmt.Sprint("v", i), Question: "q?", Options: []string{"w", "x"}}
			c := Candidate{Item: it, TemplateSize: 1, Template: i}
			for a := range atts {
				c.Verdicts = append(c.Verdicts, Verdict{Scored: true, Margin: margins[a][i]})
			}
			cs = append(cs, c)
		}
		p, err := NewPool(atts, cs)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		names []string
		want  []float64
	}{
		{[]string{"options-reader", "fixed-position", "blind-reader#2"}, []float64{0.125, 0.375, 0.625, 0.875}},
		{[]string{"a", "b", "c"}, []float64{0.875, 0.875, 0.625, 0.875}},
	} {
		p := pool(tt.names...)
		var got []float64
		for i := range p.Candidates {
			got = append(got, p.Hardness(i))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("attackers %v: hardness %v, want %v", tt.names, got, tt.want)
		}
	}
	// The shuffled step on screen_reader stands for shuffled-frames-reader.
	if got := hardnessAttackers([]Attacker{{Name: "shuffled-frames-reader"}, {Name: "shuffled-frames-screen-reader"}, {Name: "knn-vote"}}); !slices.Equal(got, []int{1}) {
		t.Errorf("with a screen_reader's shuffled step: attackers %v, want [1]", got)
	}
}
