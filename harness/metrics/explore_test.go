package metrics_test

import (
	"context"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

func TestExplore(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	items := attacktest.LoadReal(t)
	t.Logf("read %d items in %v", len(items), time.Since(t0))
	t0 = time.Now()
	text, q, err := attacktest.Embed(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("embed %v", time.Since(t0))
	cfg := attack.DefaultConfig()
	orders := attack.Orders(items, 1, cfg.Orders)
	var all []metrics.Outcome
	for _, a := range attack.Attackers(cfg) {
		t0 = time.Now()
		o, err := attacktest.RunAttacker(ctx, a, cfg, items, orders, 1, text, q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v", a.Name(), time.Since(t0))
		all = append(all, o...)
	}
	t0 = time.Now()
	d, err := dups.Find(ctx, items, text, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dups %v: %d pairs", time.Since(t0), len(d.Pairs))
	t0 = time.Now()
	cards, err := metrics.Cards(ctx, items, all, nil, d, metrics.DefaultConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cards %v", time.Since(t0))
	for _, c := range cards {
		t.Logf("%s n=%d chance=%.3f sig=%.3f dupshare=%.3f cross=%d", c.Benchmark, c.N, c.Chance, c.Significance, *c.NearDuplicateShare, *c.CrossBenchmarkDuplicates)
		for _, a := range c.Attackers {
			alc := -1.0
			if a.ALC != nil {
				alc = *a.ALC
			}
			t.Logf("   %-16s acc=%.3f margin=%+.3f [%.3f,%.3f] n=%d all=%.3f abst=%.2f solved=%.2f alc=%.3f", a.Name, a.Accuracy, a.Margin, a.CILow, a.CIHigh, a.N, a.AccuracyAll, a.AbstainShare, a.SolvedShare, alc)
		}
	}
}
