package run

import (
	"context"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// TestEffectiveSizeByHand: three items whose mean frame embeddings are
// orthogonal and whose questions are the same have K = I, whose eigenvalues
// over n are 1/3 each: Vendi exp(log 3) = 3. When the videos are the same too,
// K is all ones, one eigenvalue n/n = 1: Vendi 1. Two items of another
// benchmark with orthogonal questions and one shared video: K = I, Vendi 2.
// An item whose video failed (nil row) is left out.
func TestEffectiveSizeByHand(t *testing.T) {
	t.Parallel()
	items := []*harness.Item{{Benchmark: "A"}, {Benchmark: "A"}, {Benchmark: "A"}, {Benchmark: "B"}, {Benchmark: "B"}, {Benchmark: "B"}, {Benchmark: "C"}}
	e := func(j int) []float32 { v := make([]float32, 3); v[j] = 1; return v }
	q := kernels.NewMatrix(7, 2)
	for i := range 7 {
		q.Row(i)[0] = 1
	}
	q.Row(4)[0], q.Row(4)[1] = 0, 1
	v := [][]float32{e(0), e(1), e(2), e(0), e(0), nil, nil}
	got, err := effectiveSizes(context.Background(), items, v, q, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got["C"] != nil {
		t.Errorf("benchmark C has no item with features, got %+v", got["C"])
	}
	for name, want := range map[string]float64{"A": 3, "B": 2} {
		es := got[name]
		if es == nil || math.Abs(es.Mean-want) > 1e-4 || es.Low != es.Mean || es.High != es.Mean || es.Draws != 1 {
			t.Errorf("%s: %+v, want one draw of Vendi %v", name, es, want)
		}
	}
	v = [][]float32{e(0), e(0), e(0), e(0), e(0), nil, nil}
	got, _ = effectiveSizes(context.Background(), items, v, q, 1, 1)
	if es := got["A"]; math.Abs(es.Mean-1) > 1e-4 {
		t.Errorf("identical items: %+v, want Vendi 1", es)
	}
}

func TestEffectiveSizeDrawsAreSeeded(t *testing.T) {
	t.Parallel()
	n := 260
	items := make([]*harness.Item, n)
	v := make([][]float32, n)
	q := kernels.NewMatrix(n, 4)
	for i := range n {
		items[i] = &harness.Item{Benchmark: "A"}
		row := make([]float32, 4)
		row[i%4] = 1
		v[i] = row
		q.Row(i)[(i/4)%4] = 1
	}
	a, err := effectiveSizes(context.Background(), items, v, q, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := effectiveSizes(context.Background(), items, v, q, 7, 2)
	es := a["A"]
	if *es != *b["A"] || es.Draws != effDraws || es.DrawSize != effDrawSize || es.N != n || es.Low > es.Mean || es.Mean > es.High || es.High > 16 {
		t.Errorf("%+v vs %+v: want the same seeded draws at any thread count, at most 16 distinct (video, question) pairs", es, b["A"])
	}
}
