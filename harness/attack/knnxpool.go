package attack

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
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

// A voter is one neighbour that votes: its normalised options, its gold
// answer, its cosine, and where it stands in the store (pool items first,
// by pool row, then earlier stream items by position) for ties.
type voter struct {
	norm   []string
	answer int
	sim    float32
	place  int
}

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
	cross := make([][]voter, len(s.Items))
	for _, store := range benchmarkStores(s) {
		rows, other := otherRows(s.Pool, s.Pool.Text, s.Items[store[0]].Benchmark)
		if len(rows) == 0 {
			continue
		}
		otherNorm := poolNorm(s.Pool, rows)
		nb, err := kernels.TopK(ctx, subRows(s.Text, store), other, k, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Name(), err)
		}
		for q, p := range store {
			ids, sims := nb.Row(q)
			for r, j := range ids {
				if j >= 0 {
					cross[p] = append(cross[p], voter{otherNorm[j], s.Pool.Items[rows[j]].Answer, sims[r], int(j)})
				}
			}
		}
	}
	out := make([]Prediction, len(s.Items))
	var near []voter
	err := nearestEarlier(ctx, a.cfg, a.cache, s, func(p int, within []earlier) {
		near = append(near[:0], cross[p]...)
		for _, e := range within {
			near = append(near, voter{norm[e.pos], s.Items[e.pos].Answer, e.sim, len(s.Pool.Items) + e.pos})
		}
		slices.SortFunc(near, func(x, y voter) int {
			if c := cmp.Compare(y.sim, x.sim); c != 0 {
				return c
			}
			return cmp.Compare(x.place, y.place)
		})
		if len(near) > k {
			near = near[:k]
		}
		out[p] = a.vote(s, norm, p, near)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	return out, nil
}

// vote is knnVote.vote over voters.
func (a *knnXPool) vote(s *Stream, norm [][]string, p int, near []voter) Prediction {
	return voteNeighbours(s.Seed, a.Name(), s.Items[p], norm[p], len(near), func(i int) ([]string, int, float32) {
		return near[i].norm, near[i].answer, near[i].sim
	})
}
