package run

import (
	"math"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// TestAnswersHoldWhatTheCardsRead checks the compact store against the
// whole predictions it replaces: what it hands the cards is what
// metrics.Reduce makes of the prediction, a prediction the cards refuse is
// handed over whole (so that they refuse it with the same error), and a
// recomputed prediction is the same only when its choice, abstention and
// every score's bits are.
func TestAnswersHoldWhatTheCardsRead(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "q1", Benchmark: "B", Options: []string{"a", "b", "c"}, Answer: 1}
	logs := []float64{math.Log(0.2), math.Log(0.7), math.Log(0.1)}
	tests := []struct {
		name  string
		pred  attack.Prediction
		whole bool
	}{
		{"a right answer", attack.Prediction{Choice: 1, Scores: logs}, false},
		{"a floored answer", attack.Prediction{Choice: 1, Scores: []float64{-13.815510557964274, math.Log(0.7), math.Log(0.3)}, Floored: true}, false},
		{"a wrong guess", attack.Prediction{Choice: 2, Scores: []float64{0, 0, 0}, Abstain: true}, false},
		{"tiny and huge scores", attack.Prediction{Choice: 0, Scores: []float64{-1e300, 5e-324, 0.1 + 0.2}}, false},
		{"no scores", attack.Prediction{Choice: 0}, true},
		{"an infinite score", attack.Prediction{Choice: 0, Scores: []float64{math.Inf(-1), 0, 0}}, true},
		{"a NaN score", attack.Prediction{Choice: 0, Scores: []float64{math.NaN(), 0, 0}}, true},
		{"a choice out of range", attack.Prediction{Choice: 300, Scores: logs}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newAnswers(4)
			if s.has(2) {
				t.Fatal("a new store holds a prediction")
			}
			s.put(2, it, tt.pred)
			if !s.has(2) || s.has(1) || s.has(3) {
				t.Fatal("has does not say which item holds a prediction")
			}
			var o metrics.Outcome
			s.fill(2, &o)
			want, err := metrics.Reduce(it, tt.pred)
			if tt.whole != (err != nil) {
				t.Fatalf("Reduce error %v", err)
			}
			if tt.whole {
				if o.Reduced || !samePrediction(o.Pred, tt.pred) {
					t.Errorf("handed over %+v, want the whole prediction %+v", o, tt.pred)
				}
			} else if !o.Reduced || !reflect.DeepEqual(o.Answer, want) || math.Float64bits(o.Answer.Margin) != math.Float64bits(want.Margin) {
				t.Errorf("handed over %+v, want %+v", o.Answer, want)
			}
			if !s.same(2, it, tt.pred) {
				t.Error("the prediction itself is not the same")
			}
			other := tt.pred
			other.Scores = append([]float64(nil), tt.pred.Scores...)
			if n := len(other.Scores); n > 0 {
				// One ulp on a score the margin may not see.
				other.Scores[n-1] = math.Nextafter(other.Scores[n-1], 1)
			} else {
				other.Choice++
			}
			if s.same(2, it, other) {
				t.Errorf("%+v is the same as %+v", other, tt.pred)
			}
			flipped := tt.pred
			flipped.Abstain = !flipped.Abstain
			if s.same(2, it, flipped) {
				t.Error("the abstention is not compared")
			}
			unfloored := tt.pred
			unfloored.Floored = !unfloored.Floored
			if s.same(2, it, unfloored) {
				t.Error("the floored flag is not compared")
			}
		})
	}
	// A slot written again holds the last prediction only.
	s := newAnswers(1)
	s.put(0, it, attack.Prediction{Choice: 0})
	s.put(0, it, attack.Prediction{Choice: 1, Scores: logs})
	var o metrics.Outcome
	s.fill(0, &o)
	if !o.Reduced || len(s.whole) != 0 || o.Answer.Choice != 1 {
		t.Errorf("after rewriting: %+v, %d whole", o, len(s.whole))
	}
	// An item without a prediction hands the cards the zero prediction,
	// which they refuse.
	var none metrics.Outcome
	newAnswers(1).fill(0, &none)
	if none.Reduced || none.Pred.Scores != nil {
		t.Errorf("no prediction handed over as %+v", none)
	}
}

// TestOrderIndexPartsMatchTheOrder checks a unit's part of its order for a
// benchmark's chunk and for the whole stream against a walk of the order.
func TestOrderIndexPartsMatchTheOrder(t *testing.T) {
	t.Parallel()
	var items []*harness.Item
	for i := range 40 {
		items = append(items, &harness.Item{ID: string(rune('a' + i)), Benchmark: []string{"X", "Y", "Z"}[i%3]})
	}
	orders := attack.Orders(items, 7, 2)
	x := newOrderIndex(items, orders)
	walk := func(full []int32, in func(i int32) bool) (order []int32, pos []int) {
		for p, i := range full {
			if in(i) {
				order, pos = append(order, i), append(pos, p)
			}
		}
		return order, pos
	}
	a := &audit{items: items}
	for v, full := range orders {
		for _, c := range a.benchmarkChunks() {
			u := &unit{ans: newAnswers(len(items))}
			order, pos, skipped := x.part(u, v, full, c)
			wo, wp := walk(full, func(i int32) bool { return items[i].Benchmark == c.bench })
			if !reflect.DeepEqual(order, wo) || !reflect.DeepEqual(pos, wp) || skipped != 0 {
				t.Errorf("order %d, chunk %s: %v at %v (skipped %d), want %v at %v", v, c.bench, order, pos, skipped, wo, wp)
			}
		}
		// The whole stream: nothing of Y is held, X and Z each lack one
		// item, so every benchmark is answered.
		u := &unit{ans: newAnswers(len(items))}
		for i := range items {
			if items[i].Benchmark == "Y" || i == 0 || i == 5 {
				continue
			}
			u.ans.put(int32(i), items[i], attack.Prediction{})
		}
		order, pos, skipped := x.part(u, v, full, chunk{})
		if !reflect.DeepEqual(order, full) || pos != nil || skipped != 0 {
			t.Errorf("order %d, every benchmark left: %d items at %v, skipped %d", v, len(order), pos, skipped)
		}
		// Now only X lacks an item.
		for i := range items {
			if i != 0 {
				u.ans.put(int32(i), items[i], attack.Prediction{})
			}
		}
		order, pos, skipped = x.part(u, v, full, chunk{})
		wo, wp := walk(full, func(i int32) bool { return items[i].Benchmark == items[0].Benchmark })
		if !reflect.DeepEqual(order, wo) || !reflect.DeepEqual(pos, wp) || skipped != len(items)-len(wo) {
			t.Errorf("order %d, only %s left: %v at %v (skipped %d), want %v at %v", v, items[0].Benchmark, order, pos, skipped, wo, wp)
		}
	}
}
