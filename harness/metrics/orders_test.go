package metrics_test

import (
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// The cards' solved share of the options-only and blind readers follows the
// four-order rule screening applies (Video-Index 5.1: three of four seeded
// orders right and the mean margin over the four above log 2), on the
// permutation audit's four seeded orders, not the original order. Four
// four-option items of benchmark A, gold 0; the original order (the
// verdict) | the seeded orders 1-4:
//
//	item 0: right 2 | right 2, right 2, right 2, wrong -1   3 of 4, mean 1.25  solved
//	item 1: right 1 | right 1, right 1, right 1, wrong -3   3 of 4, mean 0     not (original alone: solved)
//	item 2: wrong 3 | right 3, right 3, right 3, wrong 0    3 of 4, mean 2.25  solved (original alone: not)
//	item 3: right 2 | wrong 0, wrong 0, right 2, right 2    2 of 4             not (original alone: solved)
//
// Four orders give 2 of 4 (the original alone gave 3 of 4). Without the
// orders' margins the margin condition is read on the original order's
// gold margin, as screening does (items 0, 1, 2: 2, 1 and 3 > log 2);
// without any margins correctness alone decides (items 0, 1, 2). An audit
// of two permutations judges on both.
func TestSolvedOverOrders(t *testing.T) {
	t.Parallel()
	items := make([]*harness.Item, 4)
	for i := range items {
		items[i] = &harness.Item{ID: string(rune('a' + i)), Benchmark: "A", Options: []string{"w", "x", "y", "z"}}
	}
	first := []struct {
		correct bool
		margin  float64
	}{{true, 2}, {true, 1}, {false, 3}, {true, 2}}
	// choices[o][i]: the option chosen on seeded order o+1 (0 is gold).
	choices := [][]int{{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 0}, {1, 1, 2, 0}}
	margins := [][]float64{{2, 1, 3, 0}, {2, 1, 3, 0}, {2, 1, 3, 2}, {-1, -3, 0, 2}}
	tests := []struct {
		name        string
		withMargins bool
		choices     [][]int
		margins     [][]float64
		want        []bool
		share       float64
		orders      int
	}{
		{"four seeded orders with margins", true, choices, margins, []bool{true, false, true, false}, 0.5, 4},
		{"a fifth order is not read", true, append(choices, []int{1, 1, 1, 1}), append(margins, []float64{-9, -9, -9, -9}), []bool{true, false, true, false}, 0.5, 4},
		{"orders without margins", true, choices, [][]float64{nil, nil, nil, nil}, []bool{true, true, true, false}, 0.75, 4},
		{"no log-probabilities at all", false, choices, nil, []bool{true, true, true, false}, 0.75, 4},
		// Orders 1 and 2: both right on items 0-2 (margins 2, 1, 3, all
		// above log 2), neither on item 3.
		{"two permutations", true, choices[:2], margins[:2], []bool{true, true, true, false}, 0.75, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var scores []metrics.ItemScore
			for i, f := range first {
				m := f.margin
				if !tt.withMargins {
					m = math.NaN()
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
			if err := metrics.SolvedOverOrders(cards, items, scores, "blind-reader", tt.choices, tt.margins); err != nil {
				t.Fatal(err)
			}
			for i, w := range tt.want {
				if scores[i].Solved != w {
					t.Errorf("item %d: solved %v, want %v", i, scores[i].Solved, w)
				}
			}
			if r := cards[0].Attackers[0]; r.SolvedShare != tt.share || r.SolvedOrders != tt.orders {
				t.Errorf("blind-reader: solved share %v over %d orders, want %v over %d", r.SolvedShare, r.SolvedOrders, tt.share, tt.orders)
			}
			if r := cards[0].Attackers[1]; r.SolvedShare != 0.25 || r.SolvedOrders != 0 || !scores[4].Solved {
				t.Errorf("question-match changed: %+v", r)
			}
		})
	}
	// No seeded orders (the permutation audit off): nothing changes.
	cards := []metrics.Card{{Benchmark: "A", N: 4, Attackers: []metrics.AttackerResult{{Name: "blind-reader", SolvedShare: 0.75}}}}
	if err := metrics.SolvedOverOrders(cards, items, nil, "blind-reader", nil, nil); err != nil || cards[0].Attackers[0].SolvedShare != 0.75 {
		t.Errorf("no orders: %v, share %v; want no change", err, cards[0].Attackers[0].SolvedShare)
	}
}
