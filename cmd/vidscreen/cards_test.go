package main

import (
	"encoding/csv"
	"strings"
	"testing"
)

// cards prints the demo audit's cards in each format, one row per
// benchmark and level that ran, and refuses what is not a finished run.
func TestCardsCommand(t *testing.T) {
	t.Parallel()
	_, run := demoAudit(t)
	code, out, errOut := runCmd("cards", "--format", "csv", run)
	if code != 0 {
		t.Fatalf("cards --format csv: exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v\n%s", err, out)
	}
	// Three benchmarks, each at option, text and pool; VideoHallucer,
	// made only of bare yes/no items, is set aside and has no level.
	if len(recs) != 1+3*3 || recs[0][0] != "benchmark" {
		t.Errorf("%d records (header %q), want 10", len(recs), recs[0])
	}
	code, out, errOut = runCmd("cards", run, "--format", "latex") // flags may follow RUN
	if code != 0 || !strings.Contains(out, `\toprule`) || !strings.Contains(out, `$\varepsilon_{\mathrm{pool}}$`) {
		t.Errorf("cards --format latex: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"cards", "--format", "xlsx", run}, `--format "xlsx": want one of latex, csv, md`},
		{[]string{"cards"}, "want one run directory RUN"},
		{[]string{"cards", t.TempDir()}, "not a run directory"},
	} {
		if code, _, errOut := runCmd(tt.args...); code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want an error with %q", tt.args, code, errOut, tt.want)
		}
	}
}
