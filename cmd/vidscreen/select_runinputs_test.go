package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	runs "github.com/vidscreen/vidscreen/harness/run"
)

// TestSelectTakesItemsFromTheRun: the audit records its item files' paths
// in run.json, so an export without --items takes them from the run (issue
// 33 §1.5, §2.6) and writes the same files as with --items; an item file
// edited or removed since the audit is refused, naming it and --items.
func TestSelectTakesItemsFromTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	// The demo's items with a video_path in a folder, which only the item
	// files carry (the screen does not): the export must find it.
	subset := withVideoPaths(t, demoSubset(t, 30))
	if code, _, stderr := runAudit("--items", subset, "--out", run); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	exportWith := func(name string, args ...string) (int, string) {
		t.Helper()
		out := filepath.Join(dir, name)
		code, _, stderr := runCmd(append([]string{"select", run, "--out", filepath.Join(out, "rel"), "--budget", "10", "--seed", "2",
			"--export-lmms-eval", filepath.Join(out, "lm"), "--export-vlmevalkit", filepath.Join(out, "vk.tsv")}, args...)...)
		return code, stderr
	}
	if code, stderr := exportWith("given", "--items", subset); code != 0 {
		t.Fatalf("select --items: exit %d: %s", code, stderr)
	}
	code, stderr := exportWith("taken")
	if code != 0 {
		t.Fatalf("select without --items: exit %d: %s", code, stderr)
	}
	if want := "--items from the run: " + subset; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
	for _, f := range []string{"rel/items.jsonl", "rel/lockfile.json", "vk.tsv", "lm/dataset.jsonl"} {
		a, err := os.ReadFile(filepath.Join(dir, "given", f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "taken", f))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between --items and the items taken from the run", f)
		}
		if f == "vk.tsv" && !strings.Contains(string(b), "clips/") {
			t.Errorf("%s names no video file: %.300s", f, b)
		}
	}
	// An item file edited since the audit is refused, with exit 2.
	b, err := os.ReadFile(subset)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(subset, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr = exportWith("edited")
	if code != 2 || !strings.Contains(stderr, subset+" (run.json inputs.items) has changed since the audit") || !strings.Contains(stderr, "pass --items FILE") {
		t.Errorf("edited item file: exit %d, stderr %q: want 2, the file named and --items", code, stderr)
	}
	if err := os.Remove(subset); err != nil {
		t.Fatal(err)
	}
	code, stderr = exportWith("removed")
	if code != 2 || !strings.Contains(stderr, subset+" (run.json inputs.items) cannot be read here") || !strings.Contains(stderr, "pass --items FILE") {
		t.Errorf("removed item file: exit %d, stderr %q: want 2, the file named and --items", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "removed")); !os.IsNotExist(err) {
		t.Errorf("a refused select wrote %s", filepath.Join(dir, "removed"))
	}
}

// withVideoPaths writes the items of file again beside it, each with a
// video_path "clips/<video>.mp4", and returns the new file.
func withVideoPaths(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var it map[string]any
		if err := json.Unmarshal(line, &it); err != nil {
			t.Fatal(err)
		}
		it["video_path"] = "clips/" + it["video"].(string) + ".mp4"
		l, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(l, '\n'))
	}
	p := filepath.Join(filepath.Dir(file), "items-paths.jsonl")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMergeRecordsTheShardsInputs: a merge records in run.json the item
// files its shards audited (their common spec holds them as absolute paths),
// so that select takes them from the merged run as from an unsharded one.
func TestMergeRecordsTheShardsInputs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	subset := withVideoPaths(t, demoSubset(t, 30))
	merged, _, _ := shardAndMerge(t, tmp, 2, "--items", subset)
	in, err := runs.ReadInputs(merged)
	if err != nil {
		t.Fatal(err)
	}
	if in == nil || !slices.Equal(in.Items, []string{subset}) || in.Videos != "" {
		t.Fatalf("merged run.json inputs %+v, want items [%s] and no video root", in, subset)
	}
	code, _, stderr := runCmd("select", merged, "--out", filepath.Join(tmp, "rel"), "--budget", "10", "--export-vlmevalkit", filepath.Join(tmp, "vk.tsv"))
	if code != 0 || !strings.Contains(stderr, "--items from the run: "+subset) {
		t.Fatalf("select of the merged run without --items: exit %d: %s", code, stderr)
	}
}
