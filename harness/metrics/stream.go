package metrics

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
)

// BenchmarkOutcomes yields, through yield, every outcome of the items
// members: the items of one benchmark, ascending. It returns yield's first
// error.
type BenchmarkOutcomes func(members []int, yield func(Outcome) error) error

// CardsByBenchmark computes what Cards and ItemScores compute, one benchmark
// at a time: it asks outcomes for each benchmark's outcomes in turn (in
// benchmark name order), folds them into that benchmark's card and the item
// table, and lets them go before the next. Memory holds the outcomes of one
// benchmark rather than of the pool; the cards and item scores are those of
// Cards and ItemScores over all the outcomes at once. An outcome of an
// item outside the benchmark asked for is an error.
func CardsByBenchmark(ctx context.Context, items []*harness.Item, outcomes BenchmarkOutcomes, ref Reference, dup *dups.Result, cfg Config) ([]Card, []ItemScore, error) {
	atts := configured(cfg.Attack)
	col := columns(atts)
	names, bench := benchmarkIndex(items)
	members := membersOf(len(names), bench)
	table := newCellTable(len(items), len(atts))
	cards := make([]Card, len(names))
	for b, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		// byAttacker[attacker][variant] lists the scored outcomes.
		byAttacker := make([]map[int][]scored, len(atts))
		for k := range byAttacker {
			byAttacker[k] = map[int][]scored{}
		}
		err := outcomes(members[b], func(o Outcome) error {
			k, ok := col[o.Attacker]
			if !ok {
				return fmt.Errorf("cards: outcome of unknown attacker %q", o.Attacker)
			}
			if o.Item >= 0 && o.Item < len(items) && bench[o.Item] != b {
				return fmt.Errorf("cards: outcome of %s for item %d of benchmark %s among those of %s", o.Attacker, o.Item, items[o.Item].Benchmark, name)
			}
			s, err := score(items, o)
			if err != nil {
				return fmt.Errorf("cards: %w", err)
			}
			byAttacker[k][o.Variant] = append(byAttacker[k][o.Variant], s)
			table.add(k, o.Variant, s)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if cards[b], err = benchmarkCard(ctx, items, atts, name, members[b], byAttacker, ref, dup, cfg); err != nil {
			return nil, nil, err
		}
	}
	var scores []ItemScore
	if len(atts) > 0 {
		scores = table.scores(atts)
	}
	return cards, scores, nil
}
