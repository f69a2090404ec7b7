package run

import (
	"context"
	"fmt"
	"time"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// cards is the cards stage: it turns the units' predictions into outcomes
// and computes each benchmark's card against ref (the reference's answers
// by item key) and dup, with the evaluated models' residuals, the served
// readers' modes, the failures, the effective size, the permutation audit,
// the further orders' solved counts, the reference's source and the order
// diagnostics. It returns the cards and the attackers' scores of each item, and
// lets go of the units' predictions.
func (a *audit) cards(ctx context.Context, ref map[string]int, dup *dups.Result) ([]metrics.Card, []metrics.ItemScore, error) {
	// The units' compact predictions stay until the cards, which read
	// them one benchmark at a time (outcomes).
	threads := a.opt.kernelOptions()
	// The permutation audit first, under its own meter: its model calls
	// are the long part when its answers are not stored.
	perms, further, err := a.permutations(ctx)
	if err != nil {
		return nil, nil, err
	}
	t0 := time.Now()
	mcfg := metrics.DefaultConfig(a.acfg)
	mcfg.Seed = a.opt.Seed
	mcfg.Threads = threads.Threads
	// The meter counts cards, one per benchmark, those whose every item
	// was set aside included.
	ncards := len(byBenchmark(a.items))
	for _, s := range a.aside {
		if s.Only() {
			ncards++
		}
	}
	cm := newMeter(a.opt.Progress, int64(ncards), "cards", "cards")
	mcfg.Embedder = a.cfg.Embedder
	a.serverFailed.into(a)
	mcfg.Failures = a.failures
	// removed counts the duplicates removed before the audit; only a run
	// with --sample describes its draw on the cards (Sample).
	removed := map[string]int{}
	for _, si := range a.samples {
		removed[si.Benchmark] = si.Duplicates
		if a.opt.Sample <= 0 {
			continue
		}
		if mcfg.Samples == nil {
			mcfg.Samples = map[string]metrics.Sample{}
		}
		mcfg.Samples[si.Benchmark] = metrics.Sample{Of: si.Of, Method: si.Method, Duplicates: si.Duplicates, Replaced: si.Refilled}
	}
	cards, scores, err := metrics.CardsByBenchmark(ctx, a.items, a.outcomes(), metrics.Reference(ref), dup, mcfg)
	if err != nil {
		cm.exit()
		return nil, nil, fmt.Errorf("cards: %w", err)
	}
	for _, u := range a.units {
		u.ans = nil
	}
	metrics.WithModels(cards, a.items, a.models)
	served, err := a.servedModes()
	if err != nil {
		cm.exit()
		return nil, nil, err
	}
	metrics.WithServed(cards, served)
	if a.failures != nil {
		metrics.CountFailures(cards, a.items, a.failures)
	}
	if a.meanFrames != nil && a.questionTE != nil {
		eff, err := effectiveSizes(ctx, a.items, a.meanFrames, a.questionTE, a.opt.Seed, threads.Threads)
		if err != nil {
			cm.exit()
			return nil, nil, fmt.Errorf("effective size: %w", err)
		}
		for k := range cards {
			cards[k].EffectiveSize = eff[cards[k].Benchmark]
		}
	}
	for _, at := range a.attackers {
		if f, ok := further[at.Name()]; ok {
			if err := metrics.SolvedOverOrders(cards, a.items, scores, at.Name(), f.choices, f.margins); err != nil {
				cm.exit()
				return nil, nil, err
			}
		}
	}
	for k := range cards {
		cards[k].Permutation = perms[cards[k].Benchmark]
		metrics.WithReferenceSource(&cards[k], a.refSource[cards[k].Benchmark])
		cards[k].OrderDiagnostics = a.diagnostics[cards[k].Benchmark]
	}
	if !a.opt.NoDedup {
		metrics.WithDuplicatesRemoved(cards, removed)
	}
	cards = metrics.WithSetAside(cards, a.aside)
	if a.answerChecks != nil {
		metrics.WithAnswerChecks(cards, a.answerChecks)
	}
	if a.opt.ReferenceModel {
		metrics.WithSecondReference(cards, a.items, a.secondRef, a.secondRefModel, a.secondRefNote)
	}
	if len(ref) > 0 {
		metrics.WithErrorAttributions(cards, metrics.ErrorAttributions(a.items, ref, scores, a.blindReaderName(), false))
	}
	cm.add(len(cards))
	cm.finish()
	a.stage("cards", t0)
	return cards, scores, nil
}

// outcomes yields the outcomes of a benchmark's items from the units'
// predictions: per unit, in the order of the members, each with its
// position in the unit's order and whether that position is scored.
func (a *audit) outcomes() metrics.BenchmarkOutcomes {
	return func(members []int, yield func(metrics.Outcome) error) error {
		for _, u := range a.units {
			at := a.attackers[u.attacker]
			name, level, where := at.Name(), at.Level(), a.index.where[u.variant%len(a.orders)]
			for _, i := range members {
				o := metrics.Outcome{Item: i, Attacker: name, Level: level, Variant: u.variant, Position: int(where[i]),
					Scored: attack.Scored(at, a.folds[i], u.variant)}
				u.ans.fill(int32(i), &o)
				if err := yield(o); err != nil {
					return err
				}
			}
		}
		return nil
	}
}
