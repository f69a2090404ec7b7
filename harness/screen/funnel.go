package screen

import (
	"cmp"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/letters"
)

// StepYesNo removes the bare yes/no items (harness.IsYesNo), after the
// within-benchmark duplicates and before the option format, under the
// authors' reason name (harness.YesNoReason).
const StepYesNo = harness.YesNoReason

// runFunnel screens s.Rows as the Video-Index funnel (section 5.1; the
// authors' pool/screen.py): within-benchmark duplicates, option format,
// then each screening attacker in pyramid order, then cross-benchmark
// duplicates, each step on the items the earlier ones left, so that every
// removed item has exactly one reason (Row.RemovedBy). An item that reaches
// a step reading its video when its video failed is pending: it leaves the
// funnel neither kept nor removed (the authors' pending_steps); so is an
// item failed for letters.FailureServer, at the first attacker step. It returns
// the steps in the order they ran.
func runFunnel(s *Screen, drop harness.Quality, gated map[string][]string) []string {
	rows := s.Rows
	alive := func(r *Row) bool { return r.RemovedBy == "" && r.Pending == "" }
	for i := range rows {
		rows[i].RemovedBy, rows[i].DuplicateOf, rows[i].Pending, rows[i].Kept = "", "", "", false
	}
	text := s.Embeddings.Text
	if text == nil {
		text = s.Embeddings.Question
	}
	steps := []string{StepDuplicate}
	withinDuplicates(rows, text)

	// Bare yes/no items never enter the authors' screen (pool/schema.py:
	// format yesno, removed as format_yesno). An audit sets them aside
	// before it runs, so they reach the funnel only from a run that kept
	// them (--keep-yesno), which screening keeps as well, or from a run
	// written before the audit set them aside: the step then shows.
	if !s.KeepYesNo && slices.ContainsFunc(rows, func(r Row) bool { return alive(&r) && harness.IsYesNo(r.Options) }) {
		steps = append(steps, StepYesNo)
		for i := range rows {
			if r := &rows[i]; alive(r) && harness.IsYesNo(r.Options) {
				r.RemovedBy = StepYesNo
			}
		}
	}

	steps = append(steps, StepOptionFormat)
	for i := range rows {
		if r := &rows[i]; alive(r) && badFormat(r, drop) {
			r.RemovedBy = StepOptionFormat
		}
	}

	for _, k := range attackSteps(s.Attackers) {
		a := s.Attackers[k]
		steps = append(steps, a.Name)
		video := a.Level == harness.LevelFrame.String() || a.Level == harness.LevelOrder.String()
		for i := range rows {
			r := &rows[i]
			if !alive(r) {
				continue
			}
			// A failed video leaves its item pending at the steps that
			// read it; a failed server (the item's reader was never
			// answered) at every step: it is neither solved nor unsolved.
			if r.Failure != "" && (video || r.Failure == letters.FailureServer) {
				r.Pending = a.Name
				continue
			}
			if r.Verdicts[k].Solved && screensOn(a.Name, r.Benchmark, gated, &s.Options) {
				r.RemovedBy = a.Name
			}
		}
	}

	steps = append(steps, StepCrossDuplicate)
	crossDuplicates(rows, text)
	for i := range rows {
		rows[i].Kept = alive(&rows[i])
	}
	return steps
}

// attackSteps returns the indices of the screening attackers in funnel
// order: by pyramid level (Video-Index 5.1 runs the options-only, blind,
// single-frame and 32-frame steps in that order), within a level in
// DefaultScreeners' order, then in the run's.
func attackSteps(attackers []Attacker) []int {
	rank := func(level string) int {
		l, err := harness.ParseLevel(level)
		if err != nil {
			return len(harness.Levels())
		}
		return slices.Index(harness.Levels(), l)
	}
	def := func(name string) int {
		if name == ShuffledScreenReader {
			name = "shuffled-frames-reader" // the same step on screen_reader
		}
		if k := slices.Index(DefaultScreeners, name); k >= 0 {
			return k
		}
		return len(DefaultScreeners)
	}
	var out []int
	for k, a := range attackers {
		if a.Screens {
			out = append(out, k)
		}
	}
	slices.SortStableFunc(out, func(x, y int) int {
		a, b := attackers[x], attackers[y]
		return cmp.Or(cmp.Compare(rank(a.Level), rank(b.Level)), cmp.Compare(def(a.Name), def(b.Name)))
	})
	return out
}

// badFormat reports whether the option-format step removes r: a meta
// option ("all of the above", "both A and B", "cannot be determined from
// the video", ...), a repeated option text, an empty gold option (the
// authors' pool/dedup.py option_format_reasons; formatProblem), the
// audit's data-quality flags for the same (harness.MetaOption,
// harness.RepeatedOption), or a flag drop names.
func badFormat(r *Row, drop harness.Quality) bool {
	q := qualityOf(r.Quality)
	if q&(harness.MetaOption|harness.RepeatedOption|drop) != 0 {
		return true
	}
	return formatProblem(r.Options, r.Answer)
}
