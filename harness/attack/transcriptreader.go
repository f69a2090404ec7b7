package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
)

// transcriptReader is the Video-Oasis audio test with a reader: the
// transcript of the video's audio track in place of the video, then the
// question and the lettered options, to lm_reader. The transcript is cut
// by halves (its first part kept) until the prompt fits the model; an item
// whose video has no audio stream, whose transcript is empty or whose
// prompt never fits gets a seeded guess, counted as an abstention.
type transcriptReader struct{ r LetterReader }

func (*transcriptReader) Name() string         { return "transcript-reader" }
func (*transcriptReader) Level() harness.Level { return harness.LevelFrame }
func (*transcriptReader) needs() Needs         { return NeedTranscript }

func (a *transcriptReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkVisual(a.Name(), s); err != nil {
		return nil, err
	}
	if a.r == nil {
		return nil, fmt.Errorf("%s: no lm_reader", a.Name())
	}
	prompts := make([]models.LetterPrompt, len(s.Items))
	use := make([]bool, len(s.Items))
	for p, it := range s.Items {
		tr, ok := heard(s.Visual[p])
		if use[p] = ok; !ok {
			continue
		}
		text := []rune(tr.Text)
		for {
			prompts[p] = letterPrompt(it, true, "Transcript of the video's audio: "+string(text))
			if _, err := a.r.Encode(prompts[p]); err == nil || len(text) <= 1 {
				break
			}
			text = text[:len(text)/2]
		}
	}
	scores, ok, err := readAll(ctx, a.r, prompts, use)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	s.answered(len(s.Items))
	return answerAll(a.Name(), s, scores, ok), nil
}
