package metrics

import (
	"github.com/vidscreen/vidscreen/harness"
)

// An EvaluatedModel is a model whose answers on the benchmark were read
// from its predictions file (--predictions NAME=FILE).
type EvaluatedModel struct {
	Name string
	// Answers maps item keys (harness.Item.Key) to the chosen option.
	Answers map[string]int
}

// A ModelResult is one evaluated model on one benchmark: its accuracy s
// over the items it answered, the chance c of those items, and the
// residual s - c - eps (Video-Index reports it for any evaluated model;
// docs/attackers.md, residual), eps being the exploitability at the highest level the audit ran:
// what the model gets above what the attackers got without the capability
// the benchmark claims to test. A residual near or below zero means the
// model's score is within reach of shortcuts.
type ModelResult struct {
	Name     string   `json:"name"`
	N        int      `json:"n"` // items of the benchmark it answered
	Accuracy *float64 `json:"accuracy"`
	Chance   *float64 `json:"chance"`
	Residual *float64 `json:"residual"`
}

// WithModels appends to each card the result of every evaluated model, in
// the order given. A model that answered none of a card's items is listed
// with n 0 and null figures, so that a card says which models it lacks.
func WithModels(cards []Card, items []*harness.Item, models []EvaluatedModel) {
	byBench := map[string][]*harness.Item{}
	for _, it := range items {
		byBench[it.Benchmark] = append(byBench[it.Benchmark], it)
	}
	for k := range cards {
		c := &cards[k]
		eps, haveEps := topEps(c.Levels)
		for _, m := range models {
			r := ModelResult{Name: m.Name}
			var ok, chance float64
			for _, it := range byBench[c.Benchmark] {
				p, has := m.Answers[it.Key()]
				if !has {
					continue
				}
				r.N++
				ok += b2f(p == it.Answer)
				chance += it.Chance()
			}
			if r.N > 0 {
				s, ch := ok/float64(r.N), chance/float64(r.N)
				r.Accuracy, r.Chance = roundPtr(s), roundPtr(ch)
				if haveEps {
					r.Residual = roundPtr(s - ch - eps)
				}
			}
			c.Models = append(c.Models, r)
		}
	}
}

// topEps is the exploitability at the highest level the card holds. Levels
// nest and eps is their running maximum, so it is the eps of the highest
// level that ran.
func topEps(l Levels) (float64, bool) {
	all := harness.Levels()
	for k := len(all) - 1; k >= 0; k-- {
		if lr := l.At(all[k]); lr != nil {
			return lr.Eps, true
		}
	}
	return 0, false
}
