package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// knnXPool is the k-NN vote with a cross-pool store (the blog, 001, tables
// 14-15, superscript c): the cfg.K nearest items by question+options
// embedding among the earlier items of the item's own benchmark and every
// item of the run's other benchmarks (answered before the benchmark
// starts) vote for their gold answers, mapped by option text, else by
// letter, each weighted by its cosine. Ties in cosine go to the other
// benchmarks' items (they entered the store first), then to the earlier.
type knnXPool struct {
	cfg   Config
	cache *Cache
}

func (*knnXPool) Name() string         { return "knn-vote" + CrossPoolSuffix }
func (*knnXPool) Level() harness.Level { return harness.LevelPool }
func (*knnXPool) prequential()         {}
func (*knnXPool) usesText()            {}
func (*knnXPool) crossPool()           {}

func (a *knnXPool) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkRows(a.Name(), s.Text, s); err != nil {
		return nil, err
	}
	if err := checkPool(a.Name(), s.Pool, s.Pool.textOrNil()); err != nil {
		return nil, err
	}
	k := a.cfg.K
	if k < 1 {
		k = 8
	}
	opt := a.cfg.kernelOptions()
	norm := normOptions(s)
	// The k nearest pool items of the other benchmarks of each stream item.
	cross, err := crossNearest(ctx, s, s.Text, s.Pool.Text, k, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	// The pool's normalised options, by pool row, for its voters.
	poolRows := make([]int, len(s.Pool.Items))
	for i := range poolRows {
		poolRows[i] = i
	}
	pool := poolNorm(s.Pool, poolRows)
	out := make([]Prediction, len(s.Items))
	var near []storeHit
	err = nearestEarlier(ctx, a.cfg, a.cache, s, func(p int, within []earlier) {
		near = storeOrder(near, cross[p], within, len(s.Pool.Items))
		if len(near) > k {
			near = near[:k]
		}
		out[p] = a.vote(s, norm, pool, p, near)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	return out, nil
}

// vote is knnVote.vote over the store's hits: a pool row's options and
// gold, or an earlier stream item's.
func (a *knnXPool) vote(s *Stream, norm, pool [][]string, p int, near []storeHit) Prediction {
	return voteNeighbours(s.Seed, a.Name(), s.Items[p], norm[p], len(near), func(i int) ([]string, int, float32) {
		h := near[i]
		if h.place < len(s.Pool.Items) {
			return pool[h.place], s.Pool.Items[h.place].Answer, h.sim
		}
		pos := h.place - len(s.Pool.Items)
		return norm[pos], s.Items[pos].Answer, h.sim
	})
}
