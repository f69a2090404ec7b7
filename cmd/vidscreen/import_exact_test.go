package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportNothingToAuditIsExit2: a header-only table and an EgoSchema
// questions file none of whose answers were given read 0 items with
// exit 0 (issue 33 §2.7); an import with no item is bad input, as an
// empty file is, and the dropped records' one reason is said once with
// its count.
func TestImportNothingToAuditIsExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	headerOnly := writeTestFile(t, filepath.Join(dir, "MVBench.tsv"), "index\tvideo\tquestion\tA\tB\tanswer\n")
	var qs []string
	for i := range 40 {
		qs = append(qs, fmt.Sprintf(`{"q_uid": "%08d-0000-0000-0000-000000000000", "question": "q%d?", "option 0": "a", "option 1": "b", "option 2": "c", "option 3": "d", "option 4": "e"}`, i, i))
	}
	questions := writeTestFile(t, filepath.Join(dir, "ego", "questions.json"), "["+strings.Join(qs, ",\n")+"]")
	answers := writeTestFile(t, filepath.Join(dir, "ego", "subset_answers.json"), `{"ffffffff-0000-0000-0000-000000000000": 1}`)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"a header-only table", []string{"vlmevalkit", headerOnly}, []string{"no items: 0 records read"}},
		{"EgoSchema without a matching answer", []string{"egoschema", questions, answers}, []string{
			"no items: 41 records read, 0 open-ended, 41 dropped",
			"dropped 40 records: no public answer (subset_answers.json holds 500 of EgoSchema's answers): " + questions + ": record 1, ",
			"and 37 more",
		}},
	} {
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
			if n := strings.Count(stderr, "no public answer"); n > 1 {
				t.Errorf("the one reason said %d times", n)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused import wrote its output")
			}
		})
	}
}

// TestImportOutputPathAndGlob: import takes lmms-eval's --output_path
// directory and a quoted glob, and for results.json says to give the
// samples log (issue 33 §3.1).
func TestImportOutputPathAndGlob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := func(id string) map[string]any {
		return map[string]any{"question_id": id, "video": id + ".mp4", "question": "q " + id + "?", "options": []string{"x", "y"}, "answer": "A"}
	}
	run := filepath.Join(dir, "out", "llava__7b")
	writeTestFile(t, filepath.Join(run, "20250101_120000_samples_mvbench.jsonl"), sampleLine(t, 0, doc("m0"), "A", []any{"A"})+sampleLine(t, 1, doc("m1"), "A", []any{"B"}))
	writeTestFile(t, filepath.Join(run, "20250101_120000_samples_nextqa.jsonl"), sampleLine(t, 0, doc("n0"), "A", []any{"A"}))
	results := writeTestFile(t, filepath.Join(run, "20250101_120000_results.json"), `{"results": {"mvbench": {"accuracy": 50.0}}, "configs": {"mvbench": {}}}`)
	twice := filepath.Join(dir, "twice")
	writeTestFile(t, filepath.Join(twice, "a", "20250101_120000_samples_mvbench.jsonl"), sampleLine(t, 0, doc("m0"), "A", []any{"A"}))
	writeTestFile(t, filepath.Join(twice, "b", "20250102_120000_samples_mvbench.jsonl"), sampleLine(t, 0, doc("m0"), "A", []any{"A"}))
	for _, tt := range []struct {
		name  string
		arg   string
		code  int
		items int
		want  string
	}{
		{"the --output_path directory", filepath.Join(dir, "out"), 0, 3, "3 records: 3 items"},
		{"a quoted glob", filepath.Join(run, "*_samples_mvbench.jsonl"), 0, 2, "2 records: 2 items"},
		{"a glob matching nothing", filepath.Join(run, "*_samples_none.jsonl"), 2, 0, "no file matches"},
		{"results.json", results, 2, 0, "lmms-eval's aggregated results (scores, not samples): give the samples log beside it"},
		{"a directory of two runs of a task", twice, 2, 0, "holds two samples logs of task mvbench"},
		{"a directory without samples", filepath.Join(dir, "twice", "none"), 2, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "a directory without samples" {
				os.MkdirAll(tt.arg, 0o755)
				tt.want = "a directory holding no lmms-eval samples log"
			}
			out := filepath.Join(t.TempDir(), "items.jsonl")
			code, _, stderr := runCmd("import", "lmms-eval", tt.arg, "--out", out)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, want %d; stderr %q lacks %q", code, tt.code, stderr, tt.want)
			}
			b, _ := os.ReadFile(out)
			if n := strings.Count(string(b), "\n"); n != tt.items {
				t.Errorf("%d items written, want %d", n, tt.items)
			}
		})
	}
}

// TestImportRefusesWhatNoBenchmarkMeans: the rest of issue 33 §2.7, each
// an exit 0 before: a NUL byte inside an option, a positive
// log-likelihood, a table cut inside a quoted cell (which read "not a
// JSON object: not a CSV table"); a line break inside an option is kept
// and said.
func TestImportRefusesWhatNoBenchmarkMeans(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := func(id string, opts ...string) map[string]any {
		return map[string]any{"question_id": id, "video": id + ".mp4", "question": "q " + id + "?", "options": opts, "answer": "A"}
	}
	nul := writeTestFile(t, filepath.Join(dir, "samples_nul.jsonl"), sampleLine(t, 0, doc("a", "x", "y\x00z"), "A", []any{"A"}))
	positive := writeTestFile(t, filepath.Join(dir, "samples_ll.jsonl"), sampleLine(t, 0, doc("a", "x", "y"), "A", []any{[]any{"-2.5", "False"}, []any{"3.25", "False"}}))
	cut := writeTestFile(t, filepath.Join(dir, "val.csv"), "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4\n4010069381,100,640,480,\"why did the boy")
	broken := writeTestFile(t, filepath.Join(dir, "samples_br.jsonl"), sampleLine(t, 0, doc("a", "Apples.\nCandles", "Doors"), "A", []any{"A"}))
	for _, tt := range []struct {
		name string
		file string
		code int
		want string
		not  string
	}{
		{"a NUL byte in an option", nul, 2, "field options: invalid value: option B holds a NUL byte", ""},
		{"a positive log-likelihood", positive, 2, "log-likelihood 3.25 is above 0", ""},
		{"a CSV cut inside a quoted cell", cut, 2, "is the file cut short?", "not a JSON object"},
		{"a line break in an option", broken, 0, "1 items have an option holding a line break (kept; a prompt shows it on two lines): a", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			format := "lmms-eval"
			if strings.HasSuffix(tt.file, ".csv") {
				format = "nextqa"
			}
			code, _, stderr := runCmd("import", format, tt.file, "--out", filepath.Join(t.TempDir(), "out.jsonl"))
			if code != tt.code || !strings.Contains(stderr, tt.want) || tt.not != "" && strings.Contains(stderr, tt.not) {
				t.Errorf("exit %d, want %d; stderr %q: want %q, not %q", code, tt.code, stderr, tt.want, tt.not)
			}
		})
	}
}
