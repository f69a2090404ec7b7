package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditAcceptsRealDataQuirks: padded, repeated, letter-prefixed and meta
// options no longer stop an audit (an empty option used to exit 2); the
// card counts them. A structural error still exits 2.
func TestAuditAcceptsRealDataQuirks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	item := func(id string, opts ...string) string {
		b, _ := json.Marshal(map[string]any{"id": id, "benchmark": "Long", "video": "v" + id, "question": "what happens in clip " + id + "?", "options": opts, "answer": 0})
		return string(b) + "\n"
	}
	lines := item("1", "a dog runs", "a cat sleeps", "", "") +
		item("2", "A. red", "B. blue", "C. green") +
		item("3", "the table", "The table.", "a chair") +
		item("4", "running", "walking", "none of the above") +
		item("5", "yes", "no")
	items := filepath.Join(dir, "items.jsonl")
	os.WriteFile(items, []byte(lines), 0o644)
	out := filepath.Join(dir, "run")
	code, _, stderr := runAudit("--items", items, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	var file struct {
		Cards []struct {
			DataQuality map[string]int `json:"data_quality"`
		} `json:"cards"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	for _, f := range harness.QualityNames() {
		if file.Cards[0].DataQuality[f] != 1 {
			t.Errorf("card counts %d items with %s, want 1 (%v)", file.Cards[0].DataQuality[f], f, file.Cards[0].DataQuality)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(item("1", "only one")), 0o644)
	code, _, stderr = runAudit("--items", bad, "--out", filepath.Join(dir, "bad"))
	if code != 2 || !strings.Contains(stderr, "field options") {
		t.Errorf("one option: exit %d, %q; want 2 naming the field", code, stderr)
	}
}

func TestVersionPrintsVersionAndCommit(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCmd("version")
	if code != 0 || !strings.HasPrefix(stdout, "vidscreen "+harness.Version+" (commit ") {
		t.Errorf("exit %d, %q", code, stdout)
	}
	if code, _, _ := runCmd("version", "extra"); code != 2 {
		t.Errorf("version with an argument: exit %d, want 2", code)
	}
}
