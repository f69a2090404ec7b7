package attack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// centreBenchmark builds a held-out-style benchmark whose correct option is
// the "centre" of its distractors: every distractor is the centre option
// with about half its words replaced, so the centre shares the most words
// with the others. Options run from 3 to 27 words, padded at random so that
// length carries nothing, and on half of the items the gold is a distractor
// (the writer edited another option): the signal is real but noisy, and
// its raw size shrinks with the options' length, so it reads clearly only
// as a z-score within the item. This is the shape of the egocentric
// benchmark of issue 10 (plain logistic regression +0.26, the old learner
// +0.12); at n = 300 (the protocol's sample) the old conditional logit
// reached +0.167 here and the plain regression +0.267.
func centreBenchmark(n int, seed uint64) []*harness.Item {
	r := rand.New(rand.NewPCG(seed, 11))
	vocab := strings.Fields("person picks up cup table towel opens drawer closes door walks kitchen holds phone looks window puts bag chair sits floor takes book washes plate knife cuts bread pours water bottle wipes counter moves box shelf")
	word := func() string { return vocab[r.IntN(len(vocab))] }
	var items []*harness.Item
	for i := 0; i < n; i++ {
		k := 3 + r.IntN(20) // words in the centre option
		centre := make([]string, k)
		for w := range centre {
			centre[w] = word()
		}
		opts := make([]string, 5)
		for j := range opts {
			ws := append([]string(nil), centre...)
			if j > 0 {
				for e := 0; e < 1+k/2; e++ {
					ws[r.IntN(len(ws))] = word()
				}
			}
			for e := r.IntN(5); e > 0; e-- { // lengths carry nothing
				ws = append(ws, word())
			}
			opts[j] = strings.Join(ws, " ")
		}
		gold := 0
		if r.IntN(2) == 0 {
			gold = 1 + r.IntN(4)
		}
		// Shuffle so the gold position carries nothing.
		perm := r.Perm(5)
		shuffled := make([]string, 5)
		for j, p := range perm {
			shuffled[p] = opts[j]
		}
		items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: "Centre", Video: fmt.Sprint("v", i), Question: "What does the person do?",
			Options: shuffled, Answer: perm[gold]})
	}
	return items
}

// finalStageMargin scores attacker a as a run does: five rotating splits,
// each item scored once where its fold comes last.
func finalStageMargin(t testing.TB, a Attacker, items []*harness.Item) float64 {
	t.Helper()
	folds := Folds(items, 1)
	var ok, chance float64
	for o, order := range Orders(items, 1, NumFolds) {
		s := &Stream{Variant: o, Seed: OrderSeed(1, o), Items: make([]*harness.Item, len(order))}
		for p, i := range order {
			s.Items[p] = items[i]
		}
		preds, err := a.Attack(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		for p, i := range order {
			if folds[i] != ScoredFold(o) {
				continue
			}
			if preds[p].Choice == items[i].Answer {
				ok++
			}
			chance += items[i].Chance()
		}
	}
	return (ok - chance) / float64(len(items))
}

// TestOptionArtifactIsAtLeastAsStrongAsPlainLogisticRegression: on the
// centre benchmark the old conditional logit lagged a plain logistic
// regression on per-item z-scores; the attacker that combines them must
// reach the plain one's margin (within the noise of switching) and beat
// the old learner.
func TestOptionArtifactIsAtLeastAsStrongAsPlainLogisticRegression(t *testing.T) {
	t.Parallel()
	items := centreBenchmark(300, 3)
	cfg := DefaultConfig()
	margin := func(only int) float64 {
		return finalStageMargin(t, &optionArtifact{cfg: cfg, cache: NewCache(), only: only}, items)
	}
	old, plain, both := margin(1), margin(2), margin(0)
	t.Logf("centre benchmark, margin over chance: conditional logit %+.3f, plain logistic regression %+.3f, option-artifact %+.3f", old, plain, both)
	if both < plain-0.02 {
		t.Errorf("option-artifact %+.3f below plain logistic regression %+.3f", both, plain)
	}
	if both < old+0.05 {
		t.Errorf("option-artifact %+.3f does not gain on the old learner %+.3f", both, old)
	}
}

// TestOptionArtifactOnRealData compares, on each development benchmark, the
// combined option-artifact attacker with its two learners alone: it must
// reach the stronger of them there too.
func TestOptionArtifactOnRealData(t *testing.T) {
	t.Parallel()
	dir := realDataDir(t)
	cfg := DefaultConfig()
	for _, f := range []string{"nextqa.jsonl", "socialiq2.jsonl", "star.jsonl", "videohallucer.jsonl"} {
		items, err := harness.ReadFiles(context.Background(), []string{dir + "/" + f}, harness.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cache := NewCache() // the features do not depend on the learner
		margin := func(only int) float64 {
			return finalStageMargin(t, &optionArtifact{cfg: cfg, cache: cache, only: only}, items)
		}
		old, plain, both := margin(1), margin(2), margin(0)
		t.Logf("%-20s margin over chance: conditional logit %+.3f, plain logistic regression %+.3f, option-artifact %+.3f", f, old, plain, both)
		if both < max(old, plain)-0.02 {
			t.Errorf("%s: option-artifact %+.3f below the better learner (%+.3f, %+.3f)", f, both, old, plain)
		}
	}
}

// realDataDir finds ../shared/data beside the module root (skipping
// without its NExT-QA items), as attacktest.DataDir does (which this
// internal test cannot import).
func realDataDir(t testing.TB) string {
	t.Helper()
	shareddata.Path(t, "nextqa.jsonl")
	return shareddata.Path(t)
}
