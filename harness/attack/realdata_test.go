package attack_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// These tests check that the attackers show the known properties of the
// development data (../shared/data/README.md).

// runOn runs the named attackers of the default configuration on items and
// returns the cards.
func runOn(t *testing.T, items []*harness.Item, names ...string) []metrics.Card {
	t.Helper()
	ctx := context.Background()
	text, question := embedOrFail(t, items)
	cfg := attack.DefaultConfig()
	orders := attack.Orders(items, 1, cfg.Orders)
	var outcomes []metrics.Outcome
	for _, name := range names {
		o, err := attacktest.RunAttacker(ctx, attackerNamed(t, name), cfg, items, orders, 1, text, question)
		if err != nil {
			t.Fatal(err)
		}
		outcomes = append(outcomes, o...)
	}
	mc := metrics.DefaultConfig(cfg)
	mc.Seed = 1
	cards, err := metrics.Cards(ctx, items, outcomes, nil, nil, mc)
	if err != nil {
		t.Fatal(err)
	}
	return cards
}

func result(t *testing.T, c metrics.Card, name string) metrics.AttackerResult {
	t.Helper()
	for _, r := range c.Attackers {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("%s: no result for %s", c.Benchmark, name)
	return metrics.AttackerResult{}
}

// TestSocialIQLongestOptionIsAnOptionLevelShortcut: Social-IQ 2.0's correct
// option is the uniquely longest one about 35% of the time against 25%
// chance, and the option-artifact learner turns that into a significant
// option-level margin.
func TestSocialIQLongestOptionIsAnOptionLevelShortcut(t *testing.T) {
	t.Parallel()
	items := attacktest.LoadReal(t, "socialiq2.jsonl")
	longest := 0
	for _, it := range items {
		l := len([]rune(it.Options[it.Answer]))
		unique := true
		for j, o := range it.Options {
			if j != it.Answer && len([]rune(o)) >= l {
				unique = false
			}
		}
		if unique {
			longest++
		}
	}
	share := float64(longest) / float64(len(items))
	t.Logf("Social-IQ 2.0: the gold option is the uniquely longest in %.3f of %d items", share, len(items))
	if share < 0.33 || share > 0.38 {
		t.Errorf("uniquely-longest share %.3f, want about 0.35", share)
	}
	c := runOn(t, items, "fixed-position", "option-artifact")[0]
	r := result(t, c, "option-artifact")
	t.Logf("option-artifact: accuracy %.3f [%.3f, %.3f], margin %+.3f over chance %.3f, n %d per order, significance %.3f",
		r.Accuracy, r.CILow, r.CIHigh, r.Margin, r.Chance, r.N, c.Significance)
	if !r.Significant || r.Margin < 0.08 {
		t.Errorf("option-artifact margin %+.3f (significant %v), want a significant margin of at least 0.08", r.Margin, r.Significant)
	}
	if c.Levels.Option == nil || c.Levels.Option.Attacker != "option-artifact" || !c.Levels.Option.Significant {
		t.Errorf("option level %+v, want option-artifact, significant", c.Levels.Option)
	}
}

// TestVideoHallucerPairsFallToTheSiblingAttacker: once one item of a
// basic/hallucinated pair on the same video is in the pool, the sibling
// attacker answers the other almost always. Pairs that ask the same question
// of a twin video are not siblings (L2 reads the same video only).
func TestVideoHallucerPairsFallToTheSiblingAttacker(t *testing.T) {
	t.Parallel()
	items := attacktest.LoadReal(t, "videohallucer.jsonl")
	text, question := embedOrFail(t, items)
	cfg := attack.DefaultConfig()
	orders := attack.Orders(items, 1, cfg.Orders)
	// The pair of "object_relation/0003/basic" is ".../hallucination".
	pair := func(it *harness.Item) string { return it.ID[:strings.LastIndex(it.ID, "/")] }
	var ok, n float64
	for v, order := range orders {
		s := attacktest.Stream(items, order, v, 1, text, question)
		got, err := attackerNamed(t, "siblings").Attack(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]*harness.Item{}
		for p, it := range s.Items {
			// Count items whose same-video other half was answered earlier,
			// once the learner has had a fifth of the order to find the
			// rule's sign.
			if other := seen[pair(it)]; other != nil && other.Video == it.Video && p >= len(s.Items)/5 {
				n++
				if got[p].Choice == it.Answer {
					ok++
				}
			}
			seen[pair(it)] = it
		}
	}
	acc := ok / n
	t.Logf("VideoHallucer: siblings answer %.3f of %d items (over %d orders) whose same-video pair was answered earlier", acc, int(n), len(orders))
	if acc < 0.95 {
		t.Errorf("accuracy %.3f on items with an answered same-video pair, want >= 0.95", acc)
	}
	c := runOn(t, items, "siblings")[0]
	r := result(t, c, "siblings")
	t.Logf("siblings final stage: accuracy %.3f, margin %+.3f", r.Accuracy, r.Margin)
	if r.Margin < 0.3 || !r.Significant {
		t.Errorf("siblings margin %+.3f, want a significant margin of at least 0.3", r.Margin)
	}
}

// TestSTARTemplatedQuestionsAreAPoolShortcut: STAR's questions come from
// templates and repeat across video segments, so answers of earlier items
// (copied, voted by neighbours, or read from siblings) beat chance clearly.
func TestSTARTemplatedQuestionsAreAPoolShortcut(t *testing.T) {
	t.Parallel()
	items := attacktest.LoadReal(t, "star.jsonl")
	distinct := map[string]bool{}
	for _, it := range items {
		distinct[it.Question] = true
	}
	t.Logf("STAR: %d distinct questions over %d items", len(distinct), len(items))
	if float64(len(distinct)) > 0.4*float64(len(items)) {
		t.Errorf("%d distinct questions over %d items; STAR's templates repeat more", len(distinct), len(items))
	}
	c := runOn(t, items, "copy", "knn-vote", "regression")[0]
	for _, name := range []string{"copy", "knn-vote", "regression"} {
		r := result(t, c, name)
		t.Logf("%s: accuracy %.3f [%.3f, %.3f], margin %+.3f, ALC %.3f, abstains %.2f", name, r.Accuracy, r.CILow, r.CIHigh, r.Margin, *r.ALC, r.AbstainShare)
	}
	for _, name := range []string{"copy", "knn-vote"} {
		if r := result(t, c, name); !r.Significant || r.Margin < 0.04 {
			t.Errorf("%s: margin %+.3f (significant %v), want a significant gain of at least 0.04", name, r.Margin, r.Significant)
		}
	}
}
