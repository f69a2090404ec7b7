package run

import (
	"math"
	"strconv"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// answers holds one unit's predictions, one slot per item of the run, as
// the cards and the item table read them (metrics.Reduce): the choice and
// the abstention in a byte each and the margin over the gold answer, 14
// bytes a prediction with the fingerprint below, where an attack.Prediction with its slice of scores
// takes about ninety. A pool of 500,000 items has 36 predictions per item
// at the text levels, so this is most of what the audit holds between the
// attack and the cards.
//
// The scores themselves are not kept: records.log has them, written from
// the attacker's own prediction; a fingerprint of their bits (four bytes)
// is kept so that a prediction recomputed on resume is checked score for
// score, as before. A prediction the cards would refuse (a
// score per option missing, one not finite, a choice out of range) is kept
// whole, so that the card stage refuses it with the same error as before.
type answers struct {
	choice []uint8
	flags  []uint8
	margin []float64
	sum    []uint32 // fingerprint of the scores' bits
	whole  map[int32]attack.Prediction
	// input holds, for a unit whose attacker reads frames, what each
	// prediction read of the item's video (inputID of rundir.Record.Input); nil
	// for the other units.
	input []uint64
}

// The bits of answers.flags.
const (
	answerStored  = 1 << iota // a prediction is held for the item
	answerAbstain             // it was a seeded guess
	answerWhole               // it is in answers.whole
	answerFloored             // a score of it is the floor (Prediction.Floored)
)

func newAnswers(n int) *answers {
	return &answers{choice: make([]uint8, n), flags: make([]uint8, n), margin: make([]float64, n), sum: make([]uint32, n)}
}

// has reports whether a prediction for item i is held.
func (s *answers) has(i int32) bool { return s.flags[i]&answerStored != 0 }

// put holds p as the prediction for item i, it.
func (s *answers) put(i int32, it *harness.Item, p attack.Prediction) {
	a, err := metrics.Reduce(it, p)
	if err != nil {
		if s.whole == nil {
			s.whole = map[int32]attack.Prediction{}
		}
		s.whole[i] = p
		s.flags[i] = answerStored | answerWhole
		s.choice[i], s.margin[i], s.sum[i] = 0, 0, 0
		return
	}
	delete(s.whole, i)
	s.flags[i] = answerStored
	if a.Abstain {
		s.flags[i] |= answerAbstain
	}
	if a.Floored {
		s.flags[i] |= answerFloored
	}
	s.choice[i], s.margin[i], s.sum[i] = uint8(a.Choice), a.Margin, fingerprint(p.Scores)
}

// drop forgets the prediction held for item i, so that it is computed
// again.
func (s *answers) drop(i int32) {
	delete(s.whole, i)
	s.flags[i], s.choice[i], s.margin[i], s.sum[i] = 0, 0, 0, 0
	if s.input != nil {
		s.input[i] = 0
	}
}

// inputID is the number a rundir.Record.Input is held as (its 16 hex digits; 0
// for "" or anything else).
func inputID(input string) uint64 {
	v, err := strconv.ParseUint(input, 16, 64)
	if err != nil || len(input) != 16 {
		return 0
	}
	return v
}

// fingerprint is the 32-bit FNV-1a hash of the scores' bits.
func fingerprint(scores []float64) uint32 {
	h := uint32(2166136261)
	for _, x := range scores {
		b := math.Float64bits(x)
		for k := 0; k < 64; k += 8 {
			h = (h ^ uint32(b>>k&0xff)) * 16777619
		}
	}
	return h
}

// fill sets o's prediction to the one held for item i: reduced, or whole
// when the cards must see it so (and the zero prediction, which they
// refuse, when none is held).
func (s *answers) fill(i int32, o *metrics.Outcome) {
	f := s.flags[i]
	if f&answerStored == 0 || f&answerWhole != 0 {
		o.Pred = s.whole[i]
		return
	}
	o.Reduced = true
	o.Answer = s.answer(i)
}

// same reports whether p, recomputed for item i, it, agrees with the
// prediction held: whole predictions score for score, reduced ones by what
// is kept of them (the choice, the abstention, the margin's bits and the
// scores' fingerprint, which any change of a score's bits almost surely
// moves).
func (s *answers) same(i int32, it *harness.Item, p attack.Prediction) bool {
	if s.flags[i]&answerWhole != 0 {
		return samePrediction(s.whole[i], p)
	}
	a, err := metrics.Reduce(it, p)
	return err == nil && a.Choice == int(s.choice[i]) && a.Abstain == (s.flags[i]&answerAbstain != 0) &&
		a.Floored == (s.flags[i]&answerFloored != 0) && math.Float64bits(a.Margin) == math.Float64bits(s.margin[i]) && fingerprint(p.Scores) == s.sum[i]
}

// held describes the prediction held for item i, for error messages.
func (s *answers) held(i int32) any {
	if s.flags[i]&answerWhole != 0 {
		return s.whole[i]
	}
	return s.answer(i)
}

// answer is the reduced prediction held for item i.
func (s *answers) answer(i int32) metrics.Answer {
	f := s.flags[i]
	return metrics.Answer{Choice: int(s.choice[i]), Abstain: f&answerAbstain != 0, Floored: f&answerFloored != 0, Margin: s.margin[i]}
}

// samePrediction compares two whole predictions score for score (NaN equal
// to NaN).
func samePrediction(x, y attack.Prediction) bool {
	if x.Choice != y.Choice || x.Abstain != y.Abstain || x.Floored != y.Floored || len(x.Scores) != len(y.Scores) {
		return false
	}
	for i := range x.Scores {
		if math.Float64bits(x.Scores[i]) != math.Float64bits(y.Scores[i]) && !(math.IsNaN(x.Scores[i]) && math.IsNaN(y.Scores[i])) {
			return false
		}
	}
	return true
}
