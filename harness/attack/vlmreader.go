package attack

import (
	"context"
	"fmt"
)

// vlmAnswer answers every item of s from the vlm_reader letter scores the
// feature stage made for frame set set: the letter the model finds most
// likely wins, and the scores are its log-probabilities, so the margin
// log p(correct) - mean log p(others) is the model's own, as for the
// language-model readers. An item without scores for set (its video
// failed, or no prompt fitted the model) gets a seeded guess.
func vlmAnswer(ctx context.Context, name, set string, s *Stream) ([]Prediction, error) {
	if err := checkVisual(name, s); err != nil {
		return nil, err
	}
	out := make([]Prediction, len(s.Items))
	for p, it := range s.Items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := s.Visual[p]
		var scores []float64
		if v != nil && v.Failure == "" {
			scores = v.VLM[set]
		}
		if scores == nil {
			out[p] = abstain(s.Seed, name, it)
			continue
		}
		if len(scores) != len(it.Options) {
			return nil, fmt.Errorf("%s: item %s: %d letter scores for %d options", name, it.Source, len(scores), len(it.Options))
		}
		out[p] = decide(scores, s.Seed, name, it)
		out[p].Floored = floored(scores)
	}
	s.answered(len(s.Items))
	return out, nil
}
