package attack_test

import (
	"context"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/solve"
)

// TestVLMReadersByHand checks each VLM reader on letter scores worked out by
// hand: it must read its own frame set's scores (the other sets hold scores
// that would pick another option), answer with the most likely letter, and
// keep the scores, so the card's margin log p(gold) - mean log p(others) is
// the model's.
func TestVLMReadersByHand(t *testing.T) {
	t.Parallel()
	ln := math.Log
	// p = (0.1, 0.7, 0.2) under the set read, (0.6, 0.2, 0.2) under the
	// others: option B wins with margin ln 0.7 - (ln 0.1 + ln 0.2)/2 =
	// ln(0.7/sqrt(0.02)) = 1.5994 when B is gold.
	read := []float64{ln(0.1), ln(0.7), ln(0.2)}
	other := []float64{ln(0.6), ln(0.2), ln(0.2)}
	for _, tc := range []struct{ attacker, set string }{
		{"centre-frame-reader", attack.VLMCentre},
		{"shuffled-frames-reader", attack.VLMShuffled},
		{"contiguous-tenth-reader", attack.VLMTenth},
		{"full-video-reader", attack.VLMInOrder},
	} {
		t.Run(tc.attacker, func(t *testing.T) {
			vlm := map[string][]float64{attack.VLMCentre: other, attack.VLMShuffled: other, attack.VLMTenth: other, attack.VLMInOrder: other}
			vlm[tc.set] = read
			it := &harness.Item{ID: "1", Benchmark: "B", Question: "q", Options: []string{"a", "b", "c"}, Answer: 1}
			s := &attack.Stream{Seed: 1, Items: []*harness.Item{it}, Visual: []*attack.Visual{{VLM: vlm}}}
			a := frameAttacker(t, videoConfig(0), tc.attacker)
			preds, err := a.Attack(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			p := preds[0]
			if p.Abstain || p.Choice != 1 {
				t.Fatalf("choice %d (abstain %v), want 1; scores %v", p.Choice, p.Abstain, p.Scores)
			}
			if p.Floored {
				t.Errorf("scores %v marked floored", p.Scores)
			}
			// The same letter winning with its third letter floored (a
			// served reader's server left it out of its top log-probabilities).
			vlm[tc.set] = []float64{ln(0.1), ln(0.7), solve.LogFloor}
			if fp, err := a.Attack(context.Background(), s); err != nil || !fp[0].Floored || fp[0].Choice != 1 {
				t.Errorf("with a floored letter: %+v, %v; want choice 1 floored", fp, err)
			}
			vlm[tc.set] = read
			m, err := metrics.Margin(p.Scores, it.Answer)
			if err != nil {
				t.Fatal(err)
			}
			if want := ln(0.7 / math.Sqrt(0.02)); math.Abs(m-want) > 1e-12 {
				t.Errorf("margin %.12g, want %.12g", m, want)
			}
			if attack.FrameNeeds(a) == 0 {
				t.Errorf("%s declares no frame needs", a.Name())
			}

			// Without scores for its set (no prompt fitted the model), a
			// seeded guess; scores of the wrong length are an error.
			delete(vlm, tc.set)
			preds, err = a.Attack(context.Background(), s)
			if err != nil || !preds[0].Abstain {
				t.Errorf("without its scores: %+v, %v; want a seeded guess", preds[0], err)
			}
			vlm[tc.set] = read[:2]
			if _, err := a.Attack(context.Background(), s); err == nil {
				t.Error("two letter scores for three options were accepted")
			}
		})
	}
}
