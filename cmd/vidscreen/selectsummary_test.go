package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/selection"
)

// TestSelectSummaryAndGateVerdict: select prints a short table (the JSON
// with --json); a budget larger than the gate can keep says so on stderr
// and exits 3 unless --accept-residual, the release written either way.
func TestSelectSummaryAndGateVerdict(t *testing.T) {
	t.Parallel()
	_, run := demoAudit(t)
	dir := t.TempDir()
	code, stdout, stderr := runCmd("select", run, "--out", filepath.Join(dir, "small"), "--budget", "12", "--seed", "5")
	if code != 0 {
		t.Fatalf("select --budget 12: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"release ", "items            12 for a budget of 12", "gate round", "residual level", "report: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if lines := strings.Count(stdout, "\n"); lines > 25 {
		t.Errorf("summary of %d lines:\n%s", lines, stdout)
	}
	// Far more than the pool under its caps and the gate can keep.
	big := filepath.Join(dir, "big")
	code, stdout, stderr = runCmd("select", run, "--out", big, "--budget", "5000", "--seed", "5", "--json")
	if code != exitGateNotClean || !strings.Contains(stderr, "the budget 5000 exceeds what the gate can keep") || !strings.Contains(stderr, "--accept-residual") {
		t.Errorf("--budget 5000: exit %d, stderr %q; want exit 3 saying the budget exceeds what the gate keeps", code, stderr)
	}
	var sum selection.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json summary %q: %v", stdout, err)
	}
	if sum.Budget != 5000 || sum.Items >= 5000 || len(sum.GateProblems) == 0 {
		t.Errorf("summary %+v", sum)
	}
	code, _, stderr = runCmd("select", run, "--out", filepath.Join(dir, "accepted"), "--budget", "5000", "--seed", "5", "--accept-residual")
	if code != 0 || !strings.Contains(stderr, "exceeds what the gate can keep") {
		t.Errorf("--accept-residual: exit %d, stderr %q; want exit 0, the problem still said", code, stderr)
	}
}
