package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// transcriptMatch is the Video-Oasis audio test without a reader: each
// option is scored by the cosine of its text embedding to the transcript
// of the video's audio track (the run's text embedder, text_embed or the
// lexical one), and the best option wins. An item whose video has no
// audio stream, or whose transcript is empty, gets a seeded guess, counted
// as an abstention.
type transcriptMatch struct{}

func (*transcriptMatch) Name() string         { return "transcript-match" }
func (*transcriptMatch) Level() harness.Level { return harness.LevelFrame }
func (*transcriptMatch) needs() Needs         { return NeedTranscript }

func (a *transcriptMatch) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkVisual(a.Name(), s); err != nil {
		return nil, err
	}
	out := make([]Prediction, len(s.Items))
	for p, it := range s.Items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tr, ok := heard(s.Visual[p])
		if !ok || tr.Embedding == nil || tr.Options == nil {
			out[p] = abstain(s.Seed, a.Name(), it)
			continue
		}
		if tr.Options.Rows != len(it.Options) {
			return nil, fmt.Errorf("%s: item %s: %d option embeddings for %d options", a.Name(), it.Source, tr.Options.Rows, len(it.Options))
		}
		sc := make([]float64, len(it.Options))
		for j := range sc {
			// The captions' temperature: cosines of short related texts
			// differ by hundredths.
			sc[j] = captionTemperature * dot(tr.Embedding, tr.Options.Row(j))
		}
		out[p] = decide(logSoftmax(sc), s.Seed, a.Name(), it)
	}
	return out, nil
}
