package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/models/letters"
)

// A contextFit gives one item's context for a reader attacker at a given
// shrinking (0 the whole, each step shorter): the text (a transcript) or
// the captions, and whether a shorter one exists after step. The captions
// and transcript readers shrink differently (every other caption; the
// transcript's first half).
type contextFit func(step int) (text string, captions []string, more bool)

// readWithContext is the loop the context readers share: for each item
// that has a context (fit returns one), the prompt (of kind) is the
// context, the question and the lettered options, shrunk until lm_reader can take it;
// an item without one, or whose prompt never fits, gets a seeded guess.
func readWithContext(ctx context.Context, name string, kind letters.Kind, r LetterReader, s *Stream, fit func(p int) (contextFit, bool)) ([]Prediction, error) {
	if err := checkVisual(name, s); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("%s: no lm_reader", name)
	}
	prompts := make([]letters.Prompt, len(s.Items))
	use := make([]bool, len(s.Items))
	for p, it := range s.Items {
		if !s.asks(p) {
			continue // another shard's item
		}
		f, ok := fit(p)
		if use[p] = ok; !ok {
			continue
		}
		for step := 0; ; step++ {
			text, caps, more := f(step)
			prompts[p] = letterPrompt(it, kind, text, caps)
			if _, err := r.Encode(prompts[p]); err == nil || !more {
				break
			}
		}
	}
	scores, ok, err := readAll(ctx, r, prompts, use)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.answered(len(s.Items))
	return answerAll(name, s, scores, ok), nil
}
