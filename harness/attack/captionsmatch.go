package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// captionsMatch is the frame-level captions attacker without a reader
// (Video-Index 3.5 gives the 32 per-frame captions to a reader; this one
// matches them): each option text is scored by the mean text_embed cosine
// of the captions of the clip's 32 uniform frames to it, and the best
// option wins. The captions were written without the question, so any
// signal comes from what is visible in the frames.
type captionsMatch struct{}

func (*captionsMatch) Name() string         { return "captions-match" }
func (*captionsMatch) Level() harness.Level { return harness.LevelFrame }
func (*captionsMatch) needs() Needs         { return NeedCaptions }

// captionTemperature turns mean cosines into log-probabilities: text_embed
// cosines between related short texts differ by a few hundredths, so a
// difference of 0.05 gives odds of e (BGE's own similarity scores are read
// at about this resolution).
const captionTemperature = 20

func (a *captionsMatch) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkVisual(a.Name(), s); err != nil {
		return nil, err
	}
	out := make([]Prediction, len(s.Items))
	for p, it := range s.Items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := s.Visual[p]
		if v.Failure != "" || v.Captions == nil || v.Captions.Rows == 0 || v.OptionTexts == nil {
			out[p] = abstain(s.Seed, a.Name(), it)
			continue
		}
		if v.OptionTexts.Rows != len(it.Options) {
			return nil, fmt.Errorf("%s: item %s: %d option embeddings for %d options", a.Name(), it.Source, v.OptionTexts.Rows, len(it.Options))
		}
		sc := make([]float64, len(it.Options))
		for j := range sc {
			o := v.OptionTexts.Row(j)
			for c := 0; c < v.Captions.Rows; c++ {
				sc[j] += dot(v.Captions.Row(c), o)
			}
			sc[j] *= captionTemperature / float64(v.Captions.Rows)
		}
		out[p] = decide(logSoftmax(sc), s.Seed, a.Name(), it)
	}
	return out, nil
}
