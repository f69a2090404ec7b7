package metrics

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// An ItemScore is one cell of the per-item table: what one attacker did with
// one item, over the orders it ran on.
type ItemScore struct {
	Item     int // index into the run's items
	Attacker string
	Level    harness.Level
	// Choice is the option chosen on the lowest variant present (variant 0
	// in a complete run).
	Choice int
	// Correct is the share of variants answered correctly.
	Correct float64
	// Margin is the mean over variants of log p(gold) - mean log p(others).
	Margin float64
	// Solved is Margin > log 2 (DESIGN.md: the item is solved for
	// screening).
	Solved bool
	// Abstained is the share of variants that were seeded guesses.
	Abstained float64
	Variants  int
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
	type acc struct {
		choice, minVariant int
		correct, abstained float64
		margin             float64
		n                  int
	}
	cells := make([]*acc, len(items)*len(atts))
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
			c = &acc{minVariant: o.Variant, choice: o.Pred.Choice}
			cells[o.Item*len(atts)+k] = c
		}
		if o.Variant < c.minVariant {
			c.minVariant, c.choice = o.Variant, o.Pred.Choice
		}
		c.correct += b2f(s.correct)
		c.abstained += b2f(s.abstain)
		c.margin += s.margin
		c.n++
	}
	var out []ItemScore
	for idx, c := range cells {
		if c == nil {
			continue
		}
		a := atts[idx%len(atts)]
		n := float64(c.n)
		m := c.margin / n
		out = append(out, ItemScore{
			Item:      idx / len(atts),
			Attacker:  a.name,
			Level:     a.level,
			Choice:    c.choice,
			Correct:   round(c.correct / n),
			Margin:    round(m),
			Solved:    m > solvedMargin,
			Abstained: round(c.abstained / n),
			Variants:  c.n,
		})
	}
	return out, nil
}
