package metrics

import (
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/solve"
)

// SolvedOverOrders judges the items of a multi-order reader
// (attack.MultiOrder) on the seeded orders of the run's option-permutation
// audit, as screening does (Video-Index 5.1; harness/solve SolvesOrders:
// at least three of the four orders right and, where the reader gives
// log-probabilities, the mean margin over the four above log 2), and puts
// the result in each card's SolvedShare for attacker and in its ItemScores'
// Solved. choices[o] and margins[o] are the original index of the option
// chosen on the permutation audit's order o+1 and the gold's margin there,
// one per item of items; only the first solve.Orders count, and the
// original order (the verdict in scores) is none of them, as the authors
// draw four random orders. margins[o] nil means the order's cache kept
// none: the margin condition is then read on the original order, as
// screening does with an old cache. An abstention on the original order
// (every option tied) stands for every order. Without further orders
// nothing changes.
func SolvedOverOrders(cards []Card, items []*harness.Item, scores []ItemScore, attacker string, choices [][]int, margins [][]float64) error {
	if len(choices) == 0 {
		return nil
	}
	if len(choices) > solve.Orders {
		choices = choices[:solve.Orders]
	}
	if len(margins) > len(choices) {
		margins = margins[:len(choices)]
	}
	withMargins := len(margins) == len(choices)
	for o := range choices {
		if len(choices[o]) != len(items) {
			return fmt.Errorf("solved over orders: %s: order %d holds %d choices for %d items", attacker, o+1, len(choices[o]), len(items))
		}
		if o < len(margins) && margins[o] != nil && len(margins[o]) != len(items) {
			return fmt.Errorf("solved over orders: %s: order %d holds %d margins for %d items", attacker, o+1, len(margins[o]), len(items))
		}
		withMargins = withMargins && o < len(margins) && margins[o] != nil
	}
	// The rule is the reader's: Confident when its verdicts carry
	// log-probability margins, Correct when its server gave none.
	rule := solve.Correct
	for _, s := range scores {
		if s.Attacker == attacker && s.Scored && !math.IsNaN(s.Margin) {
			rule = solve.Confident
			break
		}
	}
	solved := map[string]int{} // per benchmark
	found := false
	for k := range scores {
		s := &scores[k]
		if s.Attacker != attacker {
			continue
		}
		found = true
		it := items[s.Item]
		original := solve.Answer{Scored: s.Scored, Abstained: s.Abstained, Correct: s.Correct, Margin: s.Margin}
		var answers []solve.Answer
		for o := range choices {
			a := solve.Answer{Scored: s.Scored, Abstained: s.Abstained, Correct: choices[o][s.Item] == it.Answer, Margin: math.NaN()}
			if withMargins {
				a.Margin = margins[o][s.Item]
			}
			answers = append(answers, a)
		}
		if withMargins {
			s.Solved = rule.SolvesOrders(answers)
		} else {
			s.Solved = solve.Correct.SolvesOrders(answers) && (rule == solve.Correct || (original.Scored && !math.IsNaN(original.Margin) && original.Margin > solve.Threshold))
		}
		if s.Solved {
			solved[it.Benchmark]++
		}
	}
	if !found {
		return nil
	}
	for c := range cards {
		for k := range cards[c].Attackers {
			if r := &cards[c].Attackers[k]; r.Name == attacker {
				r.SolvedShare = round(float64(solved[cards[c].Benchmark]) / float64(cards[c].N))
				r.SolvedOrders = len(choices)
			}
		}
	}
	return nil
}
