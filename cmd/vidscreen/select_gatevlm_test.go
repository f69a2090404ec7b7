package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/selection"
)

// TestSelectGateUsesTheRunsVLM: a run whose funnel's 32-frame steps used a
// screen_reader of their own (Video-Index 5.1: the smaller VLM) is gated
// with the run's vlm_reader at 32 frames (5.2: the larger VLM tests the
// selection), so --models needs no screen_reader and full-video-reader
// re-runs on the released order; a vlm_reader other than the run's is
// refused, exit 2, nothing written.
func TestSelectGateUsesTheRunsVLM(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	b, err := os.ReadFile(filepath.Join(modelsDir, "models.json"))
	if err != nil {
		t.Fatal(err)
	}
	// modelsWith writes a models folder of modelsDir's roles, with role set
	// to spec, linking the model folders.
	modelsWith := func(role string, spec json.RawMessage) string {
		var man map[string]map[string]json.RawMessage
		if err := json.Unmarshal(b, &man); err != nil {
			t.Fatal(err)
		}
		man["roles"][role] = spec
		dir := filepath.Join(t.TempDir(), "models")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(modelsDir)
		for _, e := range entries {
			if e.IsDir() {
				os.Symlink(filepath.Join(modelsDir, e.Name()), filepath.Join(dir, e.Name()))
			}
		}
		out, _ := json.Marshal(man)
		os.WriteFile(filepath.Join(dir, "models.json"), out, 0o644)
		return dir
	}
	var man map[string]map[string]json.RawMessage
	json.Unmarshal(b, &man)
	var vlm map[string]any
	if err := json.Unmarshal(man["roles"]["vlm_reader"], &vlm); err != nil {
		t.Fatal(err)
	}
	// A screen_reader of its own: the same weights with another prompt
	// limit, so its answers are not vlm_reader's.
	vlm["max_length"] = 128
	other, _ := json.Marshal(vlm)
	withScreen := modelsWith("screen_reader", other)
	run := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runAudit("--items", items, "--out", run, "--videos", root, "--models", withScreen, "--levels", "order", "--workers", "1", "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "release")
	code, _, stderr := runCmd("select", run, "--out", out, "--budget", "4", "--seed", "2", "--rounds", "1", "--accept-residual", "--items", items, "--videos", root, "--models", modelsDir)
	if code != 0 {
		t.Fatalf("select with the run's vlm_reader and no screen_reader: exit %d\n%s", code, stderr)
	}
	lb, err := os.ReadFile(filepath.Join(out, release.LockfileFile))
	if err != nil {
		t.Fatal(err)
	}
	var lock release.Lockfile
	if err := json.Unmarshal(lb, &lock); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(lock.RedTeam.Rerun, selection.FullVideoReader) {
		t.Errorf("re-run %v, carried over %v: want %s re-run on the run's vlm_reader", lock.RedTeam.Rerun, lock.RedTeam.Carried, selection.FullVideoReader)
	}
	// Another vlm_reader than the run's is refused.
	out2 := filepath.Join(t.TempDir(), "release")
	if code, _, stderr := runCmd("select", run, "--out", out2, "--budget", "4", "--seed", "2", "--items", items, "--videos", root, "--models", modelsWith("vlm_reader", other)); code != 2 {
		t.Errorf("select with another vlm_reader: exit %d, want 2\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out2, release.LockfileFile)); err == nil {
		t.Error("a refused select wrote a lockfile")
	}
}
