package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// centreFrame is the frame-level zero-shot scorer of Video-Index 3.5: the
// clip's centre frame against the image_text embedding of each option text
// (or, with withQuestion, of "question option"), scored as CLIP's zero-shot
// classifier does: log-softmax over the options of scale*cos + bias. The
// best option wins. An item whose video failed gets a seeded guess.
type centreFrame struct{ withQuestion bool }

func (a *centreFrame) Name() string {
	if a.withQuestion {
		return "centre-frame-qa"
	}
	return "centre-frame"
}
func (*centreFrame) Level() harness.Level { return harness.LevelFrame }
func (*centreFrame) needs() Needs         { return NeedCentre }

func (a *centreFrame) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkVisual(a.Name(), s); err != nil {
		return nil, err
	}
	out := make([]Prediction, len(s.Items))
	for p, it := range s.Items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := s.Visual[p]
		texts := v.Options
		if a.withQuestion {
			texts = v.QuestionOptions
		}
		if v.Failure != "" || v.Centre == nil || texts == nil {
			out[p] = abstain(s.Seed, a.Name(), it)
			continue
		}
		if texts.Rows != len(it.Options) {
			return nil, fmt.Errorf("%s: item %s: %d option embeddings for %d options", a.Name(), it.Source, texts.Rows, len(it.Options))
		}
		logits := make([]float64, len(it.Options))
		for j := range logits {
			logits[j] = v.Scale*dot(v.Centre, texts.Row(j)) + v.Bias
		}
		out[p] = decide(v.zeroShotScores(logits), s.Seed, a.Name(), it)
	}
	return out, nil
}
