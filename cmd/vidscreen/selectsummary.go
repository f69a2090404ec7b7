package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vidscreen/vidscreen/harness/selection"
)

// exitGateNotClean is select's exit status when the red-team gate could not
// clean the release (a level still significant after the rounds, or a
// budget larger than what the gate kept) and --accept-residual was not
// given. The release is written all the same, so that its reports can be
// read.
const exitGateNotClean = 3

// statusError is an error with its own exit status: run prints it and exits
// with code.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }

// printSelectSummary writes what select did: the summary as indented JSON
// with asJSON, else a short table (release, items, the gate's rounds, the
// residual per level) that fits a terminal (issue 33.1.8).
func printSelectSummary(w io.Writer, sum *selection.Summary, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "release\t%s\n", sum.Release)
	fmt.Fprintf(tw, "written to\t%s\n", sum.Out)
	items := fmt.Sprintf("%d of a pool of %d", sum.Items, sum.Pool)
	if sum.Budget > 0 {
		items = fmt.Sprintf("%d for a budget of %d, from a pool of %d", sum.Items, sum.Budget, sum.Pool)
	}
	fmt.Fprintf(tw, "items\t%s\n", items)
	fmt.Fprintf(tw, "cap relaxations\t%d\n", sum.Relaxations)
	if sum.Shortfall != "" {
		fmt.Fprintf(tw, "short of the request\t%s\n", sum.Shortfall)
	}
	for _, e := range []struct{ name, path string }{{"lmms-eval task", sum.LMMSEval}, {"VLMEvalKit table", sum.VLMEvalKit}} {
		if e.path != "" {
			fmt.Fprintf(tw, "%s\t%s\n", e.name, e.path)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "gate round\tselected\tsolved\tdropped\t\n")
	for _, r := range sum.Rounds {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t\n", r.Round, r.Selected, r.Solved, r.Dropped)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "residual level\teps\tattacker\tsignificant\n")
	for _, l := range sum.Residual {
		sig := "no"
		if l.Significant {
			sig = "YES"
		}
		fmt.Fprintf(tw, "%s\t%+.1f%%\t%s\t%s\n", l.Level, 100*l.Eps, l.Attacker, sig)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nreport: %s/report.md (report.html); --json prints this summary as JSON\n", strings.TrimSuffix(sum.Out, "/"))
	return nil
}

// gateVerdict says on stderr what the gate could not do and returns the
// exit-3 error unless accept.
func gateVerdict(stderr io.Writer, sum *selection.Summary, accept bool) error {
	if len(sum.GateProblems) == 0 {
		return nil
	}
	for _, p := range sum.GateProblems {
		fmt.Fprintf(stderr, "vidscreen select: %s\n", p)
	}
	if accept {
		fmt.Fprintf(stderr, "vidscreen select: --accept-residual: released as it is; its reports say the same\n")
		return nil
	}
	return &statusError{code: exitGateNotClean, msg: fmt.Sprintf("the gate could not clean the release (exit %d); it is written to %s to read; ask a smaller --budget, more --rounds, or give --accept-residual to release it as it is", exitGateNotClean, sum.Out)}
}
