package attack

import (
	"context"
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
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
	if err := checkVisual(a.Name(), s); err != nil {
		return nil, err
	}
	if a.r == nil {
		return nil, fmt.Errorf("%s: no lm_reader", a.Name())
	}
	prompts := make([]models.LetterPrompt, len(s.Items))
	use := make([]bool, len(s.Items))
	for p, it := range s.Items {
		v := s.Visual[p]
		caps := v.CaptionTexts
		if use[p] = v.Failure == "" && len(caps) > 0; !use[p] {
			continue
		}
		for {
			prompts[p] = letterPrompt(it, true, captionContext(caps))
			if _, err := a.r.Encode(prompts[p]); err == nil || len(caps) == 1 {
				break
			}
			caps = everyOther(caps)
		}
	}
	scores, ok, err := readAll(ctx, a.r, prompts, use)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	s.answered(len(s.Items))
	return answerAll(a.Name(), s, scores, ok), nil
}

// captionContext numbers the captions in time order.
func captionContext(caps []string) string {
	var b strings.Builder
	b.WriteString("Captions of frames of the video, in order:\n")
	for i, c := range caps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, c)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// everyOther keeps the captions at even positions.
func everyOther(caps []string) []string {
	out := make([]string, 0, (len(caps)+1)/2)
	for i := 0; i < len(caps); i += 2 {
		out = append(out, caps[i])
	}
	return out
}
