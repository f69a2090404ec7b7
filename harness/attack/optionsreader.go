package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/letters"
)

// optionsReader is the options-only language-model reader (Video-Index
// 3.2, option level): lm_reader sees the lettered options and nothing else,
// and the letter it finds most likely wins. Its scores are the letters'
// log-probabilities, so the margin log p(correct) - mean log p(others) the
// cards and screening read is the reader's own.
type optionsReader struct{ r LetterReader }

func (*optionsReader) Name() string         { return "options-reader" }
func (*optionsReader) Level() harness.Level { return harness.LevelOption }

func (a *optionsReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return readItems(ctx, a.Name(), a.r, s, func(it *harness.Item, _ int) letters.Prompt {
		return letterPrompt(it, letters.KindOptionsOnly, "", nil)
	})
}

// blindReader is the blind language-model reader (Video-Index 3.3, text
// level): lm_reader sees the question and the lettered options, no video.
// model is the lm_reader entry it asks: 0, the first, is the pyramid's
// blind-reader; a later entry k (models.json's list, Config.Extra) makes
// blind-reader#<k+1>, a further model of the Video-Oasis blind test that is
// diagnostic only (DiagnosticOnly).
type blindReader struct {
	r     LetterReader
	model int
}

func (a *blindReader) Name() string         { return ModelName("blind-reader", a.model) }
func (*blindReader) Level() harness.Level   { return harness.LevelText }
func (a *blindReader) diagnosticOnly() bool { return a.model > 0 }

func (a *blindReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return readItems(ctx, a.Name(), a.r, s, func(it *harness.Item, _ int) letters.Prompt { return letterPrompt(it, letters.KindBlind, "", nil) })
}

// readItems scores the prompt of every item of s with r.
func readItems(ctx context.Context, name string, r LetterReader, s *Stream, prompt func(*harness.Item, int) letters.Prompt) ([]Prediction, error) {
	if r == nil {
		return nil, fmt.Errorf("%s: no lm_reader", name)
	}
	prompts := make([]letters.Prompt, len(s.Items))
	for p, it := range s.Items {
		if s.asks(p) {
			prompts[p] = prompt(it, p)
		}
	}
	// A chunk at a time, so that the run's progress moves as the model
	// answers (a pool's readers take hours).
	return readPrompts(ctx, name, r, s, prompts)
}
