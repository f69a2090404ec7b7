package metrics

import (
	"math"
	"strconv"

	"github.com/vidscreen/vidscreen/harness"
)

// An exactTest gathers the answers of one attacker for the exact one-sided
// test against chance (issue 20, point 4; DESIGN.md, "The attack pyramid"):
// the number of right answers against the Poisson-binomial of the items'
// own chances.
//
// An abstention is a chance-level outcome: it adds its item's chance to the
// attacker's accuracy and to the chance it is compared with alike, so it
// moves neither the margin nor the statistic, and it carries no variance:
// the test is exactly the one over the answers that were not seeded
// guesses. A seeded guess that happened to hit cannot make an attacker that
// knows nothing significant.
type exactTest struct {
	p       []float64 // the chance of each answered outcome
	correct int       // how many of them are right
}

// add files one scored outcome.
func (t *exactTest) add(items []*harness.Item, s scored) {
	if s.abstain {
		return
	}
	t.p = append(t.p, items[s.item].Chance())
	if s.correct {
		t.correct++
	}
}

// pValue is P(X >= correct) under chance: 1 when nothing was answered.
func (t *exactTest) pValue() float64 {
	return sigDigits(PoissonBinomialUpperTail(t.p, t.correct))
}

// correct sets each attacker's Significant by Holm's procedure at Alpha
// over the attackers that answered at least one item (Holm 1979; issue 20,
// point 4: one benchmark has 10 to 20 attackers, and at 0.05 each one of
// them in two would be flagged by luck alone), and SignificantUncorrected by
// its own p-value at Alpha. An attacker that answered nothing tests nothing
// and is in no family; nor is a screening step (ScreeningOnly: 32 frames in
// order is the reference protocol, not a shortcut test), a further model
// of a Video-Oasis test (DiagnosticOnly) or a cross-pool variant
// (CrossPool: its store holds the run's other benchmarks, so with it in the
// family the other attackers' significance would depend on which
// benchmarks share the run, as their eps must not), which keep their
// uncorrected flag only.
func correct(rs []AttackerResult) {
	var idx []int
	var ps []float64
	for k := range rs {
		rs[k].Significant, rs[k].SignificantUncorrected = false, false
		if rs[k].Answered == 0 {
			continue
		}
		rs[k].SignificantUncorrected = rs[k].PValue <= Alpha
		if rs[k].ScreeningOnly || rs[k].DiagnosticOnly || rs[k].CrossPool {
			continue
		}
		idx = append(idx, k)
		ps = append(ps, rs[k].PValue)
	}
	for j, rej := range Holm(ps, Alpha) {
		rs[idx[j]].Significant = rej
	}
}

// sigDigits rounds x to six significant digits: p-values span hundreds of
// orders of magnitude, so the cards' fixed rounding would make most of the
// interesting ones 0, while six digits keep the JSON byte-stable.
func sigDigits(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return r
}
