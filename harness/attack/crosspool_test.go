package attack

import (
	"context"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// The cross-pool store by hand (the blog, 001, tables 14-15, superscript c).
// Benchmark A holds a1 (embedding e1, gold "y"); B is answered in the order
// b1 (e1, options y/x), b2 (e2), b3 (e2). b1 has no earlier item of B, so the
// within-benchmark copy and vote abstain, but A's a1 lies in the cross-pool
// store at cosine 1 and lends "y" (option 0 of b1). b2 has nothing before
// it: b3, of its own benchmark and later, is in the run's pool with cosine
// 1, and must not be used (an item's own gold, or a later item of its
// benchmark, never enters before it is answered). b3 copies b2 within B.
func TestCrossPoolStore(t *testing.T) {
	t.Parallel()
	e1, e2 := []float32{1, 0}, []float32{0, 1}
	mk := func(b, id string, opts []string, answer int) *harness.Item {
		return &harness.Item{ID: id, Benchmark: b, Question: id, Options: opts, Answer: answer}
	}
	a1 := mk("A", "a1", []string{"x", "y"}, 1)
	b1 := mk("B", "b1", []string{"y", "x"}, 0)
	b2 := mk("B", "b2", []string{"p", "q"}, 0)
	b3 := mk("B", "b3", []string{"q", "p"}, 1)
	rows := func(vs ...[]float32) *kernels.Matrix {
		m := kernels.NewMatrix(len(vs), 2)
		for i, v := range vs {
			copy(m.Row(i), v)
		}
		return m
	}
	pool := &Pool{Items: []*harness.Item{a1, b1, b2, b3}, Text: rows(e1, e1, e2, e2), Question: rows(e1, e1, e2, e2)}
	stream := func() *Stream {
		return &Stream{Seed: 3, Items: []*harness.Item{b1, b2, b3}, Text: rows(e1, e2, e2), Question: rows(e1, e2, e2), Pool: pool}
	}
	cfg := DefaultConfig()
	cfg.K = 1
	cfg.CrossPool = true
	byName := map[string]Attacker{}
	for _, a := range Attackers(cfg) {
		byName[a.Name()] = a
	}
	type want struct {
		abstain bool
		choice  int
	}
	for _, tt := range []struct {
		attacker string
		want     []want
	}{
		{"copy", []want{{abstain: true}, {abstain: true}, {choice: 1}}},
		{"copy-xpool", []want{{choice: 0}, {abstain: true}, {choice: 1}}},
		{"knn-vote", []want{{abstain: true}, {abstain: true}, {choice: 1}}},
		{"knn-vote-xpool", []want{{choice: 0}, {abstain: true}, {choice: 1}}},
	} {
		a, ok := byName[tt.attacker]
		if !ok {
			t.Fatalf("%s is not among the attackers of a cross-pool configuration", tt.attacker)
		}
		if CrossPool(a) != (tt.attacker == "copy-xpool" || tt.attacker == "knn-vote-xpool") {
			t.Errorf("%s: CrossPool %v", tt.attacker, CrossPool(a))
		}
		preds, err := a.Attack(context.Background(), stream())
		if err != nil {
			t.Fatalf("%s: %v", tt.attacker, err)
		}
		for p, w := range tt.want {
			got := preds[p]
			if got.Abstain != w.abstain || (!w.abstain && got.Choice != w.choice) {
				t.Errorf("%s, item %s: %+v, want abstain %v choice %d", tt.attacker, stream().Items[p].ID, got, w.abstain, w.choice)
			}
		}
	}
	// Without a pool the cross-pool attackers refuse the stream.
	s := stream()
	s.Pool = nil
	if _, err := byName["copy-xpool"].Attack(context.Background(), s); err == nil {
		t.Error("copy-xpool answered a stream without a cross-pool store")
	}
	// The default configuration has no cross-pool attacker.
	for _, a := range Attackers(DefaultConfig()) {
		if CrossPool(a) {
			t.Errorf("%s runs by default", a.Name())
		}
	}
}
