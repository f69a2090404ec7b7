package attack

import (
	"context"
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// siblings is L2-rule (Video-Index appendix, tables 14-15: "L2-rule ... use
// sibling items of the same video through rules"). Instead of fixed rules it
// learns, prequentially within each benchmark, a conditional logit over what
// the already-answered items of the same video say about each option of this
// one: does this option equal the gold of a sibling asking the same
// question, or a different one, or the gold of the most similarly worded
// sibling; is it a sibling's distractor; is its position a sibling's gold
// position. Items of other videos are not siblings (Video-Index, L2: "sibling
// items of the same video"), even when they ask the same question.
//
// The learner finds the sign of each rule per benchmark: VideoHallucer pairs
// a basic question whose answer is "yes" with a hallucinated one whose answer
// is "no" on the same video, so "equals a sibling's gold" weighs against an
// option there, while reused answers weigh for it elsewhere. An item with no
// earlier sibling has nothing to go on: it abstains and is not learned.
type siblings struct{ cfg Config }

func (*siblings) Name() string         { return "siblings" }
func (*siblings) Level() harness.Level { return harness.LevelPool }
func (*siblings) prequential()         {}

const (
	sibSameQGold = iota
	sibSameQDistractor
	sibGold
	sibGoldShare
	sibDistractor
	sibNearestGold
	sibNearestDistractor
	sibPosition
	numSiblingFeatures
)

// seenItem is what the learner keeps of an answered item.
type seenItem struct {
	video, question string
	words           map[string]bool
	options         []string // normalised
	gold            int
}

func (a *siblings) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return learnFromEarlier(ctx, s, a.Name(), a.cfg, numSiblingFeatures, func(cur *seenItem, byVideo, _ map[string][]*seenItem) ([][]float32, bool) {
		return siblingFeatures(cur, byVideo[cur.video])
	})
}

// learnFromEarlier runs a prequential conditional logit, within each
// benchmark, over per-option features that features computes for an item
// from the items answered before it (indexed by video and by normalised
// question). An item for which features reports nothing to go on abstains
// and is not learned.
func learnFromEarlier(ctx context.Context, s *Stream, name string, cfg Config, numFeatures int,
	features func(cur *seenItem, byVideo, byQuestion map[string][]*seenItem) ([][]float32, bool)) ([]Prediction, error) {
	out := make([]Prediction, len(s.Items))
	for _, store := range benchmarkStores(s) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		byVideo := map[string][]*seenItem{}
		byQuestion := map[string][]*seenItem{}
		var rows [][]float32 // features of the learned items' candidates
		var off []int32
		var y []int32
		var learned []int // store positions of the learned items
		off = append(off, 0)
		for k, i := range store {
			it := s.Items[i]
			cur := &seenItem{
				video:    it.Video,
				question: normText(it.Question),
				words:    wordSet(normText(it.Question)),
				gold:     it.Answer,
			}
			for _, o := range it.Options {
				cur.options = append(cur.options, normText(o))
			}
			f, ok := features(cur, byVideo, byQuestion)
			if ok {
				rows = append(rows, f...)
				off = append(off, off[len(off)-1]+int32(len(f)))
				y = append(y, int32(it.Answer))
				learned = append(learned, k)
			}
			byVideo[it.Video] = append(byVideo[it.Video], cur)
			byQuestion[cur.question] = append(byQuestion[cur.question], cur)
		}
		for _, i := range store {
			out[i] = abstain(s.Seed, name, s.Items[i])
		}
		if len(learned) == 0 {
			continue
		}
		feats := kernels.NewMatrix(len(rows), numFeatures)
		for r, f := range rows {
			copy(feats.Row(r), f)
		}
		lp, err := kernels.PrequentialChoice(ctx, feats, off, y, cfg.ChoiceSGD.kernel())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for m, k := range learned {
			it := s.Items[store[k]]
			if m == 0 {
				continue // the learner has seen nothing yet: keep the abstention
			}
			sc := append([]float64(nil), lp[off[m]:off[m+1]]...)
			out[store[k]] = decide(sc, s.Seed, name, it)
		}
	}
	return out, nil
}

// siblingFeatures returns one feature row per option of cur from its earlier
// same-video siblings, and whether there was any.
func siblingFeatures(cur *seenItem, video []*seenItem) ([][]float32, bool) {
	if len(video) == 0 {
		return nil, false
	}
	var nearest *seenItem
	var nearestSim float64
	for _, v := range video {
		if v.question == cur.question {
			continue
		}
		if sim := jaccard(cur.words, v.words); nearest == nil || sim > nearestSim {
			nearest, nearestSim = v, sim
		}
	}
	rows := make([][]float32, len(cur.options))
	for j, o := range cur.options {
		f := make([]float32, numSiblingFeatures)
		var sameGold, sameDis, gold, dis, pos float64
		for _, v := range video {
			g, d := goldOrDistractor(v, o)
			if v.question == cur.question {
				sameGold += g
				sameDis += d
			} else {
				gold += g
				dis += d
			}
			if v.gold == j {
				pos++
			}
		}
		f[sibSameQGold] = float32(math.Log1p(sameGold))
		f[sibSameQDistractor] = float32(math.Log1p(sameDis))
		f[sibGold] = float32(math.Log1p(gold))
		f[sibDistractor] = float32(math.Log1p(dis))
		f[sibGoldShare] = float32((sameGold + gold) / float64(len(video)))
		f[sibPosition] = float32(pos / float64(len(video)))
		if nearest != nil {
			g, d := goldOrDistractor(nearest, o)
			f[sibNearestGold] = float32(g * nearestSim)
			f[sibNearestDistractor] = float32(d * nearestSim)
		}
		rows[j] = f
	}
	return rows, true
}

// goldOrDistractor says whether option text o was v's gold (1, 0) or one of
// its other options (0, 1).
func goldOrDistractor(v *seenItem, o string) (gold, distractor float64) {
	for k, vo := range v.options {
		if vo != o {
			continue
		}
		if k == v.gold {
			return 1, 0
		}
		distractor = 1
	}
	return 0, distractor
}
