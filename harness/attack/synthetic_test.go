package attack_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/kernels"
)

// syntheticItems builds a small pool in which every attacker has something
// to find: yes/no pairs on shared videos (siblings), templated questions
// that repeat across videos (copy, k-NN, regression), a correct option that
// is often the longest (option artifacts) and words shared between question
// and answer (question match).
func syntheticItems(n int, seed uint64) []*harness.Item {
	r := rand.New(rand.NewPCG(seed, 7))
	objects := []string{"cup", "towel", "laptop", "book", "broom", "phone", "pillow", "shoe"}
	verbs := []string{"picked up", "put down", "opened", "threw", "washed", "held"}
	var items []*harness.Item
	for i := 0; len(items) < n; i++ {
		switch i % 3 {
		case 0: // a yes/no pair on one video
			v := fmt.Sprintf("pair-video-%d", i/3)
			o1, o2 := objects[r.IntN(len(objects))], objects[r.IntN(len(objects))]
			items = append(items,
				&harness.Item{ID: fmt.Sprintf("p%d/basic", i), Benchmark: "Pairs", Video: v,
					Question: "Is there a " + o1 + " in the video?", Options: []string{"yes", "no"}, Answer: 0},
				&harness.Item{ID: fmt.Sprintf("p%d/hallucination", i), Benchmark: "Pairs", Video: v,
					Question: "Is there a " + o2 + " in the video?", Options: []string{"yes", "no"}, Answer: 1})
		default: // a templated four-option question
			verb := verbs[r.IntN(len(verbs))]
			perm := r.Perm(len(objects))[:4]
			opts := make([]string, 4)
			for k, p := range perm {
				opts[k] = "The " + objects[p] + "."
			}
			ans := r.IntN(4)
			if r.IntN(3) > 0 { // the answer is often the longest option
				opts[ans] = "The " + objects[perm[ans]] + " that the person " + verb + "."
			}
			items = append(items, &harness.Item{ID: fmt.Sprintf("t%d", i), Benchmark: "Templates",
				Video: fmt.Sprintf("clip-%d", r.IntN(n/4+1)), Question: "Which object was " + verb + " by the person?",
				Options: opts, Answer: ans, Task: "Interaction"})
		}
	}
	return items[:n]
}

// embedOrFail embeds items with the lexical embedder.
func embedOrFail(t testing.TB, items []*harness.Item) (text, question *kernels.Matrix) {
	t.Helper()
	text, question, err := attacktest.Embed(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	return text, question
}

// TestNoAttackerSeesTheGoldOfItsItemOrLaterOnes is the prequential
// guarantee: flipping the gold answers of the item at position i and of all
// later items leaves every attacker's predictions for positions 0..i exactly
// as they were.
func TestNoAttackerSeesTheGoldOfItsItemOrLaterOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	items := syntheticItems(240, 1)
	text, question := embedOrFail(t, items)
	cfg := attack.DefaultConfig()
	order := attack.Orders(items, 3, 1)[0]
	base := attacktest.Stream(items, order, 0, 3, text, question)
	want := map[string][]attack.Prediction{}
	for _, a := range attack.Attackers(cfg) {
		p, err := a.Attack(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		want[a.Name()] = p
	}
	for _, i := range []int{0, 1, 2, 17, 100, 181, 238, 239} {
		flipped := make([]*harness.Item, len(base.Items))
		for p, it := range base.Items {
			c := *it
			if p >= i {
				c.Answer = (c.Answer + 1) % len(c.Options)
			}
			flipped[p] = &c
		}
		s := &attack.Stream{Variant: 0, Seed: base.Seed, Items: flipped, Text: base.Text, Question: base.Question}
		for _, a := range attack.Attackers(cfg) {
			got, err := a.Attack(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			for p := 0; p <= i; p++ {
				if !samePrediction(got[p], want[a.Name()][p]) {
					t.Errorf("%s: flipping the gold of positions %d.. changed the prediction at %d: %+v, was %+v",
						a.Name(), i, p, got[p], want[a.Name()][p])
					break
				}
			}
			// The test has teeth only if the learners do read earlier golds:
			// flipping them all must change some later prediction.
			if i == 0 && attack.Prequential(a) {
				changed := false
				for p := 1; p < len(got); p++ {
					changed = changed || !samePrediction(got[p], want[a.Name()][p])
				}
				if !changed {
					t.Errorf("%s: flipping every gold changed no prediction; it learns nothing from the pool", a.Name())
				}
			}
		}
	}
}

func samePrediction(a, b attack.Prediction) bool {
	if a.Choice != b.Choice || a.Abstain != b.Abstain || len(a.Scores) != len(b.Scores) {
		return false
	}
	for k := range a.Scores {
		if a.Scores[k] != b.Scores[k] {
			return false
		}
	}
	return true
}

// TestPredictionsAreTheSameAtAnyThreadCount runs every attacker with one and
// with four kernel threads and compares every prediction bit for bit.
func TestPredictionsAreTheSameAtAnyThreadCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	items := syntheticItems(300, 2)
	text, question := embedOrFail(t, items)
	one, four := attack.DefaultConfig(), attack.DefaultConfig()
	one.Threads, four.Threads = 1, 4
	x, err := attacktest.RunAll(ctx, one, items, 9, text, question)
	if err != nil {
		t.Fatal(err)
	}
	y, err := attacktest.RunAll(ctx, four, items, 9, text, question)
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != len(y) {
		t.Fatalf("%d outcomes with one thread, %d with four", len(x), len(y))
	}
	for k := range x {
		if x[k].Item != y[k].Item || x[k].Attacker != y[k].Attacker || x[k].Variant != y[k].Variant || !samePrediction(x[k].Pred, y[k].Pred) {
			t.Fatalf("outcome %d differs: %+v vs %+v", k, x[k], y[k])
		}
	}
}

// TestOrdersRunConcurrentlyOnSharedAttackers runs every variant of every
// attacker at once on one set of attackers (as a run with several workers
// may) and compares with running them one by one. Run it with -race.
func TestOrdersRunConcurrentlyOnSharedAttackers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	items := syntheticItems(200, 12)
	text, question := embedOrFail(t, items)
	cfg := attack.DefaultConfig()
	want, err := attacktest.RunAll(ctx, attack.DefaultConfig(), items, 4, text, question)
	if err != nil {
		t.Fatal(err)
	}
	orders := attack.Orders(items, 4, cfg.Orders)
	attackers := attack.Attackers(cfg)
	type job struct{ a, v int }
	var jobs []job
	for a, at := range attackers {
		for v := 0; v < attack.Variants(at, cfg); v++ {
			jobs = append(jobs, job{a, v})
		}
	}
	got := make([][]attack.Prediction, len(jobs))
	errs := make([]error, len(jobs))
	done := make(chan int)
	for k, j := range jobs {
		go func() {
			s := attacktest.Stream(items, orders[j.v], j.v, 4, text, question)
			got[k], errs[k] = attackers[j.a].Attack(ctx, s)
			done <- k
		}()
	}
	for range jobs {
		<-done
	}
	n := 0
	for k, j := range jobs {
		if errs[k] != nil {
			t.Fatal(errs[k])
		}
		for p, pr := range got[k] {
			w := want[n]
			if w.Attacker != attackers[j.a].Name() || w.Variant != j.v || w.Position != p || !samePrediction(w.Pred, pr) {
				t.Fatalf("%s, order %d, position %d: concurrent %+v, sequential %+v", attackers[j.a].Name(), j.v, p, pr, w)
			}
			n++
		}
	}
}
