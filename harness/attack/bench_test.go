package attack_test

import (
	"context"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/kernels"
)

// realRun holds the development data and its embeddings, loaded once for all
// benchmarks of the package.
var realRun struct {
	once     sync.Once
	items    []*harness.Item
	text, qs *kernels.Matrix
	err      error
}

func loadRealRun(b *testing.B) ([]*harness.Item, *kernels.Matrix, *kernels.Matrix) {
	b.Helper()
	attacktest.DataDir(b)
	realRun.once.Do(func() {
		realRun.items = attacktest.LoadReal(b)
		realRun.text, realRun.qs, realRun.err = attacktest.Embed(context.Background(), realRun.items)
	})
	if realRun.err != nil {
		b.Fatal(realRun.err)
	}
	return realRun.items, realRun.text, realRun.qs
}

// BenchmarkAttackers runs each attacker over all four development files, on
// every order it runs on in an audit (a fresh attacker per iteration, so
// caches shared between orders count), and reports items answered per second
// (items x orders / time).
func BenchmarkAttackers(b *testing.B) {
	items, text, qs := loadRealRun(b)
	cfg := attack.DefaultConfig()
	orders := attack.Orders(items, 1, cfg.Orders)
	for _, proto := range attack.Attackers(cfg) {
		b.Run(proto.Name(), func(b *testing.B) {
			ctx := context.Background()
			var answered int
			cpu0 := attacktest.CPUTime()
			for b.Loop() {
				a := attack.Attackers(cfg)
				var fresh attack.Attacker
				for _, x := range a {
					if x.Name() == proto.Name() {
						fresh = x
					}
				}
				out, err := attacktest.RunAttacker(ctx, fresh, cfg, items, orders, 1, text, qs)
				if err != nil {
					b.Fatal(err)
				}
				answered += len(out)
			}
			b.ReportMetric(float64(answered)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric((attacktest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
