package metrics

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/solve"
)

// An ItemScore is one cell of the per-item table: what one attacker did with
// one item where it was scored (for a prequential attacker, on the order
// whose scored fold holds the item).
type ItemScore struct {
	Item     int // index into the run's items
	Attacker string
	Level    harness.Level
	Choice   int
	// Margin is log p(gold) - mean log p(others) of that answer.
	Margin float64
	// Variants is the number of orders that answered the item.
	Variants int
	// Scored is true when some order scored the item. Choice, Margin,
	// Correct and Abstained then describe the answer there (the lowest such
	// order when several did); otherwise they describe the answer on the
	// lowest order present, and Correct and Solved are false.
	Scored    bool
	Correct   bool
	Abstained bool
	// Floored says a score of that answer is the floor log(1e-6), not the
	// model's own (attack.Prediction.Floored): a served reader's server
	// left an option's letter out of its top log-probabilities.
	Floored bool
	// Solved says the item falls to the attacker where it was scored, by
	// package solve's rule (Video-Index 5.1): right and, for a model reader
	// scoring letters, with a margin above log 2; never by a guess.
	Solved bool
}

// ItemScores returns one ItemScore per (item, attacker) with outcomes,
// ordered by item index and then by the attackers' column order
// (attack.Attackers of cfg.Attack). Floats are rounded like the cards'.
func ItemScores(items []*harness.Item, outcomes []Outcome, cfg Config) ([]ItemScore, error) {
	atts := configured(cfg.Attack)
	if len(atts) == 0 {
		return nil, nil
	}
	col := columns(atts)
	t := newCellTable(len(items), len(atts))
	for _, o := range outcomes {
		k, ok := col[o.Attacker]
		if !ok {
			return nil, fmt.Errorf("item scores: outcome of unknown attacker %q", o.Attacker)
		}
		s, err := score(items, o)
		if err != nil {
			return nil, fmt.Errorf("item scores: %w", err)
		}
		t.add(k, o.Variant, s)
	}
	return t.scores(atts), nil
}

// A cell is what the item table keeps of one (item, attacker) while the
// outcomes arrive: the answer it shows and how many orders answered.
type cell struct {
	margin  float64
	variant int32
	n       int32
	choice  uint8
	present bool
	scored  bool
	correct bool
	abstain bool
	floored bool
}

// A cellTable holds one cell per (item, attacker), item-major.
type cellTable struct {
	cols  int
	cells []cell
}

func newCellTable(items, cols int) *cellTable {
	return &cellTable{cols: cols, cells: make([]cell, items*cols)}
}

// add files the scored outcome s of attacker column k on variant v: the
// cell shows the answer of the lowest scored order, else of the lowest
// order.
func (t *cellTable) add(k, v int, s scored) {
	c := &t.cells[int(s.item)*t.cols+k]
	if !c.present || s.scored && !c.scored || s.scored == c.scored && int32(v) < c.variant {
		c.variant, c.margin, c.choice, c.scored, c.correct, c.abstain, c.floored = int32(v), s.margin, s.choice, s.scored, s.correct, s.abstain, s.floored
	}
	c.present = true
	c.n++
}

// scores lists the table's cells with outcomes, by item and then column.
func (t *cellTable) scores(atts []attackerInfo) []ItemScore {
	n := 0
	for k := range t.cells {
		if t.cells[k].present {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]ItemScore, 0, n)
	for idx := range t.cells {
		c := &t.cells[idx]
		if !c.present {
			continue
		}
		a := atts[idx%t.cols]
		out = append(out, ItemScore{
			Item:      idx / t.cols,
			Attacker:  a.name,
			Level:     a.level,
			Scored:    c.scored,
			Choice:    int(c.choice),
			Margin:    round(c.margin),
			Correct:   c.scored && c.correct,
			Abstained: c.abstain,
			Floored:   c.floored,
			Solved:    a.rule.Solves(solve.Answer{Scored: c.scored, Abstained: c.abstain, Correct: c.correct, Margin: c.margin}),
			Variants:  int(c.n),
		})
	}
	return out
}
