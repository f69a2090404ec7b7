package release

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// A RedTeam attacks a selection as its own pool: the items of picks, and
// nothing else, are the pool its learning attackers learn from.
type RedTeam interface {
	Attack(ctx context.Context, p *Pool, picks []int) (*Attack, error)
}

// An Attack is what a red team found on one selection.
type Attack struct {
	// Solvers lists, for each pick (in the order of picks), the attackers
	// that solve it; nil when none does.
	Solvers [][]string
	// Attackers holds each attacker's figures on the selection, in the
	// pool's attacker order.
	Attackers []AttackerResidual
	// Levels is the residual exploitability of each level with an attacker:
	// eps_l, the largest margin over chance of any attacker at or below l
	// (Video-Index section 2).
	Levels []LevelResidual
}

// AttackerResidual is one attacker on a selection: its accuracy over the
// items it scored, their mean chance, the margin between them, and how many
// items it solves.
type AttackerResidual struct {
	Name  string        `json:"name"`
	Level harness.Level `json:"level"`
	// Rerun is true when the attacker attacked the selection again, on the
	// released option order; else its screened verdicts were carried over.
	Rerun bool `json:"rerun"`
	N     int  `json:"n"` // items scored
	// Accuracy counts each abstention as 1/k_i of a correct answer (a
	// chance-level outcome), never as its seeded guess.
	Accuracy float64 `json:"accuracy"`
	Chance   float64 `json:"chance"`
	Margin   float64 `json:"margin"`
	// Significant is the cards' test on the selection (issue 20.4): PValue,
	// the exact one-sided Poisson-binomial tail of the answered items'
	// correct count under each item's own chance (abstentions left out of
	// n), rejected at 0.05 after Holm's correction over the attackers of
	// the selection.
	// An attacker reported Aside (a screening step, a cross-pool variant,
	// a further model of a Video-Oasis test) is in no Holm family and no
	// level's eps, as on the cards: its Significant is its own p-value's,
	// uncorrected.
	Significant bool    `json:"significant"`
	PValue      float64 `json:"p_value"`
	// Aside says why the attacker is reported beside the pyramid ("" when
	// it is in it): see AsideScreening, AsideCrossPool, AsideDiagnostic.
	Aside string `json:"aside,omitempty"`
	// PaperSignificant is the papers' threshold, Margin >= 2.326
	// sqrt(c(1-c)/n) (the authors' levels.py), beside it for comparison with
	// the published tables.
	PaperSignificant bool `json:"significant_paper"`
	// Solved counts the items whose drop this attacker's verdict decides:
	// a re-run attacker's only when it is Significant on the selection, a
	// carried-over verdict's only when the attacker is significant on the
	// item's benchmark (CountsOn lists those benchmarks). Ignored counts the
	// items it solves where it is not.
	Solved   int      `json:"solved"`
	Ignored  int      `json:"solved_not_significant"`
	CountsOn []string `json:"counts_on,omitempty"`
}

// LevelResidual is eps_l of a selection.
type LevelResidual struct {
	Level       harness.Level `json:"level"`
	Eps         float64       `json:"eps"`
	Attacker    string        `json:"attacker"`
	Significant bool          `json:"significant"`
}

// residualLevels is the running maximum of the attackers' margins over the
// levels (the profile is nondecreasing, as on the cards); the attackers
// reported aside enter no level, as on the cards.
func residualLevels(rs []AttackerResidual) []LevelResidual {
	var out []LevelResidual
	var best *AttackerResidual
	for _, l := range harness.Levels() {
		has := false
		for k := range rs {
			if rs[k].Level != l || rs[k].N == 0 || rs[k].Aside != "" {
				continue
			}
			has = true
			if best == nil || rs[k].Margin > best.Margin {
				best = &rs[k]
			}
		}
		if has {
			out = append(out, LevelResidual{Level: l, Eps: best.Margin, Attacker: best.Name, Significant: best.Significant})
		}
	}
	return out
}

// significant is the papers' threshold: a margin of at least 2.326
// sqrt(c(1-c)/n) (Video-Index; the authors' levels.py).
func significant(margin, chance float64, n int) bool {
	if n == 0 {
		return false
	}
	return margin >= 2.326*math.Sqrt(chance*(1-chance)/float64(n))
}

// A Round is one attack of the gate and what it dropped.
type Round struct {
	Round    int `json:"round"`
	Selected int `json:"selected"`
	// Solved is how many selected items some attacker solved; Dropped how
	// many of them the gate dropped (all, except after the last round).
	Solved  int `json:"solved"`
	Dropped int `json:"dropped"`
	// SolvedBy counts, per attacker, the selected items it solved.
	SolvedBy map[string]int  `json:"solved_by"`
	Levels   []LevelResidual `json:"levels"`
}

// A Gated release is a selection that went through the red-team gate.
type Gated struct {
	Selection *Selection
	Rounds    []Round
	// Residual is the last attack: the release's residual exploitability.
	Residual *Attack
}

// Draw is the selector of the gate: Select or Hardest.
func Draw(p *Pool, q Query, seed uint64, keep []int, exclude []bool) (*Selection, error) {
	if q.Hardest > 0 {
		return Hardest(p, q, seed, keep, exclude)
	}
	return Select(p, q, seed, keep, exclude)
}

// Gate draws a selection for q and puts it through the red-team gate
// (Video-Index 5.2, after adversarial filtering): team attacks the
// selection as its own pool, the items it solves are dropped, excluded
// from then on, and the selection is refilled from the pool by the same
// selector, keeping the items that survived; at most rounds times. The
// selection that comes out is attacked once more: what that attack finds is
// the residual exploitability, and items it solves after the last round
// stay in the release, counted in the last Round. With rounds = 0 nothing is
// dropped and the attack only measures.
func Gate(ctx context.Context, p *Pool, q Query, seed uint64, team RedTeam, rounds int) (*Gated, error) {
	if rounds < 0 {
		return nil, fmt.Errorf("gate: %d rounds: want 0 or more", rounds)
	}
	sel, err := Draw(p, q, seed, nil, nil)
	if err != nil {
		return nil, err
	}
	out := &Gated{}
	relaxations := sel.Relaxations
	exclude := make([]bool, len(p.Candidates))
	for r := 0; ; r++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		att, err := team.Attack(ctx, p, sel.Picks)
		if err != nil {
			return nil, fmt.Errorf("red-team round %d: %w", r, err)
		}
		if len(att.Solvers) != len(sel.Picks) {
			return nil, fmt.Errorf("red-team round %d: %d verdicts for %d items", r, len(att.Solvers), len(sel.Picks))
		}
		round := Round{Round: r, Selected: len(sel.Picks), SolvedBy: map[string]int{}, Levels: att.Levels}
		var keep []int
		for k, i := range sel.Picks {
			if len(att.Solvers[k]) == 0 {
				keep = append(keep, i)
				continue
			}
			round.Solved++
			for _, a := range att.Solvers[k] {
				round.SolvedBy[a]++
			}
		}
		last := round.Solved == 0 || r == rounds
		if !last {
			round.Dropped = round.Solved
		}
		out.Rounds = append(out.Rounds, round)
		if last {
			out.Residual = att
			break
		}
		for k, i := range sel.Picks {
			if len(att.Solvers[k]) > 0 {
				exclude[i] = true
			}
		}
		nq := q
		if q.Hardest == 0 {
			caps := sel.Caps
			nq.Caps = &caps
		}
		next, err := Draw(p, nq, seed, keep, exclude)
		if err != nil {
			return nil, fmt.Errorf("red-team round %d: refill: %w", r, err)
		}
		for _, x := range next.Relaxations {
			x.Round = r + 1
			relaxations = append(relaxations, x)
		}
		sel = next
	}
	sel.Relaxations = relaxations
	out.Selection = sel
	return out, nil
}

func attackerIndex(p *Pool, name string) int {
	for k, a := range p.Attackers {
		if a.Name == name {
			return k
		}
	}
	return len(p.Attackers)
}

// An Outcome says what the gate could not do, for the terminal and the exit
// status of vidscreen select (issue 33.1.2): on a large budget, dropping
// every item a learner answers can create new gold-position and option
// artifacts, and the refill can run out of items, so the gate's last attack
// may still find a significant level, or the release may hold fewer items
// than the budget. Both are facts the release's reports state too.
type Outcome struct {
	// Rounds is how many attacks the gate made (the last one measures).
	Rounds int
	// Kept is how many items the release holds; Budget how many were asked
	// (0 for --hardest, which asks K per group); Drawn how many the first
	// draw held, before the gate dropped any.
	Kept, Budget, Drawn int
	// Significant lists the levels still significant on the release.
	Significant []LevelResidual
}

// Outcome reports g's outcome for the query it gated.
func (g *Gated) Outcome(q Query) Outcome {
	o := Outcome{Rounds: len(g.Rounds), Budget: q.Budget}
	if g.Selection != nil {
		o.Kept = len(g.Selection.Picks)
	}
	if len(g.Rounds) > 0 {
		o.Drawn = g.Rounds[0].Selected
	}
	if g.Residual != nil {
		for _, l := range g.Residual.Levels {
			if l.Significant {
				o.Significant = append(o.Significant, l)
			}
		}
	}
	return o
}

// Short reports whether the release holds fewer items than its budget.
func (o Outcome) Short() bool { return o.Budget > 0 && o.Kept < o.Budget }

// Clean reports whether the gate left no significant level and kept the
// whole budget.
func (o Outcome) Clean() bool { return len(o.Significant) == 0 && !o.Short() }

// Problems says, one line each, what the gate could not do: the levels
// still significant after its rounds, and a budget larger than what the
// pool and the gate could keep.
func (o Outcome) Problems() []string {
	var out []string
	if len(o.Significant) > 0 {
		// The levels are a running maximum: consecutive levels with the
		// same attacker and margin are one finding.
		var parts []string
		for i := 0; i < len(o.Significant); {
			j := i
			for j+1 < len(o.Significant) && o.Significant[j+1].Attacker == o.Significant[i].Attacker && o.Significant[j+1].Eps == o.Significant[i].Eps {
				j++
			}
			lv := o.Significant[i].Level.String()
			if j > i {
				lv += " to " + o.Significant[j].Level.String()
			}
			parts = append(parts, fmt.Sprintf("%s level %+.1f%% by %s", lv, 100*o.Significant[i].Eps, o.Significant[i].Attacker))
			i = j + 1
		}
		out = append(out, fmt.Sprintf("the residual is still significant after %d rounds of drop and refill: %s", o.Rounds-1, strings.Join(parts, ", ")))
	}
	if o.Short() {
		why := "the gate dropped what its attackers solved and the pool, under the caps, could not refill it"
		if o.Drawn < o.Budget {
			why = fmt.Sprintf("the pool admits only %d items under the caps before the gate", o.Drawn)
		}
		out = append(out, fmt.Sprintf("the budget %d exceeds what the gate can keep: the release holds %d items (%s)", o.Budget, o.Kept, why))
	}
	return out
}
