package world

import (
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

func TestAnswerPrior(t *testing.T) {
	t.Parallel()
	item := func(q string, gold int) *harness.Item {
		return &harness.Item{Question: q, Options: []string{"1", "2", "3", "4"}, Answer: gold}
	}
	// Twelve items of one question, gold "2" on seven of them: the modal
	// answer of the other eleven is "2" for every item (for a "2" item six
	// others remain, still the most), so answering it is right 7 times.
	var skewed []*harness.Item
	for _, g := range []int{1, 1, 1, 1, 1, 1, 1, 0, 2, 3, 0, 2} {
		skewed = append(skewed, item("How many?", g))
	}
	// Three of each answer: leaving an item's own gold out makes the other
	// three answers the most frequent (a three-way tie), so it answers nothing.
	var even []*harness.Item
	for k := range 12 {
		even = append(even, item("How many?", k%4))
	}
	// Two questions never lend each other their answers.
	var split []*harness.Item
	for k := range 12 {
		split = append(split, item(fmt.Sprintf("q%d", k), 1))
	}
	tests := []struct {
		name  string
		items []*harness.Item
		lo    float64
		hi    float64
	}{
		// P(X >= 7), X ~ Binomial(12, 1/4) = 0.01425...
		{"seven of twelve", skewed, 0.0142, 0.0143},
		{"balanced", even, 1, 1},
		{"every question alone", split, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p := answerPrior(tt.items); p < tt.lo || p > tt.hi {
				t.Errorf("answerPrior = %v, want in [%v, %v]", p, tt.lo, tt.hi)
			}
		})
	}
}

// TestPlanDrawsNoAnswerPrior checks that no family planted above the pool
// level leaves Plan with a sample answer prior: at seed 3 the clean family
// did (knn-vote 0.542 at the pool level, a false alarm of the truth file,
// not of the audit).
func TestPlanDrawsNoAnswerPrior(t *testing.T) {
	t.Parallel()
	for _, videos := range []int{100, 60} {
		for seed := uint64(1); seed <= 8; seed++ {
			w, err := Plan(Options{Seed: seed, Videos: videos})
			if err != nil {
				t.Fatal(err)
			}
			if f := priorFamily(Families(), w.Items); f != "" {
				t.Errorf("seed %d, %d videos: family %s carries an answer prior", seed, videos, f)
			}
		}
	}
}
