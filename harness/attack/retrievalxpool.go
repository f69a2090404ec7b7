package attack

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
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

// A retrieved pair is one candidate of the store: the item, its cosine to
// the item asked, and its place in the store (pool rows first, then the
// stream's earlier items by position) for ties.
type retrieved struct {
	it    *harness.Item
	sim   float32
	place int
}

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
	cross := make([][]retrieved, len(s.Items))
	for _, store := range benchmarkStores(s) {
		rows, other := otherRows(s.Pool, s.Pool.Question, s.Items[store[0]].Benchmark)
		if len(rows) == 0 {
			continue
		}
		nb, err := kernels.TopK(ctx, subRows(s.Question, store), other, retrievalK, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Name(), err)
		}
		for q, p := range store {
			ids, sims := nb.Row(q)
			for r, j := range ids {
				if j >= 0 {
					cross[p] = append(cross[p], retrieved{s.Pool.Items[rows[j]], sims[r], int(j)})
				}
			}
		}
	}
	prompts := make([]models.LetterPrompt, len(s.Items))
	quiet := *s
	quiet.Progress = nil
	var near []retrieved
	err := nearestEarlierBy(ctx, retrievalK, opt, &a.cache.retrievalIndex, s.Question, &quiet, func(p int, within []earlier) {
		near = append(near[:0], cross[p]...)
		for _, e := range within {
			near = append(near, retrieved{s.Items[e.pos], e.sim, len(s.Pool.Items) + e.pos})
		}
		slices.SortFunc(near, func(x, y retrieved) int {
			if c := cmp.Compare(y.sim, x.sim); c != 0 {
				return c
			}
			return cmp.Compare(x.place, y.place)
		})
		pairs := make([]*harness.Item, 0, retrievalK)
		for _, n := range near[:min(len(near), retrievalK)] {
			pairs = append(pairs, n.it)
		}
		prompts[p] = fitPairs(a.r, s.Items[p], pairs)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	return readPrompts(ctx, a.Name(), a.r, s, prompts)
}
