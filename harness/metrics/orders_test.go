package metrics_test

import (
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// The cards' solved share of the options-only and blind readers follows the
// four-order rule screening applies (Video-Index 5.1: three of four seeded
// orders right and the mean margin over the four above log 2), not the
// original order alone. Four four-option items of benchmark A, gold 0; the
// original order (the verdict) and three further orders:
//
//	item 0: right 2 | right 2, right 2, wrong -1   3 of 4, mean 1.25  solved
//	item 1: right 1 | right 1, right 1, wrong -3   3 of 4, mean 0     not (one order: solved)
//	item 2: wrong 3 | right 3, right 3, right 3    3 of 4, mean 3     solved (one order: not)
//	item 3: right 2 | wrong 0, wrong 0, right 2    2 of 4             not (one order: solved)
//
// Four orders give 2 of 4 (one order gave 3 of 4). Without the further
// orders' margins the margin is read on the original order (items 0, 1);
// without any margins correctness alone decides (items 0, 1, 2).
func TestSolvedOverOrders(t *testing.T) {
	items := make([]*harness.Item, 4)
	for i := range items {
		items[i] = &harness.Item{ID: string(rune('a' + i)), Benchmark: "A", Options: []string{"w", "x", "y", "z"}}
	}
	first := []struct {
		correct bool
		margin  float64
	}{{true, 2}, {true, 1}, {false, 3}, {true, 2}}
	// choices[o][i]: the option chosen on further order o+1 (0 is gold).
	choices := [][]int{{0, 0, 0, 1}, {0, 0, 0, 1}, {1, 1, 0, 0}}
	margins := [][]float64{{2, 1, 3, 0}, {2, 1, 3, 0}, {-1, -3, 3, 2}}
	nan := math.NaN()
	tests := []struct {
		name        string
		withMargins bool
		margins     [][]float64
		want        []bool
		share       float64
	}{
		{"four orders with margins", true, margins, []bool{true, false, true, false}, 0.5},
		{"further orders without margins", true, [][]float64{nil, nil, nil}, []bool{true, true, false, false}, 0.5},
		{"no log-probabilities at all", false, [][]float64{nil, nil, nil}, []bool{true, true, true, false}, 0.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var scores []metrics.ItemScore
			for i, f := range first {
				m := f.margin
				if !tt.withMargins {
					m = nan
				}
				c := 0
				if !f.correct {
					c = 1
				}
				scores = append(scores, metrics.ItemScore{Item: i, Attacker: "blind-reader", Level: harness.LevelText, Choice: c, Margin: m, Variants: 1, Scored: true, Correct: f.correct})
			}
			// Another attacker's scores are left alone.
			scores = append(scores, metrics.ItemScore{Item: 0, Attacker: "question-match", Scored: true, Correct: true, Solved: true})
			cards := []metrics.Card{{Benchmark: "A", N: 4, Attackers: []metrics.AttackerResult{{Name: "blind-reader", SolvedShare: 0.75}, {Name: "question-match", SolvedShare: 0.25}}}}
			if err := metrics.SolvedOverOrders(cards, items, scores, "blind-reader", choices, tt.margins); err != nil {
				t.Fatal(err)
			}
			for i, w := range tt.want {
				if scores[i].Solved != w {
					t.Errorf("item %d: solved %v, want %v", i, scores[i].Solved, w)
				}
			}
			if r := cards[0].Attackers[0]; r.SolvedShare != tt.share || r.SolvedOrders != 4 {
				t.Errorf("blind-reader: solved share %v over %d orders, want %v over 4", r.SolvedShare, r.SolvedOrders, tt.share)
			}
			if r := cards[0].Attackers[1]; r.SolvedShare != 0.25 || r.SolvedOrders != 0 || !scores[4].Solved {
				t.Errorf("question-match changed: %+v", r)
			}
		})
	}
	// Too few further orders: nothing changes.
	cards := []metrics.Card{{Benchmark: "A", N: 4, Attackers: []metrics.AttackerResult{{Name: "blind-reader", SolvedShare: 0.75}}}}
	if err := metrics.SolvedOverOrders(cards, items, nil, "blind-reader", choices[:1], margins[:1]); err != nil || cards[0].Attackers[0].SolvedShare != 0.75 {
		t.Errorf("one further order: %v, share %v; want no change", err, cards[0].Attackers[0].SolvedShare)
	}
}
