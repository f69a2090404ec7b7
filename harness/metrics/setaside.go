package metrics

import (
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// YesNoOnlyNote is what a yes/no-only card says in place of its
// multiple-choice figures (Card.Unavailable["levels"]).
const YesNoOnlyNote = "every item is a bare yes/no pair, set aside before the audit (format_yesno, as the Video-Index authors' audit/chance.py counts them in no statistic): no multiple-choice figures; --keep-yesno audits them as two-option questions"

// WithSetAside records on the cards the items set aside before the audit
// (harness.SetAsideYesNo): each benchmark's count by reason on its card,
// and for a benchmark every item of which was set aside, which has no
// card, a card of its own that says so (YesNoOnly, N 0, no level, no
// attacker). The cards come back sorted by benchmark, as CardsByBenchmark
// gives them.
func WithSetAside(cards []Card, aside []harness.SetAside) []Card {
	for _, s := range aside {
		if s.YesNo == 0 {
			continue
		}
		k := slices.IndexFunc(cards, func(c Card) bool { return c.Benchmark == s.Benchmark })
		if k < 0 {
			cards = append(cards, Card{Benchmark: s.Benchmark, YesNoOnly: s.Only(), Attackers: []AttackerResult{}, LevelsRun: []harness.Level{},
				Failures: map[string]int{}, Unavailable: map[string]string{"levels": YesNoOnlyNote}})
			k = len(cards) - 1
		}
		if cards[k].SetAside == nil {
			cards[k].SetAside = map[string]int{}
		}
		cards[k].SetAside[harness.YesNoReason] += s.YesNo
	}
	slices.SortStableFunc(cards, func(a, b Card) int { return strings.Compare(a.Benchmark, b.Benchmark) })
	return cards
}

// WithDuplicatesRemoved sets each card's DuplicatesRemoved from removed
// (benchmark -> items removed as duplicates before the audit; a benchmark
// not listed lost none). Call it only when the rule ran.
func WithDuplicatesRemoved(cards []Card, removed map[string]int) {
	for k := range cards {
		if cards[k].YesNoOnly {
			continue
		}
		n := removed[cards[k].Benchmark]
		cards[k].DuplicatesRemoved = &n
	}
}
