package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// WriteMarkdown writes cards.md: an overview table with one row per
// benchmark, then per benchmark its levels, attackers, reference figures and
// duplicates.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Audit report cards\n\n")
	fmt.Fprintf(bw, "eps is the exploitability of a level: the largest margin over chance of any attacker at or below it (Video-Index, section 2). ")
	fmt.Fprintf(bw, "A margin below 2.326 sqrt(c(1-c)/n) is not significant (marked `ns`).\n\n")
	fmt.Fprintf(bw, "| benchmark | n | chance | eps option | eps text | eps pool | s* | breaks at (delta 0.05) | near-dup share | cross-benchmark dups |\n")
	fmt.Fprintf(bw, "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n")
	for _, c := range r.Cards {
		fmt.Fprintf(bw, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(c.Benchmark), c.N, pct(c.Chance),
			levelCell(c.Levels.Option), levelCell(c.Levels.Text), levelCell(c.Levels.Pool),
			optPct(c.ReferenceAccuracy), breaking(c, "0.05"), optPct(c.NearDuplicateShare), optInt(c.CrossBenchmarkDuplicates))
	}
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
			verdict := f.Verdict
			if f.Guessed {
				verdict += " (the attacker only guessed)"
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %d | %s |\n", f.Family, levelName(f.Expected), levelName(f.Caught), by, auditorAccuracy(f), pct(f.Chance), f.N, verdict)
		}
	}
	for _, c := range r.Cards {
		fmt.Fprintf(bw, "\n## %s\n\n", mdEscape(c.Benchmark))
		fmt.Fprintf(bw, "%d items, chance %s, significance threshold %s.\n\n", c.N, pct(c.Chance), pct(c.Significance))
		fmt.Fprintf(bw, "| attacker | level | accuracy | 95%% interval | margin | significant | n | orders | abstained | solved |\n")
		fmt.Fprintf(bw, "|---|---|---:|---|---:|---|---:|---:|---:|---:|\n")
		for _, a := range c.Attackers {
			fmt.Fprintf(bw, "| %s | %s | %s | %s to %s | %s | %s | %d | %d | %s | %s |\n", mdEscape(a.Name), a.Level, pct(a.Accuracy),
				pct(a.CILow), pct(a.CIHigh), signedPct(a.Margin), yesNo(a.Significant), a.N, a.Orders, pct(a.AbstainShare), pct(a.SolvedShare))
		}
		if c.ReferenceAccuracy != nil {
			fmt.Fprintf(bw, "\nReference accuracy s* = %s over %d items", pct(*c.ReferenceAccuracy), c.ReferenceN)
			if c.WeightedReferenceAccuracy != nil {
				fmt.Fprintf(bw, " (%s weighted by inverse near-duplicate cluster size)", pct(*c.WeightedReferenceAccuracy))
			}
			fmt.Fprintf(bw, ". Breaking level: %s at delta 0.03, %s at 0.05, %s at 0.08.", breaking(c, "0.03"), breaking(c, "0.05"), breaking(c, "0.08"))
			if c.VideoDependence != nil {
				fmt.Fprintf(bw, " Video dependence %s.", signedPct(*c.VideoDependence))
			}
			if c.Residual != nil {
				fmt.Fprintf(bw, " Residual %s.", signedPct(*c.Residual))
			}
			fmt.Fprintln(bw)
		} else {
			fmt.Fprintf(bw, "\nNo reference answers: s*, the breaking level, video dependence and residual need `--reference`.\n")
		}
		if c.ALC != nil {
			fmt.Fprintf(bw, "\nPool regression: area under the learning curve (ALC) %.3f; accuracy per tenth of the order: %s.\n", *c.ALC, curve(c.LearningCurve))
		}
		if c.NearDuplicateShare != nil {
			fmt.Fprintf(bw, "\nNear-duplicates: %s of items have one in the benchmark", pct(*c.NearDuplicateShare))
			if c.DistinctClusters != nil {
				fmt.Fprintf(bw, " (%d distinct clusters)", *c.DistinctClusters)
			}
			fmt.Fprintf(bw, "; %s items have one in another benchmark", optInt(c.CrossBenchmarkDuplicates))
			if len(c.CrossBenchmarkFlows) > 0 {
				fmt.Fprintf(bw, " (%s)", flows(c.CrossBenchmarkFlows, "pairs"))
			}
			if c.SharedVideos != nil {
				fmt.Fprintf(bw, "; %d videos shared with other benchmarks", *c.SharedVideos)
				if len(c.SharedVideoFlows) > 0 {
					fmt.Fprintf(bw, " (%s)", flows(c.SharedVideoFlows, "videos"))
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

// WriteSummary writes the table vidscreen audit prints at the end: one line
// per benchmark, aligned for a terminal.
func WriteSummary(w io.Writer, cards []metrics.Card) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "benchmark\tn\tchance\teps option\teps text\teps pool\tstrongest attacker\ts*\tbreaks@0.05\tnear-dup\t\n")
	for _, c := range cards {
		best := "-"
		if l := topLevel(c.Levels); l != nil {
			best = l.Attacker
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Benchmark, c.N, pct(c.Chance),
			levelCell(c.Levels.Option), levelCell(c.Levels.Text), levelCell(c.Levels.Pool), best,
			optPct(c.ReferenceAccuracy), breaking(c, "0.05"), optPct(c.NearDuplicateShare))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if ev := truth.EvaluateCards(cards); ev != nil {
		fmt.Fprintf(w, "\naudit of the auditor (world-* benchmarks, docs/world.md):\n")
		return ev.WriteText(w)
	}
	return nil
}

func topLevel(l metrics.Levels) *metrics.LevelResult {
	for _, r := range []*metrics.LevelResult{l.Pool, l.Text, l.Option} {
		if r != nil {
			return r
		}
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
	if !l.Significant {
		s += " ns"
	}
	return s
}

func breaking(c metrics.Card, delta string) string {
	if c.BreakingLevel == nil {
		return "-"
	}
	if l := c.BreakingLevel[delta]; l != nil {
		return *l
	}
	return "none"
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
