package attack

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// knnVote is L3 without a reader: the cfg.K nearest earlier items of the
// benchmark by question+options embedding vote for their gold answers,
// mapped onto this item's options by text, else by letter, each vote weighted
// by its cosine (Video-Index 3.4 gives the eight nearest question-answer
// pairs to a reader; the vote is the model-free counterpart). Ties in cosine
// go to the earlier item.
type knnVote struct {
	cfg   Config
	cache *Cache
}

func (*knnVote) Name() string         { return "knn-vote" }
func (*knnVote) Level() harness.Level { return harness.LevelPool }
func (*knnVote) prequential()         {}
func (*knnVote) usesText()            {}

// knnPrior is the pseudo-vote per option: small against one neighbour's
// cosine, so that a single close neighbour decides, yet enough to keep every
// log-probability finite.
const knnPrior = 0.05

// candidateDepth is the length of the order-free candidate lists in
// multiples of K, and prefixShare the share of each order answered by an
// exact search over the earlier rows instead: an item at a fraction f of an
// order finds on average candidateDepth*K*f earlier items in its list, 2K at
// the end of the prefix, so the lists rarely fall short after it (and where
// one does, the item is searched exactly). One list search and a prefix
// search per order cost about 2 + Orders/16 times an order's exact search,
// against Orders times without lists.
const (
	candidateDepth = 8
	prefixShare    = 0.25
)

func (a *knnVote) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkRows(a.Name(), s.Text, s); err != nil {
		return nil, err
	}
	norm := normOptions(s)
	out := make([]Prediction, len(s.Items))
	err := nearestEarlier(ctx, a.cfg, a.cache, s, func(p int, near []earlier) {
		out[p] = a.vote(s, norm, p, near)
	})
	if err != nil {
		return nil, fmt.Errorf("knn vote: %w", err)
	}
	return out, nil
}

// nearestEarlier calls fn with every stream position p and the cfg.K
// nearest items of its benchmark answered before it (by question+options
// embedding, ties to the earlier), benchmark by benchmark in name order and
// each in stream order. near is reused after fn returns.
func nearestEarlier(ctx context.Context, cfg Config, cache *Cache, s *Stream, fn func(p int, near []earlier)) error {
	k := cfg.K
	if k < 1 {
		k = 8
	}
	return nearestEarlierBy(ctx, k, cfg.kernelOptions(), &cache.knnIndex, s.Text, s, fn)
}

// nearestEarlierBy is nearestEarlier for k neighbours by the embedding rows
// m (one per stream item), its candidate lists kept in ic: the k-NN vote
// searches by question+options, the retrieval reader by question.
func nearestEarlierBy(ctx context.Context, k int, opt kernels.Options, ic *indexCache, m *kernels.Matrix, s *Stream, fn func(p int, near []earlier)) error {
	idx, err := ic.get(ctx, s, m, topSearch{candidateDepth * k, opt})
	if err != nil {
		return err
	}
	pos := positions(s)
	var buf []earlier
	for _, store := range benchmarkStores(s) {
		prefix := int(math.Ceil(prefixShare * float64(len(store))))
		nb, err := kernels.TopKEarlier(ctx, subRows(m, store[:prefix]), k, opt)
		if err != nil {
			return err
		}
		for q, p := range store {
			if q%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if q > 0 {
					s.answered(1024)
				}
			}
			if q < prefix {
				ids, sims := nb.Row(q)
				buf = buf[:0]
				for r, j := range ids {
					if j >= 0 {
						buf = append(buf, earlier{store[j], sims[r]})
					}
				}
			} else {
				buf = fromList(idx, s, m, pos, store, q, k, buf)
			}
			fn(p, buf)
		}
		s.answered(len(store) - (len(store)-1)/1024*1024)
	}
	return nil
}

// vote turns the nearest earlier items into a prediction for item p.
func (a *knnVote) vote(s *Stream, norm [][]string, p int, near []earlier) Prediction {
	return voteNeighbours(s.Seed, a.Name(), s.Items[p], norm[p], len(near), func(i int) ([]string, int, float32) {
		e := near[i]
		return norm[e.pos], s.Items[e.pos].Answer, e.sim
	})
}

// voteNeighbours is the k-NN vote of the within-pool and cross-pool
// attackers: each of n neighbours (its normalised options, gold answer and
// cosine, from at) with a positive cosine votes its answer, mapped onto
// the item's options (dst) by text, else by letter, weighted by the
// cosine; with no vote the attacker abstains.
func voteNeighbours(seed uint64, name string, it *harness.Item, dst []string, n int, at func(i int) ([]string, int, float32)) Prediction {
	w := make([]float64, len(it.Options))
	voted := false
	for i := range n {
		src, answer, sim := at(i)
		if sim <= 0 {
			continue
		}
		c, _ := mapAnswer(src, answer, dst)
		if c < 0 {
			continue
		}
		w[c] += float64(sim)
		voted = true
	}
	if !voted {
		return abstain(seed, name, it)
	}
	for o := range w {
		w[o] += knnPrior
	}
	return decide(logNormalize(w), seed, name, it)
}

type earlier struct {
	pos int
	sim float32
}

func byEarlierSim(x, y earlier) int {
	if c := cmp.Compare(y.sim, x.sim); c != 0 {
		return c
	}
	return cmp.Compare(x.pos, y.pos)
}

// fromList returns the k nearest items answered before store[q] (by the
// rows of m) from its candidate list, or by comparing it with every earlier item of the store
// when the list could have left one out: when it is truncated and does not
// hold k earlier items strictly nearer than its last entry.
func fromList(idx *poolIndex, s *Stream, m *kernels.Matrix, pos map[string]int, store []int, q, k int, buf []earlier) []earlier {
	p := store[q]
	key := s.Items[p].Key()
	list := idx.lists[key]
	buf = buf[:0]
	for _, n := range list {
		if r := pos[n.key]; r < p {
			buf = append(buf, earlier{r, n.sim})
		}
	}
	slices.SortFunc(buf, byEarlierSim)
	if idx.truncated[key] && (len(buf) < k || buf[k-1].sim <= list[len(list)-1].sim) {
		buf = buf[:0]
		x := m.Row(p)
		for _, r := range store[:q] {
			buf = append(buf, earlier{r, float32(dot64(x, m.Row(r)))})
		}
		slices.SortFunc(buf, byEarlierSim)
	}
	if len(buf) > k {
		buf = buf[:k]
	}
	return buf
}

// dot64 is the float64 dot product the kernels decide by.
func dot64(x, y []float32) float64 {
	var s float64
	for i := range x {
		s += float64(x[i]) * float64(y[i])
	}
	return s
}
