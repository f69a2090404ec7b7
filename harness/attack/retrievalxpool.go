package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/letters"
)

// retrievalXPool is the retrieval reader with a cross-pool store (the
// blog, 001, tables 14-15, superscript c): the retrievalK pairs nearest by
// question embedding among the earlier items of the item's own benchmark
// and every item of the run's other benchmarks (answered, gold included,
// before the benchmark starts). Ties in cosine go to the other benchmarks'
// items (they entered the store first), then to the earlier. Within the
// benchmark the prequential rule holds: an item's own gold never enters
// before it is answered.
type retrievalXPool struct {
	cfg   Config
	cache *Cache
	r     LetterReader
}

func (*retrievalXPool) Name() string         { return "retrieval-reader" + CrossPoolSuffix }
func (*retrievalXPool) Level() harness.Level { return harness.LevelPool }
func (*retrievalXPool) prequential()         {}
func (*retrievalXPool) usesQuestion()        {}
func (*retrievalXPool) crossPool()           {}
func (*retrievalXPool) scoresLetters()       {}

func (a *retrievalXPool) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkRows(a.Name(), s.Question, s); err != nil {
		return nil, err
	}
	if err := checkPool(a.Name(), s.Pool, s.Pool.questionOrNil()); err != nil {
		return nil, err
	}
	if a.r == nil {
		return nil, fmt.Errorf("%s: no lm_reader", a.Name())
	}
	opt := a.cfg.kernelOptions()
	// The retrievalK nearest pool items of the other benchmarks of each
	// stream item.
	cross, err := crossNearest(ctx, s, s.Question, s.Pool.Question, retrievalK, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	prompts := make([]letters.Prompt, len(s.Items))
	quiet := *s
	quiet.Progress = nil
	var near []storeHit
	err = nearestEarlierBy(ctx, retrievalK, opt, &a.cache.retrievalIndex, s.Question, &quiet, func(p int, within []earlier) {
		if !s.asks(p) {
			return // another shard's item: not asked
		}
		near = storeOrder(near, cross[p], within, len(s.Pool.Items))
		pairs := make([]*harness.Item, 0, retrievalK)
		for _, n := range near[:min(len(near), retrievalK)] {
			if n.place < len(s.Pool.Items) {
				pairs = append(pairs, s.Pool.Items[n.place])
			} else {
				pairs = append(pairs, s.Items[n.place-len(s.Pool.Items)])
			}
		}
		prompts[p] = fitPairs(a.r, s.Items[p], pairs)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	return readPrompts(ctx, a.Name(), a.r, s, prompts)
}
