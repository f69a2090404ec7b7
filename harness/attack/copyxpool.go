package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// copyXPool is L1 with a cross-pool store (the blog, 001, tables 14-15,
// superscript c): the copy attacker whose store holds, besides the earlier
// items of the item's own benchmark, every item of the run's other
// benchmarks, answered before the benchmark starts. The nearest question
// at cosine >= cfg.CopyThreshold lends its answer, by option text, else by
// letter; a tie in cosine goes to the other benchmark's item (it entered
// the store first), then to the earlier one. This is where a benchmark's
// questions repeated in another (IntentQA's 525 from NExT-QA) show as
// exploitability, not only as duplicates.
type copyXPool struct {
	cfg   Config
	cache *Cache
}

func (*copyXPool) Name() string         { return "copy" + CrossPoolSuffix }
func (*copyXPool) Level() harness.Level { return harness.LevelPool }
func (*copyXPool) prequential()         {}
func (*copyXPool) usesQuestion()        {}
func (*copyXPool) crossPool()           {}

func (a *copyXPool) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkRows(a.Name(), s.Question, s); err != nil {
		return nil, err
	}
	if err := checkPool(a.Name(), s.Pool, s.Pool.questionOrNil()); err != nil {
		return nil, err
	}
	tau := float32(a.cfg.CopyThreshold)
	opt := a.cfg.kernelOptions()
	idx, err := a.cache.copyIndex.get(ctx, s, s.Question, thresholdSearch{tau, opt})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	pos := positions(s)
	norm := normOptions(s)
	out := make([]Prediction, len(s.Items))
	for _, store := range benchmarkStores(s) {
		rows, other := otherRows(s.Pool, s.Pool.Question, s.Items[store[0]].Benchmark)
		otherNorm := poolNorm(s.Pool, rows)
		// The nearest pool item of each stream item at cosine >= tau; ties
		// to the lower pool row.
		cross := make([]int, len(store))
		crossSim := make([]float32, len(store))
		for q := range cross {
			cross[q] = -1
		}
		if len(rows) > 0 {
			err := kernels.ThresholdJoin(ctx, subRows(s.Question, store), other, tau, opt, func(ps []kernels.Pair) error {
				for _, p := range ps {
					q := int(p.I)
					if cross[q] < 0 || p.Sim > crossSim[q] || (p.Sim == crossSim[q] && int(p.J) < cross[q]) {
						cross[q], crossSim[q] = int(p.J), p.Sim
					}
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", a.Name(), err)
			}
		}
		for q, p := range store {
			it := s.Items[p]
			best := -1
			var bestSim float32
			for _, n := range idx.lists[it.Key()] {
				r := pos[n.key]
				if r >= p {
					continue
				}
				if best < 0 || n.sim > bestSim || (n.sim == bestSim && r < best) {
					best, bestSim = r, n.sim
				}
			}
			var src []string
			answer := 0
			switch {
			case cross[q] >= 0 && (best < 0 || crossSim[q] >= bestSim):
				src, answer = otherNorm[cross[q]], s.Pool.Items[rows[cross[q]]].Answer
			case best >= 0:
				src, answer = norm[best], s.Items[best].Answer
			default:
				out[p] = abstain(s.Seed, a.Name(), it)
				continue
			}
			out[p] = lend(s.Seed, a.Name(), it, src, answer, norm[p])
		}
	}
	return out, nil
}
