package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// The fixtures are the tools' own layouts, documented in
// harness/predictions/predictions_test.go.
const predictionsTestdata = "../../harness/predictions/testdata"

func TestImport(t *testing.T) {
	tests := []struct {
		tool, file string
		bench      string
		items      int
		preds      bool
		first      string // the first item line
	}{
		{"lmms-eval", "samples_videomme_2024-06-20T10-11-12.123456.jsonl", "videomme", 4, true,
			`{"id":"001-1","benchmark":"videomme","video":"001","question":"When demonstrating the Germany modern Christmas tree is initially decorated with apples, candles and berries, which kind of the decoration has the largest number?","options":["A. Apples.","B. Candles.","C. Berries.","D. The three kinds are of the same number."],"answer":2,"task":"Counting Problem","duration":null}`},
		{"lmms-eval", "samples_nextqa_mc_test_2024-06-20T11-00-00.000001.jsonl", "nextqa_mc_test", 2, true,
			`{"id":"6","benchmark":"nextqa_mc_test","video":"4010069381","question":"how do the two man play the instrument","options":["roll the handle","tap their feet","strum the string","hit with sticks","pat with hand"],"answer":0,"task":"CH","duration":null}`},
		{"vlmevalkit", "MVBench_results.xlsx", "MVBench_results", 4, true,
			`{"id":"0","benchmark":"MVBench_results","video":"166583.webm","question":"What is the action performed by the person in the video?","options":["Not sure","Scattering something down","Piling something up"],"answer":2,"task":"Action Sequence","duration":null}`},
		{"vlmevalkit", "Video-MME_results.tsv", "Video-MME_results", 3, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "items.jsonl")
			code, stdout, stderr := runCmd("import", tt.tool, filepath.Join(predictionsTestdata, tt.file), "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			items, err := harness.ReadFiles(context.Background(), []string{out}, harness.ReadOptions{})
			if err != nil {
				t.Fatalf("the imported items do not read back: %v", err)
			}
			if len(items) != tt.items || items[0].Benchmark != tt.bench {
				t.Errorf("%d items of %q, want %d of %q", len(items), items[0].Benchmark, tt.items, tt.bench)
			}
			b, _ := os.ReadFile(out)
			if first, _, _ := strings.Cut(string(b), "\n"); tt.first != "" && first != tt.first {
				t.Errorf("first line\n%s\nwant\n%s", first, tt.first)
			}
			predPath := strings.TrimSuffix(out, ".jsonl") + ".predictions.jsonl"
			if _, err := os.Stat(predPath); (err == nil) != tt.preds || !strings.Contains(stdout, "written to "+out) {
				t.Errorf("predictions file %s: %v; stdout %q", predPath, err, stdout)
			}
		})
	}
}

// TestImportThenAudit is the README's path: import a benchmark from an
// lmms-eval samples file and audit it with the model's replies as the
// reference.
func TestImportThenAudit(t *testing.T) {
	dir := t.TempDir()
	items := filepath.Join(dir, "videomme.jsonl")
	if code, _, stderr := runCmd("import", "lmms-eval", filepath.Join(predictionsTestdata, "samples_videomme_2024-06-20T10-11-12.123456.jsonl"), "--out", items); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runAudit("--items", items, "--out", filepath.Join(dir, "run"), "--reference", filepath.Join(dir, "videomme.predictions.jsonl"), "--quiet")
	if code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	// The model answered 2 of 4 right (C right, "answer is B" wrong, no
	// option named, B right): s* over the 3 it named is 2/3.
	if !strings.Contains(stdout, "66.7%") || !strings.Contains(stderr, "4 rows, 3 matched (3 by id") || !strings.Contains(stderr, "1 unparsed") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

func TestImportRefuses(t *testing.T) {
	dir := t.TempDir()
	td := func(f string) string { return filepath.Join(predictionsTestdata, f) }
	badAnswer := filepath.Join(dir, "bad.tsv")
	os.WriteFile(badAnswer, []byte("index\tvideo\tquestion\tA\tB\tanswer\n0\tv.mp4\tq?\tx\ty\tZ\n"), 0o644)
	dupID := filepath.Join(dir, "dup.csv")
	os.WriteFile(dupID, []byte("index,video,question,A,B,answer\n0,v.mp4,q?,x,y,A\n0,w.mp4,r?,x,y,B\n"), 0o644)
	oneOption := filepath.Join(dir, "samples_videomme_2024-06-20T10-11-12.123456.jsonl")
	os.WriteFile(oneOption, []byte(`{"doc_id": 0, "doc": {"video_id": "001", "question_id": "001-1", "question": "q?", "options": ["A. Apples."], "answer": "A"}, "target": "A", "resps": [["A"]], "filtered_resps": ["A"]}`+"\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a row with one option", []string{"lmms-eval", oneOption}, `:1: field options: fewer than two options: one option ("A. Apples."); a multiple-choice item needs at least two`},
		{"no video column", []string{"vlmevalkit", td("MMBench_style_results.csv")}, "MMBench_style_results.csv:2: field video: missing field"},
		{"the other tool's file", []string{"vlmevalkit", td("samples_videomme_2024-06-20T10-11-12.123456.jsonl")}, "laid out as lmms-eval's files, not vlmevalkit's"},
		{"an unknown tool", []string{"lmms", td("MVBench_results.xlsx")}, `unknown tool "lmms"`},
		{"an answer naming no option", []string{"vlmevalkit", badAnswer}, `bad.tsv:2: field answer: answer out of range: "Z"`},
		{"a repeated id", []string{"vlmevalkit", dupID}, `dup.csv:3: field id: duplicate id: "0" was already given at ` + dupID + ":2"},
		{"no file", []string{"vlmevalkit"}, "want the tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.jsonl")
			code, _, stderr := runCmd(append(append([]string{"import"}, tt.args...), "--out", out)...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, stderr, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused import wrote its output")
			}
		})
	}
}
