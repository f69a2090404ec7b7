package attack

import (
	"context"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/letters"
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
	return readWithContext(ctx, a.Name(), letters.KindTranscript, a.r, s, func(p int) (contextFit, bool) {
		tr, ok := heard(s.Visual[p])
		if !ok {
			return nil, false
		}
		text := []rune(tr.Text)
		return func(step int) (string, []string, bool) {
			if step > 0 {
				text = text[:len(text)/2]
			}
			return string(text), nil, len(text) > 1
		}, true
	})
}
