package attack

import (
	"context"
	"math"

	"github.com/vidscreen/vidscreen/harness"
)

// sameQuestion is a pool attacker over items of other videos that ask the
// same question (after normalisation): how often each option text was their
// gold, or one of their distractors. It learns the sign per benchmark with a
// prequential conditional logit, like siblings: a templated benchmark reuses
// answers across videos ("What did the person hold?" "The cup."), a paired
// one flips them (VideoHallucer asks the same question of a twin video with
// the opposite answer). It was part of siblings until Video-Index's L2
// ("sibling items of the same video") was read to the letter; it keeps its
// own name so that a card says which of the two found a shortcut. An item
// with no earlier same-question item of another video abstains.
type sameQuestion struct{ cfg Config }

func (*sameQuestion) Name() string         { return "same-question" }
func (*sameQuestion) Level() harness.Level { return harness.LevelPool }
func (*sameQuestion) prequential()         {}

const (
	sqGold = iota
	sqDistractor
	sqGoldShare
	numSameQuestionFeatures
)

func (a *sameQuestion) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return learnFromEarlier(ctx, s, a.Name(), a.cfg, numSameQuestionFeatures, func(cur *seenItem, _, byQuestion map[string][]*seenItem) ([][]float32, bool) {
		var others []*seenItem
		for _, q := range byQuestion[cur.question] {
			if q.video != cur.video {
				others = append(others, q)
			}
		}
		if len(others) == 0 {
			return nil, false
		}
		rows := make([][]float32, len(cur.options))
		for j, o := range cur.options {
			var g, d float64
			for _, q := range others {
				gj, dj := goldOrDistractor(q, o)
				g += gj
				d += dj
			}
			f := make([]float32, numSameQuestionFeatures)
			f[sqGold] = float32(math.Log1p(g))
			f[sqDistractor] = float32(math.Log1p(d))
			f[sqGoldShare] = float32(g / float64(len(others)))
			rows[j] = f
		}
		return rows, true
	})
}
