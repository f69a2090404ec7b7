package metrics_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// BenchmarkCardsByBenchmark measures the card stage of an audit at the text
// levels: 20,000 items in 10 benchmarks, every attacker of the default
// configuration on its orders (36 reduced outcomes per item, as a run hands
// them over), folded into the cards and the item table one benchmark at a
// time (stream), and for comparison held at once through Cards and
// ItemScores (slice).
func BenchmarkCardsByBenchmark(b *testing.B) {
	const n, benchmarks = 20000, 10
	r := rand.New(rand.NewPCG(1, 1))
	items := make([]*harness.Item, n)
	for i := range items {
		items[i] = &harness.Item{ID: fmt.Sprint(i), Benchmark: fmt.Sprint("B", i%benchmarks), Options: []string{"a", "b", "c", "d", "e"}[:2+r.IntN(4)],
			Task: fmt.Sprint("t", r.IntN(5))}
		items[i].Answer = r.IntN(len(items[i].Options))
	}
	ac := attack.DefaultConfig()
	cfg := metrics.DefaultConfig(ac)
	cfg.Seed = 1
	atts := attack.Attackers(ac)
	orders := attack.Orders(items, 1, ac.Orders)
	folds := attack.Folds(items, 1)
	where := make([][]int, len(orders))
	for v, o := range orders {
		where[v] = make([]int, n)
		for p, i := range o {
			where[v][i] = p
		}
	}
	outcomes := 0
	src := func(members []int, yield func(metrics.Outcome) error) error {
		for _, a := range atts {
			for v := range attack.Variants(a, ac) {
				for _, i := range members {
					c := (i * (v + 3)) % len(items[i].Options)
					o := metrics.Outcome{Item: i, Attacker: a.Name(), Level: a.Level(), Variant: v, Position: where[v][i], Scored: attack.Scored(a, folds[i], v),
						Reduced: true, Answer: metrics.Answer{Choice: c, Abstain: i%17 == 0, Margin: float64(c-items[i].Answer) / 3}}
					outcomes++
					if err := yield(o); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	b.Run("stream", func(b *testing.B) {
		outcomes = 0
		for range b.N {
			if _, _, err := metrics.CardsByBenchmark(context.Background(), items, src, nil, nil, cfg); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
		b.ReportMetric(float64(outcomes)/b.Elapsed().Seconds(), "outcomes/s")
	})
	// The same outcomes held at once, whole, through Cards and ItemScores:
	// what the card stage did before it streamed.
	b.Run("slice", func(b *testing.B) {
		var all []metrics.Outcome
		every := make([]int, n)
		for i := range every {
			every[i] = i
		}
		src(every, func(o metrics.Outcome) error {
			sc := make([]float64, len(items[o.Item].Options))
			sc[o.Answer.Choice] = o.Answer.Margin
			o.Reduced, o.Pred = false, attack.Prediction{Choice: o.Answer.Choice, Abstain: o.Answer.Abstain, Scores: sc}
			all = append(all, o)
			return nil
		})
		b.ResetTimer()
		for range b.N {
			if _, err := metrics.Cards(context.Background(), items, all, nil, nil, cfg); err != nil {
				b.Fatal(err)
			}
			if _, err := metrics.ItemScores(items, all, cfg); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
		b.ReportMetric(float64(len(all)*b.N)/b.Elapsed().Seconds(), "outcomes/s")
	})
}
