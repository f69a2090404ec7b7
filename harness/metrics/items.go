package metrics

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// An ItemScore is one cell of the per-item table: what one attacker did with
// one item where it was scored (for a prequential attacker, on the order
// whose scored fold holds the item).
type ItemScore struct {
	Item     int // index into the run's items
	Attacker string
	Level    harness.Level
	// Scored is true when some order scored the item. Choice, Margin,
	// Correct and Abstained then describe the answer there (the lowest such
	// order when several did); otherwise they describe the answer on the
	// lowest order present, and Correct and Solved are false.
	Scored bool
	Choice int
	// Margin is log p(gold) - mean log p(others) of that answer.
	Margin    float64
	Correct   bool
	Abstained bool
	// Solved is Scored && Correct && !Abstained: the item falls to the
	// attacker where it was scored, and not by a guess.
	Solved bool
	// Variants is the number of orders that answered the item.
	Variants int
}

// ItemScores returns one ItemScore per (item, attacker) with outcomes,
// ordered by item index and then by the attackers' column order
// (attack.Attackers of cfg.Attack). Floats are rounded like the cards'.
func ItemScores(items []*harness.Item, outcomes []Outcome, cfg Config) ([]ItemScore, error) {
	atts := configured(cfg.Attack)
	if len(atts) == 0 {
		return nil, nil
	}
	col := map[string]int{}
	for k, a := range atts {
		col[a.name] = k
	}
	type cell struct {
		variant int
		s       scored
		choice  int
		n       int
	}
	cells := make([]*cell, len(items)*len(atts))
	for _, o := range outcomes {
		k, ok := col[o.Attacker]
		if !ok {
			return nil, fmt.Errorf("item scores: outcome of unknown attacker %q", o.Attacker)
		}
		s, err := score(items, o)
		if err != nil {
			return nil, fmt.Errorf("item scores: %w", err)
		}
		c := cells[o.Item*len(atts)+k]
		if c == nil {
			c = &cell{variant: o.Variant, s: s, choice: o.Pred.Choice}
			cells[o.Item*len(atts)+k] = c
		} else if s.scored && !c.s.scored || s.scored == c.s.scored && o.Variant < c.variant {
			c.variant, c.s, c.choice = o.Variant, s, o.Pred.Choice
		}
		c.n++
	}
	var out []ItemScore
	for idx, c := range cells {
		if c == nil {
			continue
		}
		a := atts[idx%len(atts)]
		out = append(out, ItemScore{
			Item:      idx / len(atts),
			Attacker:  a.name,
			Level:     a.level,
			Scored:    c.s.scored,
			Choice:    c.choice,
			Margin:    round(c.s.margin),
			Correct:   c.s.scored && c.s.correct,
			Abstained: c.s.abstain,
			Solved:    c.s.scored && c.s.solved(),
			Variants:  c.n,
		})
	}
	return out, nil
}
