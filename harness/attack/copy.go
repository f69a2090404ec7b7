package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// copyAttacker is L1 (Video-Index 3.4): the nearest earlier question of the
// same benchmark lends its answer when the two questions' cosine is at least
// cfg.CopyThreshold, mapped onto this item's options by text, else by letter.
// Without such a neighbour it abstains. Ties in cosine go to the earliest
// item.
type copyAttacker struct {
	cfg   Config
	cache *Cache
}

func (*copyAttacker) Name() string         { return "copy" }
func (*copyAttacker) Level() harness.Level { return harness.LevelPool }
func (*copyAttacker) prequential()         {}
func (*copyAttacker) usesQuestion()        {}

// copyPrior is the Dirichlet pseudo-count per option behind the copy's
// scores: one copied vote then has probability (1+a)/(1+n*a) and a margin of
// log((1+a)/a) = log 5 over every other option, above the log 2 that marks
// an item as solved (Video-Index section 5, screening).
const copyPrior = 0.25

func (a *copyAttacker) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkRows(a.Name(), s.Question, s); err != nil {
		return nil, err
	}
	idx, err := a.cache.copyIndex.get(ctx, s, s.Question, thresholdSearch{float32(a.cfg.CopyThreshold), a.cfg.kernelOptions()})
	if err != nil {
		return nil, fmt.Errorf("copy: %w", err)
	}
	pos := positions(s)
	norm := normOptions(s)
	out := make([]Prediction, len(s.Items))
	for p, it := range s.Items {
		best := -1
		var bestSim float32
		for _, n := range idx.lists[it.Key()] {
			q := pos[n.key]
			if q >= p {
				continue
			}
			if best < 0 || n.sim > bestSim || (n.sim == bestSim && q < best) {
				best, bestSim = q, n.sim
			}
		}
		if best < 0 {
			out[p] = abstain(s.Seed, a.Name(), it)
			continue
		}
		out[p] = lend(s.Seed, a.Name(), it, norm[best], s.Items[best].Answer, norm[p])
	}
	return out, nil
}

// lend is the copy attackers' answer to it: the gold answer of the nearest
// earlier question (its normalised options src), mapped onto the item's
// options dst by text, else by letter; when it maps onto none of them the
// attacker abstains.
func lend(seed uint64, name string, it *harness.Item, src []string, answer int, dst []string) Prediction {
	j, _ := mapAnswer(src, answer, dst)
	if j < 0 {
		return abstain(seed, name, it)
	}
	w := make([]float64, len(it.Options))
	for o := range w {
		w[o] = copyPrior
	}
	w[j]++
	return decide(logNormalize(w), seed, name, it)
}
