package attack

import (
	"context"
	"fmt"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
)

// bagOfFrames is the bag-of-frames test of Video-Oasis (seed 003, section
// 4): the question alone is encoded by the image_text text tower, the k
// frames of the ~1 fps set most similar to it are kept (ties to the earlier
// frame), and each option text is scored by the mean (or, with useMax, the
// maximum) of its cosine to those frames, then as CLIP's zero-shot
// classifier: log-softmax of scale*score + bias. The frames' order is thrown
// away, so an item it solves needs no temporal understanding. An item whose
// video failed gets a seeded guess.
type bagOfFrames struct {
	k      int
	useMax bool
}

func (a *bagOfFrames) Name() string {
	if a.useMax {
		return "bag-of-frames-max"
	}
	return "bag-of-frames-mean"
}
func (*bagOfFrames) Level() harness.Level { return harness.LevelOrder }
func (*bagOfFrames) needs() Needs         { return NeedBag }

func (a *bagOfFrames) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkVisual(a.Name(), s); err != nil {
		return nil, err
	}
	out := make([]Prediction, len(s.Items))
	for p, it := range s.Items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := s.Visual[p]
		if v.Failure != "" || v.Bag == nil || v.Bag.Rows == 0 || v.Question == nil || v.Options == nil {
			out[p] = abstain(s.Seed, a.Name(), it)
			continue
		}
		if v.Options.Rows != len(it.Options) {
			return nil, fmt.Errorf("%s: item %s: %d option embeddings for %d options", a.Name(), it.Source, v.Options.Rows, len(it.Options))
		}
		top := topFrames(v, a.k)
		logits := make([]float64, len(it.Options))
		for j := range logits {
			o := v.Options.Row(j)
			var agg float64
			for n, f := range top {
				c := dot(v.Bag.Row(f), o)
				switch {
				case !a.useMax:
					agg += c / float64(len(top))
				case n == 0 || c > agg:
					agg = c
				}
			}
			logits[j] = v.Scale*agg + v.Bias
		}
		out[p] = decide(v.zeroShotScores(logits), s.Seed, a.Name(), it)
	}
	return out, nil
}

// topFrames returns the indices of the k frames of v.Bag most similar to
// v.Question, most similar first; equal similarities keep time order.
func topFrames(v *Visual, k int) []int {
	n := v.Bag.Rows
	idx := make([]int, n)
	sim := make([]float64, n)
	for f := range idx {
		idx[f] = f
		sim[f] = dot(v.Bag.Row(f), v.Question)
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		switch {
		case sim[x] > sim[y]:
			return -1
		case sim[x] < sim[y]:
			return 1
		}
		return 0
	})
	if k > 0 && k < n {
		idx = idx[:k]
	}
	return idx
}
