package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/release/export"
	"github.com/vidscreen/vidscreen/harness/selection"
)

// TestSelectExports: select writes the release as an lmms-eval task
// directory and a VLMEvalKit table, byte for byte the same for the same
// run and flags, and each imports back as the released items.
func TestSelectExports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items, run := demoAudit(t)
	sel := func(name string, extra ...string) (selection.Summary, string, string) {
		t.Helper()
		lm, tsv := filepath.Join(dir, name+"-lmms"), filepath.Join(dir, name+".tsv")
		args := append([]string{"select", run, "--out", filepath.Join(dir, name), "--budget", "24", "--seed", "5", "--json",
			"--export-lmms-eval", lm, "--export-vlmevalkit", tsv, "--items", items}, extra...)
		code, stdout, stderr := runCmd(args...)
		if code != 0 {
			t.Fatalf("select: exit %d: %s", code, stderr)
		}
		var sum selection.Summary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("summary %q: %v", stdout, err)
		}
		if sum.LMMSEval != lm || sum.VLMEvalKit != tsv {
			t.Errorf("summary names the exports %q, %q", sum.LMMSEval, sum.VLMEvalKit)
		}
		return sum, lm, tsv
	}
	one, lm1, tsv1 := sel("a")
	two, lm2, tsv2 := sel("b", "--workers", "2")
	if one.Release != two.Release {
		t.Fatalf("releases %s and %s", one.Release, two.Release)
	}
	same := func(a, b string) {
		t.Helper()
		da, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		db, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(da, db) {
			t.Errorf("%s and %s differ", a, b)
		}
	}
	same(tsv1, tsv2)
	entries, err := os.ReadDir(lm1)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 11 {
		t.Errorf("%d files in the task directory, want 11", len(entries))
	}
	for _, e := range entries {
		same(filepath.Join(lm1, e.Name()), filepath.Join(lm2, e.Name()))
	}
	prefix := export.TaskPrefix(one.Release)
	if _, err := os.Stat(filepath.Join(lm1, prefix+"_blind.yaml")); err != nil {
		t.Errorf("no blind task: %v", err)
	}

	released, err := harness.ReadFiles(context.Background(), []string{filepath.Join(dir, "a", release.ItemsFile)}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// VLMEvalKit's table back through vidscreen import.
	back := filepath.Join(dir, "back-vlmevalkit.jsonl")
	if code, _, stderr := runCmd("import", "vlmevalkit", tsv1, "--out", back, "--benchmark", one.Release); code != 0 {
		t.Fatalf("import vlmevalkit: exit %d: %s", code, stderr)
	}
	sameItems(t, "vlmevalkit", released, back)
	// The lmms-eval dataset back through vidscreen import, named after the
	// release it holds, with group, clip bounds and meta too; auto finds
	// its format.
	for _, format := range []string{"lmms-eval-task", "auto"} {
		back = filepath.Join(dir, "back-"+format+".jsonl")
		if code, _, stderr := runCmd("import", format, filepath.Join(lm1, export.DatasetFile), "--out", back); code != 0 {
			t.Fatalf("import %s: exit %d: %s", format, code, stderr)
		}
		got := sameItems(t, format, released, back)
		for i, w := range released {
			g := got[i]
			if g.Group != w.Group || !reflect.DeepEqual(g.Start, w.Start) || !reflect.DeepEqual(g.End, w.End) || !sameJSON(g.Meta, w.Meta) {
				t.Errorf("%s: item %s: group %q, clip %v-%v, meta %s; want %q, %v-%v, %s", format, w.ID, g.Group, g.Start, g.End, g.Meta, w.Group, w.Start, w.End, w.Meta)
			}
		}
	}
}

// TestSelectExportSamplesImportBack: the samples lmms-eval logs for the
// exported video task (v0.4 and after: no doc; the prompt as input and
// process_results' record per metric) import back through vidscreen import
// lmms-eval as the released items and the replies as the task read them.
func TestSelectExportSamplesImportBack(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	subset := demoSubset(t, 40)
	if code, _, stderr := runAudit("--items", subset, "--out", run); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	lm := filepath.Join(dir, "lmms")
	code, stdout, stderr := runCmd("select", run, "--out", filepath.Join(dir, "rel"), "--budget", "12", "--json", "--export-lmms-eval", lm, "--items", subset)
	if code != 0 {
		t.Fatalf("select: exit %d: %s", code, stderr)
	}
	var sum selection.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	task := export.TaskPrefix(sum.Release) + "_video"
	samples := filepath.Join(dir, "20260101_120000_samples_"+task+".jsonl")
	// Right on even documents, an unreadable reply on odd ones.
	script := `import json, sys
sys.path.insert(0, sys.argv[1])
import utils
kw = {"intro": "You are given a video.", "post_prompt": sys.argv[3]}
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for i, line in enumerate(open(sys.argv[1] + "/dataset.jsonl", encoding="utf-8")):
        doc = json.loads(line)
        reply = utils.doc_to_target(doc) if i % 2 == 0 else "!!!!"
        rec = {"doc_id": i, "target": utils.doc_to_target(doc), "filtered_resps": [reply], "doc_hash": "h%d" % i,
               "input": utils.doc_to_text(doc, kw)}
        rec.update(utils.process_results(doc, [reply]))
        out.write(json.dumps(rec) + "\n")
`
	cmd := exec.Command(py, "-B", "-c", script, lm, samples, export.PostPrompt)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	back := filepath.Join(dir, "back.jsonl")
	if code, _, stderr := runCmd("import", "lmms-eval", samples, "--out", back, "--benchmark", sum.Release); code != 0 {
		t.Fatalf("import lmms-eval: exit %d: %s", code, stderr)
	}
	released, err := harness.ReadFiles(context.Background(), []string{filepath.Join(dir, "rel", release.ItemsFile)}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameItems(t, "lmms-eval samples", released, back)
	preds, err := os.ReadFile(strings.TrimSuffix(back, ".jsonl") + ".predictions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(preds)), "\n")
	if len(lines) != len(released) {
		t.Fatalf("%d replies back, want %d", len(lines), len(released))
	}
	for i, l := range lines {
		var p struct {
			ID   string `json:"id"`
			Pred any    `json:"pred"`
		}
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		want := any("")
		if i%2 == 0 {
			want = string(rune('A' + released[i].Answer))
		}
		if p.ID != released[i].ID || p.Pred != want {
			t.Errorf("reply %d: %s %v, want %s %v", i, p.ID, p.Pred, released[i].ID, want)
		}
	}
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

// sameItems compares the items of file with want on every field of the
// item schema that the import writes.
func sameItems(t *testing.T, format string, want []*harness.Item, file string) []*harness.Item {
	t.Helper()
	got, err := harness.ReadFiles(context.Background(), []string{file}, harness.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d items back, want %d", format, len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		dur := func(p *float64) any {
			if p == nil {
				return nil
			}
			return *p
		}
		if g.ID != w.ID || g.Benchmark != w.Benchmark || g.Video != w.Video || g.Question != w.Question ||
			!slices.Equal(g.Options, w.Options) || g.Answer != w.Answer || g.Task != w.Task || dur(g.Duration) != dur(w.Duration) {
			t.Errorf("%s: item %d back as\n%+v\nwant\n%+v", format, i, g, w)
		}
	}
	return got
}

// TestSelectExportRefusals: a bad export is refused before anything is
// written, with exit 2.
func TestSelectExportRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	subset := demoSubset(t, 30)
	if code, _, stderr := runAudit("--items", subset, "--out", run); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	stale := filepath.Join(dir, "stale")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "vidscreen_ffffffffffffffff.yaml"), []byte("group: x\ntask: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"not a tsv", []string{"--export-vlmevalkit", filepath.Join(dir, "x.csv"), "--items", subset}, "want a .tsv file"},
		{"another export's tasks", []string{"--export-lmms-eval", stale, "--items", subset}, "vidscreen_ffffffffffffffff.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			code, _, stderr := runCmd(append([]string{"select", run, "--out", out, "--budget", "10"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s written although the export was refused", out)
			}
		})
	}
}
