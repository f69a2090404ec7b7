package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// knnVote is L3 without a reader: the cfg.K nearest earlier items of the
// benchmark by question+options embedding vote for their gold answers,
// mapped onto this item's options by text, else by letter, each vote weighted
// by its cosine (Video-Index 3.4 gives the eight nearest question-answer
// pairs to a reader; the vote is the model-free counterpart).
type knnVote struct{ cfg Config }

func (*knnVote) Name() string         { return "knn-vote" }
func (*knnVote) Level() harness.Level { return harness.LevelPool }
func (*knnVote) prequential()         {}
func (*knnVote) usesText()            {}

// knnPrior is the pseudo-vote per option: small against one neighbour's
// cosine, so that a single close neighbour decides, yet enough to keep every
// log-probability finite.
const knnPrior = 0.05

func (a *knnVote) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkRows(a.Name(), s.Text, s); err != nil {
		return nil, err
	}
	k := a.cfg.K
	if k < 1 {
		k = 8
	}
	norm := normOptions(s)
	out := make([]Prediction, len(s.Items))
	for _, store := range benchmarkStores(s) {
		nb, err := kernels.TopKEarlier(ctx, subRows(s.Text, store), k, a.cfg.kernelOptions())
		if err != nil {
			return nil, fmt.Errorf("knn vote: %w", err)
		}
		for q, p := range store {
			it := s.Items[p]
			idx, sim := nb.Row(q)
			w := make([]float64, len(it.Options))
			voted := false
			for r, j := range idx {
				if j < 0 || sim[r] <= 0 {
					continue
				}
				src := store[j]
				c, _ := mapAnswer(norm[src], s.Items[src].Answer, norm[p])
				if c < 0 {
					continue
				}
				w[c] += float64(sim[r])
				voted = true
			}
			if !voted {
				out[p] = abstain(s.Seed, a.Name(), it)
				continue
			}
			for o := range w {
				w[o] += knnPrior
			}
			out[p] = decide(logNormalize(w), s.Seed, a.Name(), it)
		}
	}
	return out, nil
}
