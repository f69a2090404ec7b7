package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/completion"
)

// TestSelectRefusesAStaleScreen: a screen records the audit it read (the
// completion record's hash); after the audit changed (extended: 22 items
// screened, 39 audited, and the release drew from the 22), select refuses
// the screen (issue 33 §2.5).
func TestSelectRefusesAStaleScreen(t *testing.T) {
	t.Parallel()
	_, src := demoAudit(t)
	run := filepath.Join(t.TempDir(), "run")
	copyTree(t, src, run)
	if code, _, stderr := runCmd("screen", run); code != 0 {
		t.Fatalf("screen: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(run, "screen", "screen.json"))
	if err != nil || !strings.Contains(string(b), `"audit": "sha256:`) {
		t.Fatalf("screen.json records no audit: %v", err)
	}
	out := t.TempDir()
	if code, _, stderr := runCmd("select", run, "--out", filepath.Join(out, "fresh"), "--budget", "12"); code != 0 {
		t.Fatalf("select on a fresh screen: exit %d: %s", code, stderr)
	}
	// The audit finishes again (as an extended audit does): its
	// completion record, and so its hash, changes.
	rec, err := completion.Check(run)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range rec.Outputs {
		names = append(names, o.Name)
	}
	if err := completion.Write(run, "0.0.0-extended", names); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("select", run, "--out", filepath.Join(out, "stale"), "--budget", "12")
	if code != 2 || !strings.Contains(stderr, "screened another audit than the one in") || !strings.Contains(stderr, "rerun vidscreen screen") {
		t.Errorf("select on a stale screen: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "stale")); err == nil {
		t.Error("a refused select wrote its release")
	}
	// Screened again, the screen is this audit's; the run, finished by
	// another version, is said to be so (issue 33 §2.7).
	if code, _, stderr := runCmd("screen", run); code != 0 {
		t.Fatalf("screen: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCmd("select", run, "--out", filepath.Join(out, "again"), "--budget", "12")
	if code != 0 || !strings.Contains(stderr, "was audited by vidscreen 0.0.0-extended, this is") {
		t.Errorf("select after screening again: exit %d: %s", code, stderr)
	}
}
