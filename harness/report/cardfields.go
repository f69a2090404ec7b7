package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// The card fields of issue 32 (answer_check, error_attribution,
// second_reference, reference_source, reference_near_chance) were in
// cards.json only; the functions here put them in words for cards.md,
// index.html and the terminal, each the same sentence in all three, so
// that a reader of any one learns what the card says and, where a stage
// could not run, why ("not run: ...").

// maxLabels is how many error labels a sentence names before "and k
// more": the authors' profile is about the leading two (Video-Index 4.4).
const maxLabels = 5

// cardNotes lists the sentences of c's issue-32 fields in the order a
// reader meets them under the reference figures: where s* came from, the
// second reference, where the reference's errors fall, and the answer
// check. Fields the card lacks give no sentence.
func cardNotes(c metrics.Card) []string {
	var out []string
	for _, s := range []string{referenceSourceNote(c), secondReferenceNote(c.SecondReference), attributionNote(c.ErrorAttribution), answerCheckNote(c.AnswerCheck)} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// referenceSourceNote says which answers s* is read from when a local model
// computed them (ReferenceSource) and whether s* is near chance, where the
// breaking level is the first level that ran (the authors' levels.py,
// reference_near_chance).
func referenceSourceNote(c metrics.Card) string {
	var b strings.Builder
	if rs := c.ReferenceSource; rs != nil {
		fmt.Fprintf(&b, "Reference answers from %s at %d frames", rs.Model, rs.Frames)
		if rs.Probe {
			b.WriteString(" (the 128-frame probe replaced the 32-frame protocol)")
		}
		if rs.Accuracy32 != nil {
			fmt.Fprintf(&b, "; 32-frame s* %s over %d items", pct(*rs.Accuracy32), rs.N32)
		}
		if rs.Accuracy128 != nil {
			fmt.Fprintf(&b, "; 128-frame probe %s over %d items", pct(*rs.Accuracy128), rs.N128)
		}
		if rs.MeanVideoSeconds != nil {
			fmt.Fprintf(&b, "; videos average %.0f s", *rs.MeanVideoSeconds)
		}
		if rs.Note != "" {
			fmt.Fprintf(&b, " (%s)", strings.TrimSuffix(rs.Note, "."))
		}
		b.WriteString(".")
	}
	if c.ReferenceNearChance {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString("s* is within 0.05 of chance (reference_near_chance, Video-Index levels.py)")
		if c.BreakingLevel != nil {
			b.WriteString(": the breaking level is the first level that ran")
		}
		b.WriteString(".")
	}
	return b.String()
}

// secondReferenceNote is the authors' second reference (sr_*): its s*, the
// level it gives at delta 0.05 and whether that agrees with the card's, or
// "not run" and why.
func secondReferenceNote(sr *metrics.SecondReference) string {
	if sr == nil {
		return ""
	}
	if sr.Model == "" {
		return fmt.Sprintf("Second reference: not run: %s.", strings.TrimSuffix(sr.Note, "."))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Second reference %s", sr.Model)
	if sr.Accuracy != nil {
		fmt.Fprintf(&b, ": s* %s over %d items", pct(*sr.Accuracy), sr.N)
		if sr.Chance != nil {
			fmt.Fprintf(&b, " (chance %s)", pct(*sr.Chance))
		}
	}
	if sr.BreakingLevel != nil {
		fmt.Fprintf(&b, "; breaks at %s at delta 0.05", *sr.BreakingLevel)
		if sr.NearChance {
			b.WriteString(" (near chance: the first level that ran)")
		}
		switch {
		case sr.Agree == nil:
		case *sr.Agree:
			b.WriteString(", the card's level too")
		default:
			b.WriteString(", not the card's level")
		}
	}
	if sr.Note != "" {
		fmt.Fprintf(&b, "; %s", strings.TrimSuffix(sr.Note, "."))
	}
	b.WriteString(".")
	return b.String()
}

// attributionNote is where the reference's errors fall (Video-Index 4.4) by
// the items' task and group labels, the authors' two pre-classification
// rules, and that the per-error judgement did not run.
func attributionNote(ea *metrics.ErrorAttribution) string {
	if ea == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Reference errors: %d of %d answered", ea.Errors, ea.Answered)
	if ea.Few {
		fmt.Fprintf(&b, " (fewer than %d: the authors draw no profile)", metrics.AttributionMinErrors)
	}
	if len(ea.ByTask) > 0 {
		fmt.Fprintf(&b, "; by task %s", labelShares(ea.ByTask))
	}
	if ea.TopTwoShare != nil {
		fmt.Fprintf(&b, "; the two leading tasks hold %s (Video-Index: median 71%%)", pct(*ea.TopTwoShare))
	}
	if len(ea.ByGroup) > 0 {
		fmt.Fprintf(&b, "; by group %s", labelShares(ea.ByGroup))
	}
	if ea.BlindReader != "" {
		whose := "another model's text-only answers, context only"
		if ea.BlindIsReference {
			whose = "the reference's own text-only answers"
		}
		fmt.Fprintf(&b, "; against %s (%s) on %d errors: %d language-prior dominated, %d vision-introduced", ea.BlindReader, whose, ea.BlindAnswered, ea.LanguagePrior, ea.VisionIntroduced)
	}
	if !ea.Judged {
		fmt.Fprintf(&b, ". Judged attribution: not run: %s", strings.TrimSuffix(ea.Note, "."))
	}
	b.WriteString(".")
	return b.String()
}

// labelShares writes "a 12 (40.0%), b 6 (20.0%) and 3 more".
func labelShares(ls []metrics.LabelShare) string {
	n := min(len(ls), maxLabels)
	parts := make([]string, n)
	for i, l := range ls[:n] {
		parts[i] = fmt.Sprintf("%s %d (%s)", l.Name, l.Errors, pct(l.Share))
	}
	s := strings.Join(parts, ", ")
	if k := len(ls) - n; k > 0 {
		s += fmt.Sprintf(" and %d more", k)
	}
	return s
}

// answerCheckNote is the answer-verification stage (--verify-answers): its
// verdicts and the items it flags answer_suspect, or "not run" and why.
func answerCheckNote(ac *metrics.AnswerCheck) string {
	if ac == nil {
		return ""
	}
	if !ac.Ran {
		return fmt.Sprintf("Answer check: not run: %s.", strings.TrimSuffix(ac.Note, "."))
	}
	var b strings.Builder
	b.WriteString("Answer check")
	if ac.Verifier != "" {
		fmt.Fprintf(&b, " by %s", ac.Verifier)
	}
	fmt.Fprintf(&b, ": %d items, %d asked, %d asked again at 512 frames", ac.Items, ac.Asked, ac.Rechecked)
	if len(ac.Verdicts) > 0 {
		fmt.Fprintf(&b, "; verdicts %s", counts(ac.Verdicts))
	}
	fmt.Fprintf(&b, "; %d kept, %d answer_suspect", ac.Kept, ac.Suspect)
	if len(ac.Reasons) > 0 {
		// Keep's reasons cover kept and dropped items alike (supported,
		// not_verifiable_long keep; the others drop).
		fmt.Fprintf(&b, "; by keep rule %s", counts(ac.Reasons))
	}
	if ac.Note != "" {
		fmt.Fprintf(&b, "; %s", strings.TrimSuffix(ac.Note, "."))
	}
	b.WriteString(".")
	return b.String()
}

// counts writes a map of counts as "a 3, b 1", by name.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// summaryNote is the terminal's line for c's issue-32 fields: the figures a
// reader acts on (suspect answers, s* near chance, the second reference's
// level) in a few words; "" when the card has none. cards.md has the rest.
func summaryNote(c metrics.Card) string {
	var parts []string
	if ac := c.AnswerCheck; ac != nil && ac.Ran {
		parts = append(parts, fmt.Sprintf("answer check %d of %d answer_suspect", ac.Suspect, ac.Items))
	}
	if c.ReferenceSource != nil && c.ReferenceSource.Probe {
		parts = append(parts, "s* from the 128-frame probe")
	}
	if c.ReferenceNearChance {
		s := "s* near chance"
		if c.BreakingLevel != nil {
			s += " (breaks at the first level run)"
		}
		parts = append(parts, s)
	}
	if sr := c.SecondReference; sr != nil {
		switch {
		case sr.BreakingLevel != nil:
			s := "second reference breaks at " + *sr.BreakingLevel
			if sr.Agree != nil && !*sr.Agree {
				s += " (not the card's level)"
			}
			parts = append(parts, s)
		}
	}
	if ea := c.ErrorAttribution; ea != nil && !ea.Few && len(ea.Leading) > 0 && ea.TopTwoShare != nil {
		parts = append(parts, fmt.Sprintf("reference errors led by %s (top two %s)", strings.Join(ea.Leading, ", "), pct(*ea.TopTwoShare)))
	}
	if len(parts) == 0 {
		return ""
	}
	return c.Benchmark + ": " + strings.Join(parts, "; ") + "."
}

// notRunLines are the terminal's lines for the issue-32 stages that could
// not run: one line per stage and reason, naming the benchmarks unless it
// is all of them, since the reasons are the run's (no verifier, no second
// vlm_reader) and a line per benchmark would repeat them.
func notRunLines(cards []metrics.Card) []string {
	type key struct{ stage, why string }
	var order []key
	on := map[key][]string{}
	add := func(stage, why, bench string) {
		k := key{stage, strings.TrimSuffix(why, ".")}
		if on[k] == nil {
			order = append(order, k)
		}
		on[k] = append(on[k], bench)
	}
	for _, c := range cards {
		if ac := c.AnswerCheck; ac != nil && !ac.Ran {
			add("answer check", ac.Note, c.Benchmark)
		}
		if sr := c.SecondReference; sr != nil && sr.Model == "" {
			add("second reference", sr.Note, c.Benchmark)
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		where := ""
		if len(on[k]) < len(cards) {
			where = " on " + strings.Join(on[k], ", ")
		}
		out = append(out, fmt.Sprintf("%s not run%s: %s.", k.stage, where, k.why))
	}
	return out
}

// tooFewLine is the line the terminal's audit of the auditor prints below
// its table (truth.Evaluation.WriteText) when planted families have fewer
// items than a perfect attacker needs to be significant, naming them so
// that a reader of the reports does not read their misses as the
// auditor's; "" when none is too small.
func tooFewLine(ev *truth.Evaluation) string {
	if ev == nil || ev.TooFew == 0 {
		return ""
	}
	var small []string
	for _, f := range ev.Families {
		if f.N < f.MinItems && f.Expected != nil && slices.Contains(ev.Levels, *f.Expected) {
			small = append(small, fmt.Sprintf("%s %d < %d", f.Family, f.N, f.MinItems))
		}
	}
	return fmt.Sprintf("%d of the %d planted families have too few items to test (%s): below the minimum, even an attacker right on every item is not significant (c^n >= %.2g/%d, Holm over %d attackers); render a larger world (vidscreen world --videos).",
		ev.TooFew, ev.Planted, strings.Join(small, ", "), metrics.Alpha, truth.HolmAttackers, truth.HolmAttackers)
}

// auditorVerdict is a family's verdict as the terminal prints it: "(the
// attacker only guessed)" and "(too few items to test: n < min)" where
// they apply.
func auditorVerdict(f truth.FamilyResult) string {
	v := f.Verdict
	if f.Guessed {
		v += " (the attacker only guessed)"
	}
	if f.N < f.MinItems && (f.Verdict == "missed" || f.Verdict == "not run") {
		v += fmt.Sprintf(" (too few items to test: %d < %d)", f.N, f.MinItems)
	}
	return v
}
