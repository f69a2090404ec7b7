package report

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// failureWarnShare is the share of a benchmark's items whose video failed
// above which the summary warns on the terminal and on index.html (issue
// 20, point 11): a few bad files are routine, a twentieth of them is a
// wrong --videos root or a broken copy.
const failureWarnShare = 0.05

// notSignificantAfterCorrection is what the reports write where an
// attacker's exact test passes alone but not after Holm's correction over
// the benchmark's attackers (issue 20, point 4).
const notSignificantAfterCorrection = "not significant after correction"

// diagnosticOnlyCell is the significance cell of a further model of a
// Video-Oasis test (metrics.AttackerResult.DiagnosticOnly): it is in no
// Holm family and no eps.
const diagnosticOnlyCell = "diagnostic only (no eps, no Holm family)"

// significantCell says whether an attacker's margin is significant: "yes"
// after Holm's correction, "not significant after correction" when only its
// own p-value passes, "no" otherwise; a diagnostic-only attacker says so.
func significantCell(a metrics.AttackerResult) string {
	switch {
	case a.DiagnosticOnly:
		return diagnosticOnlyCell
	case a.Significant:
		return "yes"
	case a.SignificantUncorrected:
		return notSignificantAfterCorrection
	}
	return "no"
}

// cardLevelCell is a card's cell for level l: its eps, or "not run" when
// the level was asked for and its attackers answered nothing.
func cardLevelCell(c metrics.Card, l harness.Level) string {
	if r := c.Levels.At(l); r != nil {
		return levelCell(r)
	}
	if _, ok := c.LevelsNotRun[l.String()]; ok {
		return "not run"
	}
	return "-"
}

// summaryLevelCell is cardLevelCell for the terminal's narrow table:
// "ns*" stands for "not significant after correction", which the table's
// footnote spells out (star reports it was used).
func summaryLevelCell(c metrics.Card, l harness.Level) (cell string, star bool) {
	if r := c.Levels.At(l); r != nil && r.SignificantUncorrected && !r.Significant {
		return signedPct(r.Eps) + " ns*", true
	}
	return cardLevelCell(c, l), false
}

// notRunList names the levels of a card that did not run and why:
// "frame (30 videos failed: missing 30), order (...)"; "" when none.
func notRunList(c metrics.Card) string {
	var parts []string
	for _, l := range harness.Levels() {
		if why, ok := c.LevelsNotRun[l.String()]; ok {
			parts = append(parts, fmt.Sprintf("%s (%s)", l, why))
		}
	}
	return strings.Join(parts, ", ")
}

// FailureWarnings returns one line per benchmark more than 5% of whose
// items' videos failed, naming the count and the reasons.
func FailureWarnings(cards []metrics.Card) []string {
	var out []string
	for _, c := range cards {
		videos, server := splitFailures(c.Failures)
		n := 0
		for _, k := range videos {
			n += k
		}
		if c.N > 0 && float64(server) > failureWarnShare*float64(c.N) {
			out = append(out, fmt.Sprintf("%s: a served reader's server failed on %d of %d items (%s) after its retries: run the audit again once it has recovered", c.Benchmark, server, c.N, pct(float64(server)/float64(c.N))))
		}
		if c.N == 0 || float64(n) <= failureWarnShare*float64(c.N) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: the video failed for %d of %d items (%s): %s", c.Benchmark, n, c.N, pct(float64(n)/float64(c.N)), failureList(videos)))
	}
	return out
}

// RetentionSummary is the order retention over the benchmarks (Video-Index
// 3.6: "shuffling retains a median 96%" of the in-order 32-frame accuracy):
// the median of the cards' shuffled and contiguous-tenth retentions, or why
// there is none.
func RetentionSummary(cards []metrics.Card) string {
	var parts []string
	for _, c := range []struct{ name, what string }{{"shuffled", "shuffling the 32 frames"}, {"tenth", "one contiguous tenth"}} {
		if m, n, ok := metrics.MedianRetention(cards, c.name); ok {
			parts = append(parts, fmt.Sprintf("%s retains a median %s of the in-order accuracy over %d %s", c.what, pct(m), n, plural(n, "benchmark")))
		}
	}
	if len(parts) == 0 {
		return "Order retention (Video-Index 3.6): not computed: it needs the order level with a vlm_reader, the reader whose in-order 32 frames are the reference."
	}
	return "Order retention (Video-Index 3.6, vlm_reader on the same items): " + strings.Join(parts, "; ") + "."
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}
