package metrics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// audit runs what an audit of the option, text and pool levels computes for
// items, minus records and rendering: embeddings, every attacker on its
// orders, near duplicates and cards. It logs how long each stage took.
func audit(tb testing.TB, items []*harness.Item, seed uint64) ([]metrics.Card, []metrics.Outcome) {
	tb.Helper()
	ctx := context.Background()
	t0, c0 := time.Now(), attacktest.CPUTime()
	since := func() string {
		s := fmt.Sprintf("%.2fs wall, %.2fs cpu", time.Since(t0).Seconds(), (attacktest.CPUTime() - c0).Seconds())
		t0, c0 = time.Now(), attacktest.CPUTime()
		return s
	}
	text, question, err := attacktest.Embed(ctx, items)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("embedding: %s", since())
	cfg := attack.DefaultConfig()
	orders := attack.Orders(items, seed, cfg.Orders)
	var outcomes []metrics.Outcome
	for _, a := range attack.Attackers(cfg) {
		o, err := attacktest.RunAttacker(ctx, a, cfg, items, orders, seed, text, question)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Logf("%s: %s", a.Name(), since())
		outcomes = append(outcomes, o...)
	}
	dup, err := dups.Find(ctx, items, text, dups.DefaultThreshold)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("near duplicates: %s, %d pairs", since(), len(dup.Pairs))
	mc := metrics.DefaultConfig(cfg)
	mc.Seed = seed
	cards, err := metrics.Cards(ctx, items, outcomes, nil, dup, mc)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("cards: %s", since())
	return cards, outcomes
}

// TestCardsShowKnownPropertiesOfRealData audits all four development files
// and checks that the cards show what ../shared/data/README.md says about
// them: Social-IQ 2.0 breaks at the option level, VideoHallucer's same-video
// pairs fall to the sibling attacker at the pool level, STAR's templated questions give
// the pool attackers a clear margin and many near duplicates.
func TestCardsShowKnownPropertiesOfRealData(t *testing.T) {
	items := attacktest.LoadReal(t)
	cards, _ := audit(t, items, 1)
	by := map[string]metrics.Card{}
	for _, c := range cards {
		by[c.Benchmark] = c
		t.Logf("%-14s n=%5d chance=%.3f option=%+.3f (%s) text=%+.3f (%s) pool=%+.3f (%s) near-dup share=%.3f ALC=%.3f",
			c.Benchmark, c.N, c.Chance, c.Levels.Option.Eps, c.Levels.Option.Attacker, c.Levels.Text.Eps, c.Levels.Text.Attacker,
			c.Levels.Pool.Eps, c.Levels.Pool.Attacker, *c.NearDuplicateShare, *c.ALC)
		for _, r := range c.Attackers {
			t.Logf("    %-16s %-6s acc=%.3f [%.3f,%.3f] margin=%+.3f n=%d significant=%v solved=%.3f",
				r.Name, r.Level, r.Accuracy, r.CILow, r.CIHigh, r.Margin, r.N, r.Significant, r.SolvedShare)
		}
		if c.Levels.Option.Eps > c.Levels.Text.Eps || c.Levels.Text.Eps > c.Levels.Pool.Eps {
			t.Errorf("%s: exploitability is not a running maximum: %+v", c.Benchmark, c.Levels)
		}
	}
	siq, vh, star, next := by["Social-IQ-2.0"], by["VideoHallucer"], by["STAR"], by["NExT-QA"]
	if l := siq.Levels.Option; l.Attacker != "option-artifact" || !l.Significant || l.Eps < 0.08 {
		t.Errorf("Social-IQ 2.0 option level %+v, want a significant option-artifact margin of at least 0.08", *l)
	}
	if l := vh.Levels.Pool; l.Attacker != "siblings" || l.Eps < 0.3 {
		t.Errorf("VideoHallucer pool level %+v, want the sibling attacker at 0.3 or more", *l)
	}
	if *vh.NearDuplicateShare < 0.2 {
		t.Errorf("VideoHallucer near-duplicate share %.3f; about 200 of its items are exact repeats", *vh.NearDuplicateShare)
	}
	if l := star.Levels.Pool; !l.Significant || l.Eps < 0.1 {
		t.Errorf("STAR pool level %+v, want a significant margin of at least 0.1", *l)
	}
	if *star.NearDuplicateShare <= *next.NearDuplicateShare {
		t.Errorf("STAR near-duplicate share %.3f not above NExT-QA's %.3f", *star.NearDuplicateShare, *next.NearDuplicateShare)
	}
}

// BenchmarkAudit times everything an audit of the option, text and pool
// levels does with the four development files besides records and
// rendering, and reports items per second.
func BenchmarkAudit(b *testing.B) {
	items := attacktest.LoadReal(b)
	n := 0
	cpu0 := attacktest.CPUTime()
	for b.Loop() {
		audit(b, items, 1)
		n += len(items)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric((attacktest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkCards times the cards alone on the outcomes of a full run.
func BenchmarkCards(b *testing.B) {
	items := attacktest.LoadReal(b)
	_, outcomes := audit(b, items, 1)
	cfg := metrics.DefaultConfig(attack.DefaultConfig())
	for b.Loop() {
		if _, err := metrics.Cards(context.Background(), items, outcomes, nil, nil, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(outcomes)*b.N)/b.Elapsed().Seconds(), "outcomes/s")
}
