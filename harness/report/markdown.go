package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// WriteMarkdown writes cards.md: an overview table with one row per
// benchmark, then per benchmark its levels, attackers, breakdowns by task
// and group, reference figures, data-quality counts and duplicates.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	ran := levelsRun(r.Cards)
	fmt.Fprintf(bw, "# Audit report cards\n\n")
	if r.Version != "" {
		fmt.Fprintf(bw, "vidscreen %s. ", r.Version)
	}
	fmt.Fprintf(bw, "eps is the exploitability of a level: the largest margin over chance of any attacker at or below it (Video-Index, section 2). ")
	fmt.Fprintf(bw, "A margin is significant when an exact one-sided test against each item's own chance rejects at 0.05 after Holm's correction over the benchmark's attackers (an abstention counts as chance); `ns` marks one that is not, and \"%s\" one that passes alone only. ", notSignificantAfterCorrection)
	fmt.Fprintf(bw, "The papers' threshold 2.326 sqrt(c(1-c)/n) is given on each card for comparison with the published tables. ")
	fmt.Fprintf(bw, "Attackers marked as learning from the pool read other items' gold answers (pool access by Video-Index's definition), whatever their level.\n\n")
	fmt.Fprintf(bw, "| benchmark | n | chance |")
	for _, l := range ran {
		fmt.Fprintf(bw, " eps %s |", l)
	}
	fmt.Fprintf(bw, " s* | breaks at (delta 0.05) | near-dup share | cross-benchmark dups |\n|---|---:|---:|")
	for range ran {
		fmt.Fprintf(bw, "---:|")
	}
	fmt.Fprintf(bw, "---:|---|---:|---:|\n")
	for _, c := range r.Cards {
		fmt.Fprintf(bw, "| %s | %d | %s |", mdEscape(c.Benchmark), c.N, chanceCell(c))
		for _, l := range ran {
			fmt.Fprintf(bw, " %s |", cardLevelCell(c, l))
		}
		fmt.Fprintf(bw, " %s | %s | %s | %s |\n", refCell(c), breaking(c, "0.05"), optPct(c.NearDuplicateShare), optInt(c.CrossBenchmarkDuplicates))
	}
	for _, w := range FailureWarnings(r.Cards) {
		fmt.Fprintf(bw, "\n**Warning:** %s.\n", mdEscape(w))
	}
	fmt.Fprintf(bw, "\n%s\n", RetentionSummary(r.Cards))
	if ev := truth.EvaluateCards(r.Cards); ev != nil {
		fmt.Fprintf(bw, "\n## Audit of the auditor\n\n")
		fmt.Fprintf(bw, "The world-* benchmarks carry a known shortcut per family (docs/world.md). ")
		fmt.Fprintf(bw, "Recall of planted shortcuts at their level: %d/%d; false alarms: %d.\n\n", ev.Recalled, ev.Planted, ev.FalseAlarms)
		fmt.Fprintf(bw, "| family | expected level | caught at | by | accuracy there | chance | n | verdict |\n|---|---|---|---|---:|---:|---:|---|\n")
		for _, f := range ev.Families {
			by := "-"
			if f.Caught != nil {
				by = f.Attacker
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %d | %s |\n", f.Family, levelName(f.Expected), levelName(f.Caught), by, auditorAccuracy(f), pct(f.Chance), f.N, auditorVerdict(f))
		}
		if line := tooFewLine(ev); line != "" {
			fmt.Fprintf(bw, "\n%s\n", mdEscape(line))
		}
	}
	for _, c := range r.Cards {
		fmt.Fprintf(bw, "\n## %s\n\n", mdEscape(c.Benchmark))
		if c.YesNoOnly {
			fmt.Fprintf(bw, "%s\n", beforeAudit(c))
			continue
		}
		if s := beforeAudit(c); s != "" {
			fmt.Fprintf(bw, "%s ", s)
		}
		fmt.Fprintf(bw, "%d items", c.N)
		if c.Sample != nil {
			fmt.Fprintf(bw, " (a sample of %d: %s)", c.Sample.Of, mdEscape(c.Sample.Method))
		}
		fmt.Fprintf(bw, ", chance %s, the papers' significance threshold %s", pct(c.Chance), pct(c.Significance))
		if c.Embedder != "" {
			fmt.Fprintf(bw, "; texts embedded by %s", mdEscape(c.Embedder))
		}
		fmt.Fprintf(bw, "; levels run: %s.", levelList(c))
		if nr := notRunList(c); nr != "" {
			fmt.Fprintf(bw, " Not run: %s.", mdEscape(nr))
		}
		videos, server := splitFailures(c.Failures)
		if len(videos) > 0 {
			fmt.Fprintf(bw, " Items whose video failed (the frame and order attackers abstained): %s.", failureList(videos))
		}
		if server > 0 {
			fmt.Fprintf(bw, " Items a served reader's server failed on after its retries (not answered, pending in screening; run again once the server has recovered): %d.", server)
		}
		if sr := servedList(c.ServedReaders); sr != "" {
			fmt.Fprintf(bw, " Served readers: %s.", mdEscape(sr))
		}
		if e := c.EffectiveSize; e != nil {
			fmt.Fprintf(bw, " Effective size (Vendi of the frames x question kernel, %d draws of %d of %d items): %.1f (95%% %.1f to %.1f).", e.Draws, e.DrawSize, e.N, e.Mean, e.Low, e.High)
		}
		fmt.Fprintf(bw, "\n\n")
		fmt.Fprintf(bw, "| attacker | level | learns from pool | accuracy | 95%% interval | margin | p | significant | n | orders | abstained | solved |\n")
		fmt.Fprintf(bw, "|---|---|---|---:|---|---:|---:|---|---:|---:|---:|---:|\n")
		for _, a := range c.Attackers {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s to %s | %s | %.3g | %s | %d | %d | %s | %s |\n", mdEscape(a.Name), a.Level, yesNo(a.LearnsFromPool), pct(a.Accuracy),
				pct(a.CILow), pct(a.CIHigh), signedPct(a.Margin), a.PValue, significantCell(a), a.N, a.Orders, pct(a.AbstainShare), pct(a.SolvedShare))
		}
		for _, bd := range []struct {
			name string
			rows []metrics.Breakdown
		}{{"task", c.Tasks}, {"group", c.Groups}, {"duration category", c.Durations}} {
			if len(bd.rows) == 0 {
				continue
			}
			fmt.Fprintf(bw, "\nBy %s:\n\n| %s | n | chance |", bd.name, bd.name)
			for _, l := range ran {
				fmt.Fprintf(bw, " eps %s |", l)
			}
			fmt.Fprintf(bw, "\n|---|---:|---:|")
			for range ran {
				fmt.Fprintf(bw, "---:|")
			}
			fmt.Fprintln(bw)
			for _, x := range bd.rows {
				name := x.Name
				if name == "" {
					name = "(none)"
				}
				fmt.Fprintf(bw, "| %s | %d | %s |", mdEscape(name), x.N, pct(x.Chance))
				for _, l := range ran {
					fmt.Fprintf(bw, " %s |", levelCell(x.Levels.At(l)))
				}
				fmt.Fprintln(bw)
			}
		}
		if c.ReferenceAccuracy != nil {
			fmt.Fprintf(bw, "\nReference accuracy s* = %s over %d items", pct(*c.ReferenceAccuracy), c.ReferenceN)
			if c.ReferencePartial && c.ReferenceCoverage != nil {
				fmt.Fprintf(bw, " (partial: the reference covers %s of the benchmark)", pct(*c.ReferenceCoverage))
			}
			if c.WeightedReferenceAccuracy != nil {
				fmt.Fprintf(bw, " (%s weighted by inverse near-duplicate cluster size)", pct(*c.WeightedReferenceAccuracy))
			}
			if c.BreakingLevel == nil {
				fmt.Fprintf(bw, ". Breaking level: %s.", breaking(c, "0.05"))
			} else {
				fmt.Fprintf(bw, ". Breaking level: %s at delta 0.03, %s at 0.05, %s at 0.08.", breaking(c, "0.03"), breaking(c, "0.05"), breaking(c, "0.08"))
			}
			if c.VideoDependence != nil {
				fmt.Fprintf(bw, " Video dependence m = s* - %s accuracy = %s.", mdEscape(c.VideoDependenceReader), signedPct(*c.VideoDependence))
			}
			if c.Residual != nil {
				fmt.Fprintf(bw, " Residual %s.", signedPct(*c.Residual))
			}
			fmt.Fprintln(bw)
		}
		if len(c.Unavailable) > 0 {
			fmt.Fprintf(bw, "\nNot available: %s.\n", unavailable(c.Unavailable))
		}
		for _, note := range cardNotes(c) {
			fmt.Fprintf(bw, "\n%s\n", mdEscape(note))
		}
		if c.ALC != nil {
			fmt.Fprintf(bw, "\nStrongest pool attacker %s: area under the learning curve (ALC) %.3f; accuracy per tenth of the order: %s.\n", mdEscape(c.ALCAttacker), *c.ALC, curve(c.LearningCurve))
		}
		if len(c.DataQuality) > 0 {
			fmt.Fprintf(bw, "\nData quality: %s.\n", quality(c.DataQuality))
		}
		if c.NearDuplicateShare != nil {
			fmt.Fprintf(bw, "\nNear-duplicate questions: %s of items have one in the benchmark", pct(*c.NearDuplicateShare))
			if c.DistinctClusters != nil {
				fmt.Fprintf(bw, " (%d distinct clusters)", *c.DistinctClusters)
			}
			fmt.Fprintf(bw, "; %s items have one in another benchmark", optInt(c.CrossBenchmarkDuplicates))
			if len(c.CrossBenchmarkFlows) > 0 {
				fmt.Fprintf(bw, " (%s)", flows(c.CrossBenchmarkFlows, "pairs"))
			}
			if c.SharedVideoItems != nil {
				fmt.Fprintf(bw, "; %d items use a video another benchmark uses", *c.SharedVideoItems)
				if len(c.SharedVideoFlows) > 0 {
					fmt.Fprintf(bw, " (%s)", flows(c.SharedVideoFlows, "items"))
				}
				if c.SharedVideosBy != "" {
					fmt.Fprintf(bw, ", videos matched by %s", c.SharedVideosBy)
				}
			}
			if c.UnconfirmedDuplicates != nil {
				fmt.Fprintf(bw, "; confirmation by a second model removed %d pairs", *c.UnconfirmedDuplicates)
			}
			fmt.Fprintf(bw, ".\n")
		}
	}
	return bw.Flush()
}

// levelsRun lists the levels any card has a result for, lowest first.
func levelsRun(cards []metrics.Card) []harness.Level {
	var out []harness.Level
	for _, l := range harness.Levels() {
		for _, c := range cards {
			if c.Levels.At(l) != nil {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

func refCell(c metrics.Card) string {
	s := optPct(c.ReferenceAccuracy)
	if c.ReferencePartial {
		s += " (partial)"
	}
	return s
}

// unavailable lists the figures a card leaves null by the reason for each,
// one reason once: "reference accuracy, breaking level, video dependence
// and residual: each needs a reference model's answers (--reference)".
func unavailable(m map[string]string) string {
	byWhy := map[string][]string{}
	for k, why := range m {
		byWhy[why] = append(byWhy[why], strings.ReplaceAll(k, "_", " "))
	}
	whys := make([]string, 0, len(byWhy))
	for why := range byWhy {
		whys = append(whys, why)
	}
	slices.Sort(whys)
	parts := make([]string, len(whys))
	for i, why := range whys {
		fields := byWhy[why]
		slices.Sort(fields)
		if len(fields) == 1 {
			parts[i] = fmt.Sprintf("%s, which %s", fields[0], why)
			continue
		}
		parts[i] = fmt.Sprintf("%s and %s: each %s", strings.Join(fields[:len(fields)-1], ", "), fields[len(fields)-1], why)
	}
	return strings.Join(parts, "; ")
}

func quality(m map[string]int) string {
	var parts []string
	for _, n := range harness.QualityNames() {
		if c, ok := m[n]; ok {
			parts = append(parts, fmt.Sprintf("%d items with %s", c, strings.ReplaceAll(n, "_", " ")))
		}
	}
	return strings.Join(parts, ", ")
}

// WriteSummary writes the table vidscreen audit prints at the end: one line
// per benchmark, aligned for a terminal.
func WriteSummary(w io.Writer, cards []metrics.Card) error {
	if err := WriteSummaryWidth(w, cards, SummaryWidth); err != nil {
		return err
	}
	return WriteShortfalls(w, cards, SummaryWidth)
}

// WriteShortfalls writes, below the summary's table, a warning per
// benchmark more than 5% of whose videos failed and the median order
// retention (issue 20, points 7 and 11), then a line per benchmark whose
// card has issue 32's fields (summaryNote), each wrapped to width columns
// as the table is fitted to them.
func WriteShortfalls(w io.Writer, cards []metrics.Card, width int) error {
	lines := make([]string, 0, 4)
	for _, line := range FailureWarnings(cards) {
		lines = append(lines, "warning: "+line)
	}
	lines = append(lines, RetentionSummary(cards))
	for _, c := range cards {
		if note := summaryNote(c); note != "" {
			lines = append(lines, note)
		}
	}
	lines = append(lines, notRunLines(cards)...)
	for _, line := range lines {
		for _, l := range Wrap(line, width) {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// Wrap breaks text into lines of at most width runes at spaces (a longer
// word stays whole on its own line).
func Wrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	n := 0 // runes in cur
	for _, word := range strings.Fields(text) {
		k := utf8.RuneCountInString(word)
		if n > 0 && n+1+k > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(word)
		n += k
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// SummaryWidth is the width WriteSummary fits its table to: a terminal of
// 100 columns shows it unwrapped.
const SummaryWidth = 100

// WriteSummaryWidth is WriteSummary fitting the table to width columns:
// when the whole table is wider, it leaves out the columns a reader can
// best spare (near-duplicate share, then the strongest attacker, then the
// breaking level and s*), in that order, until it fits, and says which
// are left out (cards.md has them all). The benchmark, n, chance and eps
// columns always stay.
func WriteSummaryWidth(w io.Writer, cards []metrics.Card, width int) error {
	ran := levelsRun(cards)
	corrected := false // some cell is "ns*": the footnote says what it means
	type column struct {
		head  string
		cell  func(c metrics.Card) string
		spare int // 0: always kept; otherwise the order it is left out in
	}
	cols := []column{
		{"benchmark", func(c metrics.Card) string { return c.Benchmark }, 0},
		{"n", func(c metrics.Card) string { return fmt.Sprint(c.N) }, 0},
		{"chance", chanceCell, 0},
	}
	for _, l := range ran {
		cols = append(cols, column{"eps " + l.String(), func(c metrics.Card) string {
			cell, star := summaryLevelCell(c, l)
			corrected = corrected || star
			return cell
		}, 0})
	}
	cols = append(cols,
		column{"strongest attacker", func(c metrics.Card) string {
			if _, l, ok := c.Levels.Top(); ok {
				return l.Attacker
			}
			return "-"
		}, 2},
		column{"s*", refCell, 4},
		column{"breaks@0.05", func(c metrics.Card) string { return breaking(c, "0.05") }, 3},
		column{"near-dup", func(c metrics.Card) string { return optPct(c.NearDuplicateShare) }, 1},
	)
	render := func(cols []column) []byte {
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, col := range cols {
			fmt.Fprintf(tw, "%s\t", col.head)
		}
		fmt.Fprintln(tw)
		for _, c := range cards {
			for _, col := range cols {
				fmt.Fprintf(tw, "%s\t", col.cell(c))
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		return b.Bytes()
	}
	var left []string
	out := render(cols)
	for spare := 1; widest(out) > width && spare <= 4; spare++ {
		kept := cols[:0:0]
		for _, col := range cols {
			if col.spare == spare {
				left = append(left, col.head)
			} else {
				kept = append(kept, col)
			}
		}
		cols = kept
		out = render(cols)
	}
	if _, err := w.Write(out); err != nil {
		return err
	}
	if corrected {
		fmt.Fprintf(w, "ns*: %s (Holm)\n", notSignificantAfterCorrection)
	}
	if len(left) > 0 {
		fmt.Fprintf(w, "(left out to fit %d columns: %s; cards.md has every column)\n", width, strings.Join(left, ", "))
	}
	if ev := truth.EvaluateCards(cards); ev != nil {
		fmt.Fprintf(w, "\naudit of the auditor (world-* benchmarks, docs/world.md):\n")
		return ev.WriteText(w)
	}
	return nil
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func signedPct(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }

func optPct(x *float64) string {
	if x == nil {
		return "-"
	}
	return pct(*x)
}

func optInt(x *int) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprint(*x)
}

func levelCell(l *metrics.LevelResult) string {
	if l == nil {
		return "-"
	}
	s := signedPct(l.Eps)
	switch {
	case l.SignificantUncorrected && !l.Significant:
		s += " " + notSignificantAfterCorrection
	case !l.Significant:
		s += " ns"
	}
	return s
}

func breaking(c metrics.Card, delta string) string {
	if c.BreakingLevel == nil {
		if c.ReferenceAccuracy != nil && c.Unavailable["breaking_level"] != "" {
			// The reference scored fewer items than a level needs
			// (metrics.MinReferenceItems); "Not available" says how many.
			return fmt.Sprintf("no level (n < %d)", metrics.MinReferenceItems)
		}
		return "-"
	}
	if l := c.BreakingLevel[delta]; l != nil {
		return *l
	}
	if top, _, ok := c.Levels.Top(); ok {
		return "none up to " + top.String()
	}
	return "no level ran"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func curve(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = pct(x)
	}
	return strings.Join(parts, ", ")
}

func flows(fs []metrics.Flow, unit string) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%d %s with %s", f.Count, unit, mdEscape(f.Benchmark))
	}
	return strings.Join(parts, ", ")
}

// mdEscape keeps a name from breaking a Markdown table.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;").Replace(s)
}

// levelList names the levels a card's attackers ran at.
func levelList(c metrics.Card) string {
	var names []string
	for _, l := range c.LevelsRun {
		names = append(names, l.String())
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// failureList writes failure counts as "2 missing, 1 corrupt", by reason.
func failureList(f map[string]int) string {
	reasons := make([]string, 0, len(f))
	for r := range f {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	var parts []string
	for _, r := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", f[r], r))
	}
	return strings.Join(parts, ", ")
}

// widest is the width of the longest line of b, in runes.
func widest(b []byte) int {
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		n = max(n, len([]rune(line)))
	}
	return n
}
