package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/selection"
)

// TestSelectRerunsTheVLMOnTheReleasedOrder audits a generated world's videos at
// all five levels with the models `models init` writes, then selects from it:
// with --videos and --models the red team asks the run's VLM again, on the
// selection's 32 frames in order with the options as released, so
// full-video-reader re-ran (every selected item scored), and captions-reader
// with the run's captioner and lm_reader, and retrieval-reader (which learns
// from its pool) with that lm_reader, and the report and lockfile say so.
// With --models alone, select takes the items and video root from the run
// and releases the same items; with --carry-readers the video readers'
// verdicts are carried over instead.
func TestSelectRerunsTheModelReadersOnTheReleasedOrder(t *testing.T) {
	t.Parallel()
	items, root, _ := worldFixture(t)
	dir := t.TempDir()
	// The world's own models have no readers; those of `models init` have
	// every role, vlm_reader and screen_reader among them.
	modelsDir := initModelsDir(t)
	run := filepath.Join(dir, "run")
	if code, _, stderr := runAudit("--items", items, "--videos", root, "--models", modelsDir, "--out", run, "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	var stderr string
	selectRun := func(out string, args ...string) (release.Lockfile, string) {
		t.Helper()
		var code int
		code, _, stderr = runCmd(append([]string{"select", run, "--out", out, "--budget", "8", "--seed", "4", "--rounds", "1", "--accept-residual"}, args...)...)
		if code != 0 {
			t.Fatalf("select %v: exit %d: %s", args, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, release.LockfileFile))
		if err != nil {
			t.Fatal(err)
		}
		var lock release.Lockfile
		if err := json.Unmarshal(b, &lock); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(out, release.ReportMarkdown))
		if err != nil {
			t.Fatal(err)
		}
		return lock, string(md)
	}
	lock, md := selectRun(filepath.Join(dir, "models"), "--items", items, "--videos", root, "--models", modelsDir)
	for _, name := range []string{selection.FullVideoReader, selection.CaptionsReader, selection.RetrievalReader} {
		if !slices.Contains(lock.RedTeam.Rerun, name) || slices.Contains(lock.RedTeam.Carried, name) {
			t.Errorf("with --videos and --models the lockfile has re-run %v, carried over %v: want %s re-run", lock.RedTeam.Rerun, lock.RedTeam.Carried, name)
		}
	}
	rerun := ""
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "Re-ran on the released option order:") {
			rerun = l
		}
	}
	for _, name := range []string{selection.FullVideoReader, selection.CaptionsReader} {
		if !strings.Contains(rerun, name) {
			t.Errorf("the report's re-run line %q does not name %s", rerun, name)
		}
		// The reader answered every released item: its row counts each of
		// them scored.
		row := ""
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "| "+name+" |") {
				row = l
			}
		}
		if f := strings.Split(row, "|"); len(f) < 5 || strings.TrimSpace(f[3]) != "yes" || strings.TrimSpace(f[4]) != fmt.Sprint(len(lock.Items)) {
			t.Errorf("report row %q: want re-ran, %d scored", row, len(lock.Items))
		}
	}
	// --models alone: the item files and video root come from the run's
	// run.json (issue 33 §1.5), stderr says so, and the model readers
	// re-run as with the flags: the same release.
	taken, _ := selectRun(filepath.Join(dir, "taken"), "--models", modelsDir)
	if taken.Release != lock.Release {
		t.Errorf("--models alone released %s, --items --videos --models %s", taken.Release, lock.Release)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--items from the run: " + items, "--videos from the run: " + abs} {
		if !strings.Contains(stderr, want) {
			t.Errorf("select --models: stderr %q does not say %q", stderr, want)
		}
	}
	// --models --carry-readers: text_embed, and lm_reader for the learning
	// retrieval-reader, which needs no video; the video readers' verdicts
	// are carried over, and no video root is taken.
	carried, _ := selectRun(filepath.Join(dir, "carried"), "--models", modelsDir, "--carry-readers")
	if !slices.Contains(carried.RedTeam.Rerun, selection.RetrievalReader) {
		t.Errorf("with --carry-readers the lockfile has re-run %v: want %s re-run", carried.RedTeam.Rerun, selection.RetrievalReader)
	}
	for _, name := range []string{selection.FullVideoReader, selection.CaptionsReader} {
		if slices.Contains(carried.RedTeam.Rerun, name) || !slices.Contains(carried.RedTeam.Carried, name) {
			t.Errorf("with --carry-readers the lockfile has re-run %v, carried over %v: want %s carried over", carried.RedTeam.Rerun, carried.RedTeam.Carried, name)
		}
	}
	if strings.Contains(stderr, "--videos from the run") {
		t.Errorf("select --carry-readers took the run's video root: %q", stderr)
	}
}
