package metrics

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// SecondReferenceMinN is the fewest items a second reference must answer
// for a level (the authors' MIN_N in audit/levels.py).
const SecondReferenceMinN = 30

// SecondReferenceDelta is the tolerance of the second reference's
// breaking level (levels.py assigns it at DELTA only).
const SecondReferenceDelta = 0.05

// SecondReference is the authors' second reference (audit/levels.py,
// columns sr_*): another model's accuracy on the full protocol (32
// uniform frames; the authors' attacker role, vidscreen's second
// vlm_reader entry), with the breaking level it gives against the same
// attackers. Its s* and chance are taken on the items it answered; the
// levels' eps are the card's, taken on the first reference's items (the
// authors recompute the profile on the second reference's items, which is
// the same set when both answer every item). A card whose run could not
// compute it has Note saying why and nothing else.
type SecondReference struct {
	Model string `json:"model,omitempty"`
	Note  string `json:"note,omitempty"`
	// N is sr_n_ref, Accuracy sr_s_star and Chance sr_c.
	N        int      `json:"n_ref"`
	Accuracy *float64 `json:"s_star,omitempty"`
	Chance   *float64 `json:"chance,omitempty"`
	// BreakingLevel is second_reference_break_level ("unbroken" when no
	// level reaches it; absent below SecondReferenceMinN items), NearChance
	// says s* - c <= delta (the level is then the first measured one, as
	// levels.py assign_level without a 128-frame probe), and Agree is
	// sr_agree: the same level as the card's at delta 0.05.
	BreakingLevel *string `json:"breaking_level,omitempty"`
	NearChance    bool    `json:"near_chance,omitempty"`
	Agree         *bool   `json:"agree,omitempty"`
}

// secondLevel is levels.py assign_level without the 128-frame probe: near
// chance, the first measured level (or unbroken); otherwise the first
// level whose eps reaches s - c - delta, else unbroken.
func secondLevel(ls Levels, s, c, delta float64) (level string, near bool) {
	near = s-c <= delta
	for _, l := range harness.Levels() {
		r := ls.At(l)
		if r == nil {
			continue
		}
		if near || r.Eps >= s-c-delta {
			return l.String(), near
		}
	}
	return "unbroken", near
}

// WithSecondReference puts the second reference on each card: ref2 holds
// its answers (option index by item key) and model names it; note, when
// not empty, is why it could not run, and the cards get only that.
func WithSecondReference(cards []Card, items []*harness.Item, ref2 map[string]int, model, note string) {
	byBench := map[string][]*harness.Item{}
	for _, it := range items {
		byBench[it.Benchmark] = append(byBench[it.Benchmark], it)
	}
	for k := range cards {
		c := &cards[k]
		if note != "" {
			c.SecondReference = &SecondReference{Note: note}
			continue
		}
		sr := &SecondReference{Model: model}
		c.SecondReference = sr
		var ok, chance float64
		for _, it := range byBench[c.Benchmark] {
			p, has := ref2[it.Key()]
			if !has || p < 0 || p >= len(it.Options) {
				continue
			}
			sr.N++
			chance += it.Chance()
			if p == it.Answer {
				ok++
			}
		}
		if sr.N == 0 {
			sr.Note = "the second reference answered none of this benchmark's items"
			continue
		}
		s, cc := ok/float64(sr.N), chance/float64(sr.N)
		sr.Accuracy, sr.Chance = roundPtr(s), roundPtr(cc)
		if sr.N < SecondReferenceMinN {
			sr.Note = fmt.Sprintf("the second reference answered %d items, fewer than %d: no level (the authors' minimum)", sr.N, SecondReferenceMinN)
			continue
		}
		lv, near := secondLevel(c.Levels, s, cc, SecondReferenceDelta)
		sr.BreakingLevel, sr.NearChance = &lv, near
		if first, ok := c.BreakingLevel["0.05"]; ok {
			f := "unbroken"
			if first != nil {
				f = *first
			}
			agree := f == lv
			sr.Agree = &agree
		}
	}
}
