package metrics

import (
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

func TestWithModels(t *testing.T) {
	t.Parallel()
	var items []*harness.Item
	for i := range 10 {
		items = append(items, &harness.Item{ID: string(rune('a' + i)), Benchmark: "B", Options: []string{"x", "y", "z", "w"}, Answer: i % 4})
	}
	items = append(items, &harness.Item{ID: "k", Benchmark: "C", Options: []string{"yes", "no"}, Answer: 0})
	cards := []Card{
		{Benchmark: "B", Levels: Levels{Option: &LevelResult{Eps: 0.05}, Text: &LevelResult{Eps: 0.15}}},
		{Benchmark: "C"}, // no level ran
	}
	good := map[string]int{}
	for i, it := range items[:8] { // 8 answered, 6 right
		good[it.Key()] = it.Answer
		if i < 2 {
			good[it.Key()] = (it.Answer + 1) % 4
		}
	}
	WithModels(cards, items, []EvaluatedModel{{Name: "good", Answers: good}, {Name: "none", Answers: map[string]int{}}})
	b := cards[0].Models
	if len(b) != 2 || b[0].Name != "good" || b[0].N != 8 || *b[0].Accuracy != 0.75 || *b[0].Chance != 0.25 || math.Abs(*b[0].Residual-0.35) > 1e-9 {
		t.Errorf("good on B: %+v", b[0])
	}
	if b[1].N != 0 || b[1].Accuracy != nil || b[1].Residual != nil {
		t.Errorf("a model without answers: %+v", b[1])
	}
	if c := cards[1].Models[0]; c.N != 0 || c.Residual != nil {
		t.Errorf("good on C: %+v", c)
	}
	// With no level, accuracy is known but no residual.
	WithModels(cards[1:], items, []EvaluatedModel{{Name: "k", Answers: map[string]int{items[10].Key(): 0}}})
	if c := cards[1].Models[2]; c.N != 1 || *c.Accuracy != 1 || c.Residual != nil {
		t.Errorf("a card without levels: %+v", c)
	}
}
