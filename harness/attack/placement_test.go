package attack_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/kernelstest"
)

// The attackers that search (copy, copy-xpool, knn-vote, knn-vote-xpool,
// retrieval-reader and its cross-pool variant) placed on kernels/cuda's
// Backend, over the Host device that emulates a GPU's tiles (small ones,
// so that every search spans many), answer every item of every order with
// the CPU kernels' bytes, at 1 and 4 kernel threads and 1 and 3 device
// workers; and the searches did go to the backend.
func TestSearchAttackersOnABackendMatchTheCPU(t *testing.T) {
	t.Parallel()
	items, q := retrievalPool(480)
	orders := attack.Orders(items, 7, 2)
	names := []string{"copy", "copy-xpool", "knn-vote", "knn-vote-xpool", "retrieval-reader", "retrieval-reader" + attack.CrossPoolSuffix}
	pool := &attack.Pool{Items: items, Text: q, Question: q}
	answer := func(threads int, backend *kernelstest.Counter) []byte {
		cfg := retrievalConfig(&pairReader{}, true)
		cfg.Threads = threads
		if backend != nil {
			cfg.Joiner, cfg.Searcher = backend, backend
		}
		var out [][]attack.Prediction
		for _, name := range names {
			a := frameAttacker(t, cfg, name)
			for o, order := range orders {
				s := &attack.Stream{Variant: o, Seed: attack.OrderSeed(7, o), Items: make([]*harness.Item, len(order)),
					Text: kernels.NewMatrix(len(order), q.Cols), Question: kernels.NewMatrix(len(order), q.Cols), Pool: pool}
				for p, i := range order {
					s.Items[p] = items[i]
					copy(s.Text.Row(p), q.Row(int(i)))
					copy(s.Question.Row(p), q.Row(int(i)))
				}
				preds, err := a.Attack(context.Background(), s)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out = append(out, preds)
			}
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := answer(1, nil)
	copied := 0
	var preds [][]attack.Prediction
	if err := json.Unmarshal(want, &preds); err != nil {
		t.Fatal(err)
	}
	for _, p := range preds[0] { // copy, order 0
		if !p.Abstain {
			copied++
		}
	}
	if copied == 0 {
		t.Fatal("copy abstained on every item: the case tests no join")
	}
	for _, tt := range []struct{ threads, workers int }{{1, 1}, {4, 3}} {
		b := kernelstest.Count(&cuda.Backend{Device: cuda.Host{Rows: 24, Cols: 80}, Workers: tt.workers})
		got := answer(tt.threads, b)
		if string(got) != string(want) {
			t.Errorf("%d threads, %d device workers: the answers differ from the CPU kernels'", tt.threads, tt.workers)
		}
		if b.Joins() == 0 || b.TopKs() == 0 {
			t.Errorf("%d threads, %d device workers: the backend ran %d joins and %d top-k searches; the attackers searched elsewhere", tt.threads, tt.workers, b.Joins(), b.TopKs())
		}
	}
}
