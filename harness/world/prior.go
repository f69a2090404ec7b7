package world

import (
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// priorAlpha is the level at which a family's sample is judged to carry an
// answer prior of its own. It is looser than the audit's bar, so that what
// passes it is well clear of that bar: the audit tests each attacker at 0.05
// after Holm's correction over the attackers that answered on a benchmark
// (its smallest threshold is 0.05/m, below 0.01 whenever m > 5; a world
// family at the text levels has eight or more).
const priorAlpha = 0.01

// maxRedraws bounds how often Plan draws a family's videos again.
const maxRedraws = 64

// answerPrior returns the one-sided p-value of the best per-question answer
// prior in items: each item is answered with the gold option text most
// frequent among the other items with the same question and option set (a
// tie answers nothing), and the number right is tested exactly against
// each item's own chance (metrics.PoissonBinomialUpperTail).
//
// Answers are drawn independently (see planner), so a family's answers are
// uniform in expectation; but a family is a sample of 20 to 30 items, and in
// some samples one answer is common enough that answering it is itself a
// significant shortcut: at seed 3 the clean family's shapes question had
// gold "2" on 7 of its 12 items and its background question "4" on 6 of 12,
// and the pool level's knn-vote answered 13 of 24 right (p = 0.002). The
// audit was right about the sample; the truth file's "no shortcut" was not.
// Plan draws such a family again (drawAgain), so that the truth holds for
// the items written, not only for the generator that drew them.
func answerPrior(items []*harness.Item) float64 {
	key := func(it *harness.Item) string { // the question and its option set, in any order
		opts := slices.Clone(it.Options)
		slices.Sort(opts)
		return it.Question + "\x00" + strings.Join(opts, "\x00")
	}
	byKey := map[string]map[string]int{}
	for _, it := range items {
		k := key(it)
		if byKey[k] == nil {
			byKey[k] = map[string]int{}
		}
		byKey[k][it.Options[it.Answer]]++
	}
	p := make([]float64, 0, len(items))
	right := 0
	for _, it := range items {
		gold := it.Options[it.Answer]
		counts := byKey[key(it)]
		// The other items' counts: this item's own gold is left out.
		top, best, tie := 0, "", false
		for text, n := range counts {
			if text == gold {
				n--
			}
			switch {
			case n > top:
				top, best, tie = n, text, false
			case n == top && n > 0:
				tie = true
			}
		}
		p = append(p, it.Chance())
		if !tie && top > 0 && best == gold {
			right++
		}
	}
	return metrics.PoissonBinomialUpperTail(p, right)
}

// priorFamily returns the first family, in the truth's order, that is not
// planted at or below the pool level (so that its catching at the pool
// level would be a false alarm) and whose items carry an answer prior at
// priorAlpha; "" when none does.
func priorFamily(fams []Family, items []*harness.Item) string {
	for _, f := range fams {
		if f.Expected != nil && *f.Expected <= harness.LevelPool {
			continue
		}
		var its []*harness.Item
		for _, it := range items {
			if it.Group == f.Name {
				its = append(its, it)
			}
		}
		if len(its) > 0 && answerPrior(its) <= priorAlpha {
			return f.Name
		}
	}
	return ""
}
