package metrics

import (
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/solve"
)

// SolvedOverOrders judges the items of a multi-order reader on the orders
// of the run's option-permutation audit, as screening does (harness/solve
// SolvesOrders: at least three of four orders right and, where the reader
// gives log-probabilities, the mean margin over the four above log 2), and
// puts the result in each card's SolvedShare for attacker and in its
// ItemScores' Solved. Order 0 is the attacker's own verdict (scores);
// choices[o] and margins[o] are the original index of the option chosen on
// the permutation audit's order o+1 and the gold's margin there, one per
// item of items (margins[o] nil where the order kept none: then the margin
// condition is read on the original order, as screening does with an old
// cache). With fewer than solve.Orders-1 further orders nothing changes.
func SolvedOverOrders(cards []Card, items []*harness.Item, scores []ItemScore, attacker string, choices [][]int, margins [][]float64) error {
	if len(choices) < solve.Orders-1 {
		return nil
	}
	choices, margins = choices[:solve.Orders-1], margins[:min(len(margins), solve.Orders-1)]
	for o := range choices {
		if len(choices[o]) != len(items) || (o < len(margins) && margins[o] != nil && len(margins[o]) != len(items)) {
			return fmt.Errorf("solved over orders: %s: order %d holds %d choices for %d items", attacker, o+1, len(choices[o]), len(items))
		}
	}
	withMargins := len(margins) == len(choices)
	for _, m := range margins {
		withMargins = withMargins && m != nil
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
		first := solve.Answer{Scored: s.Scored, Abstained: s.Abstained, Correct: s.Correct, Margin: s.Margin}
		answers := []solve.Answer{first}
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
			s.Solved = solve.Correct.SolvesOrders(answers) && (rule == solve.Correct || solve.Confident.Solves(first))
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
				r.SolvedOrders = solve.Orders
			}
		}
	}
	return nil
}
