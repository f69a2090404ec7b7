package truth

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// A FamilyResult is one row of the audit of the auditor: where the audit
// caught a planted family, against where it should have.
type FamilyResult struct {
	Family    string         `json:"family"`
	Benchmark string         `json:"benchmark"`
	Expected  *harness.Level `json:"expected"`
	// Caught is the first level whose exploitability is significant; nil
	// when none of the levels run is.
	Caught *harness.Level `json:"caught"`
	// Attacker is the attacker that reached Caught, Accuracy its accuracy
	// there (chance plus eps), Chance the family's chance.
	Attacker string  `json:"attacker,omitempty"`
	Accuracy float64 `json:"accuracy,omitempty"`
	Chance   float64 `json:"chance"`
	N        int     `json:"n"`
	// Guessed is true when the attacker that reached Caught abstained on
	// every item of the family: its answers were seeded guesses, so a
	// significant margin there is luck that the card took for a shortcut.
	Guessed bool `json:"guessed,omitempty"`
	// Verdict is "caught" (at the expected level), "missed" (not caught
	// at the expected level though it ran), "false alarm" (caught below the
	// expected level, or at all where nothing was planted), "survived"
	// (nothing planted, nothing found), "not run" (the expected level did
	// not run and nothing below it caught the family) or VerdictYesNo.
	Verdict string `json:"verdict"`
	// MinItems is the fewest items on which an attacker right on every
	// item could be significant at the family's chance (MinItems with
	// HolmAttackers); a family with N below it cannot be caught.
	MinItems int `json:"min_items"`
}

// EvaluateCards judges the cards of world benchmarks (world-FAMILY) among
// cards against the families' expected levels, with no truth.json: the
// table is the one Families gives, which truth.json is written from. It
// returns nil when no card is a world family's.
func EvaluateCards(cards []metrics.Card) *Evaluation {
	t := &Truth{}
	for _, f := range Families() {
		t.Families = append(t.Families, FamilyTruth{Name: f.Name, Benchmark: f.Benchmark(), Expected: f.Expected, Shortcut: f.Shortcut})
	}
	ev, err := Evaluate(t, cards)
	if err != nil || len(ev.Families) == 0 {
		return nil
	}
	return ev
}

// VerdictYesNo is the verdict on a family whose items are all bare yes/no
// pairs, set aside before the audit (metrics.Card.YesNoOnly): an audit
// with --keep-yesno judges it.
const VerdictYesNo = "set aside: yes/no items (--keep-yesno audits them)"

// An Evaluation is the audit of the auditor over a whole world.
type Evaluation struct {
	Families []FamilyResult `json:"families"`
	// Levels lists the levels the audit ran.
	Levels []harness.Level `json:"levels"`
	// Planted counts the families with a shortcut at a level that ran;
	// Recalled those caught exactly there (a family caught below its level
	// is not). Recall is Recalled/Planted.
	Planted  int     `json:"planted"`
	Recalled int     `json:"recalled"`
	Recall   float64 `json:"recall"`
	// FalseAlarms counts families caught below their expected level (or
	// caught at all when none was planted).
	FalseAlarms int `json:"false_alarms"`
	// TooFew counts the planted families with fewer items than MinItems:
	// their misses say the world is too small, not the auditor blind.
	TooFew int `json:"too_few"`
}

// Evaluate compares the cards of an audit with the world's truth. Families
// whose benchmark has no card are left out (the audit did not read them).
func Evaluate(t *Truth, cards []metrics.Card) (*Evaluation, error) {
	byName := map[string]*metrics.Card{}
	for i := range cards {
		byName[cards[i].Benchmark] = &cards[i]
	}
	ev := &Evaluation{}
	ran := map[harness.Level]bool{}
	for _, f := range t.Families {
		c, ok := byName[f.Benchmark]
		if !ok {
			continue
		}
		if c.YesNoOnly {
			// Its items were set aside before the audit: nothing was
			// looked for, so it counts neither as planted nor as missed.
			ev.Families = append(ev.Families, FamilyResult{Family: f.Name, Benchmark: f.Benchmark, Expected: f.Expected, Verdict: VerdictYesNo})
			continue
		}
		levels, err := cardLevels(c)
		if err != nil {
			return nil, err
		}
		r := FamilyResult{Family: f.Name, Benchmark: f.Benchmark, Expected: f.Expected, Chance: c.Chance, N: c.N, MinItems: MinItems(c.Chance, HolmAttackers)}
		for _, l := range harness.Levels() {
			lr := levels[l]
			if lr == nil {
				continue
			}
			ran[l] = true
			if lr.Significant && r.Caught == nil {
				l := l
				r.Caught, r.Attacker, r.Accuracy = &l, lr.Attacker, round3(c.Chance+lr.Eps)
				for _, a := range c.Attackers {
					if a.Name == lr.Attacker && a.AbstainShare >= 1 {
						r.Guessed = true
					}
				}
			}
		}
		planted := f.Expected != nil && levels[*f.Expected] != nil
		if planted {
			ev.Planted++
			if r.N < r.MinItems {
				ev.TooFew++
			}
		}
		switch {
		case r.Caught != nil && (f.Expected == nil || *r.Caught < *f.Expected):
			r.Verdict = "false alarm"
			ev.FalseAlarms++
		case f.Expected == nil:
			r.Verdict = "survived"
		case levels[*f.Expected] == nil:
			r.Verdict = "not run"
		case r.Caught != nil && *r.Caught == *f.Expected:
			r.Verdict = "caught"
			ev.Recalled++
		default:
			r.Verdict = "missed"
		}
		ev.Families = append(ev.Families, r)
	}
	for _, l := range harness.Levels() {
		if ran[l] {
			ev.Levels = append(ev.Levels, l)
		}
	}
	if ev.Planted > 0 {
		ev.Recall = round3(float64(ev.Recalled) / float64(ev.Planted))
	}
	return ev, nil
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5*sign(x))) / 1000 }

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// cardLevels reads a card's levels by name through their JSON form, so
// that levels a card gains (frame, order) are read without a change here.
func cardLevels(c *metrics.Card) (map[harness.Level]*metrics.LevelResult, error) {
	b, err := json.Marshal(c.Levels)
	if err != nil {
		return nil, err
	}
	var byName map[string]*metrics.LevelResult
	if err := json.Unmarshal(b, &byName); err != nil {
		return nil, fmt.Errorf("card %s: levels: %w", c.Benchmark, err)
	}
	out := map[harness.Level]*metrics.LevelResult{}
	for name, lr := range byName {
		l, err := harness.ParseLevel(name)
		if err != nil {
			return nil, fmt.Errorf("card %s: %w", c.Benchmark, err)
		}
		out[l] = lr
	}
	return out, nil
}

// WriteText prints the evaluation as a table and a summary line.
func (ev *Evaluation) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "family\texpected\tcaught at\tby\taccuracy\tchance\tn\tverdict")
	lv := func(l *harness.Level) string {
		if l == nil {
			return "none"
		}
		return l.String()
	}
	for _, r := range ev.Families {
		acc, by := "-", "-"
		if r.Caught != nil {
			acc, by = fmt.Sprintf("%.3f", r.Accuracy), r.Attacker
		}
		verdict := r.Verdict
		if r.Guessed {
			verdict += " (the attacker only guessed)"
		}
		caught, chance := lv(r.Caught), fmt.Sprintf("%.3f", r.Chance)
		if r.Verdict == VerdictYesNo {
			caught, chance = "-", "-" // nothing was audited
		}
		if r.N < r.MinItems && (r.Verdict == "missed" || r.Verdict == "not run") {
			verdict += fmt.Sprintf(" (too few items to test: %d < %d)", r.N, r.MinItems)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Family, lv(r.Expected), caught, by, acc, chance, r.N, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	names := make([]string, len(ev.Levels))
	for i, l := range ev.Levels {
		names[i] = l.String()
	}
	if _, err := fmt.Fprintf(w, "recall of planted shortcuts at their level: %d/%d (%.3f); false alarms: %d; levels run: %s\n",
		ev.Recalled, ev.Planted, ev.Recall, ev.FalseAlarms, strings.Join(names, ", ")); err != nil {
		return err
	}
	if ev.TooFew > 0 {
		_, err := fmt.Fprintf(w, "%d of the %d planted families have too few items to test: below the minimum, even an attacker right on every item is not significant (c^n >= %.2g/%d, Holm over %d attackers); render a larger world (vidscreen world --videos)\n",
			ev.TooFew, ev.Planted, metrics.Alpha, HolmAttackers, HolmAttackers)
		return err
	}
	return nil
}
