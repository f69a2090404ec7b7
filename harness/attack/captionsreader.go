package attack

import (
	"context"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/letters"
)

// captionsReader is the frame-level captions reader of Video-Index 3.5: the
// captions of the clip's 32 uniform frames, each written by the captioner
// without the question, numbered in time order, then the question and the
// lettered options, to lm_reader. When the prompt does not fit the model,
// every second caption is dropped (evenly spaced, time order kept) until it
// does; an item whose video failed, or whose prompt never fits, gets a
// seeded guess.
type captionsReader struct{ r LetterReader }

func (*captionsReader) Name() string         { return "captions-reader" }
func (*captionsReader) Level() harness.Level { return harness.LevelFrame }
func (*captionsReader) needs() Needs         { return NeedCaptions }

func (a *captionsReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return readWithContext(ctx, a.Name(), letters.KindFrameCaptions, a.r, s, func(p int) (contextFit, bool) {
		v := s.Visual[p]
		if v.Failure != "" || len(v.CaptionTexts) == 0 {
			return nil, false
		}
		caps := v.CaptionTexts
		return func(step int) (string, []string, bool) {
			if step > 0 {
				caps = everyOther(caps)
			}
			return "", caps, len(caps) > 1
		}, true
	})
}

// everyOther keeps the captions at even positions.
func everyOther(caps []string) []string {
	out := make([]string, 0, (len(caps)+1)/2)
	for i := 0; i < len(caps); i += 2 {
		out = append(out, caps[i])
	}
	return out
}
