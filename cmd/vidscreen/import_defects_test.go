package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleLine is one lmms-eval samples line (up to v0.3, with doc).
func sampleLine(t *testing.T, docID int, doc map[string]any, target any, resps any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"doc_id": docID, "doc": doc, "target": target, "filtered_resps": resps})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func writeTestFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportDefectsOfRealFiles: the defects seen on real files, each now an
// exit 2 whose message names the real cause, with nothing written.
func TestImportDefectsOfRealFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nextqa := func(video, qid int) map[string]any {
		return map[string]any{"video": video, "question": fmt.Sprintf("question %d of %d", qid, video), "answer": 0, "qid": qid, "type": "CH",
			"a0": "roll the handle", "a1": "tap their feet", "a2": "strum the string", "a3": "hit with sticks", "a4": "pat with hand"}
	}
	perVideo := writeTestFile(t, filepath.Join(dir, "samples_nextqa_mc_test_2024-06-20T11-00-00.000001.jsonl"),
		sampleLine(t, 0, nextqa(4010069381, 2), 0, []any{"A"})+sampleLine(t, 1, nextqa(7508439506, 2), 0, []any{"A"}))
	circular := writeTestFile(t, filepath.Join(dir, "outputs", "M", "M_MMBench.tsv"),
		"index\tvideo\tquestion\tA\tB\tanswer\tprediction\n7\tv.mp4\tq?\tx\ty\tA\tA\n7\tv.mp4\tq?\ty\tx\tB\tB\n")
	digit := writeTestFile(t, filepath.Join(dir, "outputs", "M", "M_Digits.tsv"),
		"index\tvideo\tquestion\tA\tB\tC\tanswer\tprediction\n0\tv.mp4\tq?\tx\ty\tz\tB\t0\n")
	digitGold := writeTestFile(t, filepath.Join(dir, "gold.tsv"),
		"index\tvideo\tquestion\tA\tB\tC\tanswer\n0\tv.mp4\tq?\tx\ty\tz\t1\n")
	pretty := writeTestFile(t, filepath.Join(dir, "pretty_samples_videomme.jsonl"), "{\n    \"doc_id\": 0,\n    \"filtered_resps\": [\"A\"]\n}\n")
	tests := []struct {
		name string
		args []string
		want []string
		not  string
	}{
		{"NExT-QA's per-video qid", []string{"lmms-eval", perVideo}, []string{`:2: field id: duplicate id: "2" was already given at`, `for video "4010069381", and here for video "7508439506"`, "number the questions within each video", "`vidscreen import nextqa`"}, "VLMEvalKit"},
		{"VLMEvalKit's circular copies", []string{"vlmevalkit", circular}, []string{`M_MMBench.tsv:3: field id: duplicate id: "7"`, "VLMEvalKit's circular copies"}, "within each video"},
		{"a digit reply the layout gives no base for", []string{"vlmevalkit", digit}, []string{`M_Digits.tsv:2: field prediction: ambiguous option index: "0" is option A ("x") counted from 0, no option counted from 1`, "--index-base 0 or 1"}, ""},
		{"a digit gold the layout gives no base for", []string{"vlmevalkit", digitGold}, []string{`gold.tsv:2: field answer: ambiguous option index: "1" is option B ("y") counted from 0, option A ("x") counted from 1`}, ""},
		{"a pretty-printed JSON file", []string{"lmms-eval", pretty}, []string{"pretty_samples_videomme.jsonl:1: not a JSON object: expected lmms-eval's samples (one JSON object per line), found a pretty-printed JSON object"}, ""},
		{"a missing .xlsx", []string{"vlmevalkit", filepath.Join(dir, "M_None.xlsx")}, []string{"M_None.xlsx: no such file or directory"}, "JSON"},
		{"an index base that is no base", []string{"vlmevalkit", digit, "--index-base", "2"}, []string{`--index-base "2": want 0 or 1`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.jsonl")
			code, _, stderr := runCmd(append(append([]string{"import"}, tt.args...), "--out", out)...)
			if code != 2 {
				t.Errorf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if tt.not != "" && strings.Contains(stderr, tt.not) {
				t.Errorf("stderr %q names %q, the wrong cause", stderr, tt.not)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused import wrote its output")
			}
		})
	}
}

// TestImportIndexBase: --index-base reads the digits the layout leaves
// open, and the predictions file then holds the index, so that the audit
// need not be told again.
func TestImportIndexBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeTestFile(t, filepath.Join(dir, "outputs", "M", "M_Digits.tsv"),
		"index\tvideo\tquestion\tA\tB\tC\tanswer\tprediction\n0\tv.mp4\tq?\tx\ty\tz\t2\t1\n1\tw.mp4\tr?\tx\ty\tz\tB\tC\n")
	for _, tt := range []struct {
		base, items, preds string
	}{
		{"0", `"answer":2`, `{"benchmark":"Digits","id":"0","pred":1}`},
		{"1", `"answer":1`, `{"benchmark":"Digits","id":"0","pred":0}`},
	} {
		out := filepath.Join(dir, "base"+tt.base+".jsonl")
		code, _, stderr := runCmd("import", "vlmevalkit", in, "--out", out, "--index-base", tt.base)
		if code != 0 {
			t.Fatalf("--index-base %s: exit %d: %s", tt.base, code, stderr)
		}
		items, _ := os.ReadFile(out)
		preds, _ := os.ReadFile(strings.TrimSuffix(out, ".jsonl") + ".predictions.jsonl")
		first, _, _ := strings.Cut(string(items), "\n")
		if !strings.Contains(first, tt.items) || !strings.HasPrefix(string(preds), tt.preds+"\n") {
			t.Errorf("--index-base %s: items %s, predictions %s; want %s and %s", tt.base, items, preds, tt.items, tt.preds)
		}
	}
}

// TestImportOpenEndedAside: a gold naming several options or none is an
// open-ended record, counted, written aside and not audited.
func TestImportOpenEndedAside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeTestFile(t, filepath.Join(dir, "MVBench.tsv"), "index\tvideo\tquestion\tA\tB\tC\tanswer\n"+
		"0\tv.mp4\tWhich?\tx\ty\tz\tB\n"+
		"1\tv.mp4\tWhich two?\tx\ty\tz\tA, C\n"+
		"2\tw.mp4\tWhat is said?\tx\ty\tz\ta horse\n")
	out := filepath.Join(dir, "items.jsonl")
	var first string
	for run := range 2 {
		code, stdout, stderr := runCmd("import", "vlmevalkit", in, "--out", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		items, _ := os.ReadFile(out)
		open, _ := os.ReadFile(filepath.Join(dir, "items.open-ended.jsonl"))
		wantOpen := `{"id":"1","benchmark":"MVBench","video":"v.mp4","question":"Which two?","options":["x","y","z"],"gold":"A, C","reason":"the answer \"A, C\" names several options (A, C)","source":"` + in + `:3"}` + "\n" +
			`{"id":"2","benchmark":"MVBench","video":"w.mp4","question":"What is said?","options":["x","y","z"],"gold":"a horse","reason":"the answer \"a horse\" is no option's letter or text","source":"` + in + `:4"}` + "\n"
		if strings.Count(string(items), "\n") != 1 || string(open) != wantOpen {
			t.Errorf("items\n%s\nopen-ended\n%s\nwant\n%s", items, open, wantOpen)
		}
		if !strings.Contains(stderr, "3 records: 1 items, 2 open-ended, 0 dropped") || !strings.Contains(stdout, "2 open-ended records written to") {
			t.Errorf("stdout %q, stderr %q", stdout, stderr)
		}
		if run == 1 && string(items)+string(open) != first {
			t.Error("a second import wrote other bytes")
		}
		first = string(items) + string(open)
	}
}

// TestImportVLMEvalKitNaming: two models' result files for one dataset
// are one benchmark, the model taken from the folder and the name.
func TestImportVLMEvalKitNaming(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var benches []string
	for _, model := range []string{"Qwen2-VL-7B", "LLaVA-Video-7B"} {
		in := writeTestFile(t, filepath.Join(dir, "outputs", model, model+"_Video-MME.tsv"),
			"index\tvideo\tquestion\tcandidates\tanswer\tprediction\n0\tv.mp4\tq?\t\"['A. x', 'B. y']\"\tA\tA\n")
		out := filepath.Join(dir, model+".jsonl")
		if code, _, stderr := runCmd("import", "auto", in, "--out", out); code != 0 || !strings.Contains(stderr, "detected vlmevalkit") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, _ := os.ReadFile(out)
		var it struct{ Benchmark string }
		json.Unmarshal(b, &it)
		benches = append(benches, it.Benchmark)
	}
	if benches[0] != "Video-MME" || benches[1] != "Video-MME" {
		t.Errorf("benchmarks %q, want both Video-MME", benches)
	}
}
