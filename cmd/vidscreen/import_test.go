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
	t.Parallel()
	tests := []struct {
		tool, file string
		bench      string
		items      int
		preds      bool
		first      string // the first item line
	}{
		{"lmms-eval", "samples_videomme_2024-06-20T10-11-12.123456.jsonl", "videomme", 4, true,
			`{"id":"001-1","benchmark":"videomme","video":"fFjv93ACGo8","question":"When demonstrating the Germany modern Christmas tree is initially decorated with apples, candles and berries, which kind of the decoration has the largest number?","options":["Apples.","Candles.","Berries.","The three kinds are of the same number."],"answer":2,"task":"Counting Problem","duration":null,"duration_category":"short"}`},
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
	t.Parallel()
	// out/ does not exist yet: import makes it, as the README's first
	// import relies on.
	dir := filepath.Join(t.TempDir(), "out")
	items := filepath.Join(dir, "videomme.jsonl")
	if code, _, stderr := runCmd("import", "lmms-eval", filepath.Join(predictionsTestdata, "samples_videomme_2024-06-20T10-11-12.123456.jsonl"), "--out", items); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runAudit("--items", items, "--out", filepath.Join(dir, "run"), "--reference", filepath.Join(dir, "videomme.predictions.jsonl"), "--quiet")
	if code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	// The model answered 2 of 4 right (C right, "answer is B" wrong, no
	// option named, B right): the unparsed reply counts wrong, as
	// lmms-eval counts it, so s* is 2/4.
	if !strings.Contains(stdout, "50.0%") || !strings.Contains(stderr, "4 rows, 3 matched (3 by id") || !strings.Contains(stderr, "1 unparsed") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

func TestImportRefuses(t *testing.T) {
	t.Parallel()
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
		{"the other tool's file", []string{"vlmevalkit", td("samples_videomme_2024-06-20T10-11-12.123456.jsonl")}, "this is an lmms-eval samples file, not vlmevalkit's: use `vidscreen import lmms-eval`"},
		{"an unknown tool", []string{"lmms", td("MVBench_results.xlsx")}, `unknown format "lmms": want lmms-eval, vlmevalkit`},
		{"an answer naming no option", []string{"vlmevalkit", badAnswer}, `bad.tsv:2: field answer: answer out of range: "Z"`},
		{"a repeated id", []string{"vlmevalkit", dupID}, `dup.csv:3: field id: duplicate id: "0" was already given at ` + dupID + ":2"},
		{"no file", []string{"vlmevalkit"}, "want a FORMAT (or auto) and a FILE"},
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

// The lmms-eval layouts since v0.4 (no doc; v0.7's bare-string replies),
// written here as lmms-eval's save_results_samples writes them: see
// harness/predictions/lmmseval_test.go.
const (
	videommeInstruction = "Select the best answer to the following multiple-choice question based on the video and the subtitles. Respond with only the letter (A, B, C, or D) of the correct option."
	lmmsV04Lines        = `{"doc_id": 0, "target": "C", "filtered_resps": ["C"], "doc_hash": "4f1c", "input": "<image>\n` + videommeInstruction + `\nHow many apples are on the tree?\nA. One.\nB. Two.\nC. Three.\nD. Four.\nThe best answer is:", "videomme_perception_score": {"question_id": "001-1", "duration": "short", "category": "Knowledge", "sub_category": "Humanity & History", "task_category": "Counting Problem", "pred_answer": "C", "answer": "C"}}
{"doc_id": 1, "target": "A", "filtered_resps": ["!!!!!!!!!!!!!!!!"], "doc_hash": "1e2d", "input": "<image>\n` + videommeInstruction + `\nWhat is the genre of this video?\nA. A news report.\nB. A documentary.\nC. A travel vlog.\nD. A tutorial.\nThe best answer is:", "videomme_perception_score": {"question_id": "001-2", "duration": "short", "category": "Knowledge", "sub_category": "Humanity & History", "task_category": "Object Recognition", "pred_answer": "", "answer": "A"}}
{"doc_id": 2, "target": "B", "filtered_resps": ["The answer is B."], "doc_hash": "1e2e", "input": "<image>\n` + videommeInstruction + `\nWho speaks first?\nA. The host.\nB. The guest.\nC. Nobody.\nD. A narrator.\nThe best answer is:", "videomme_perception_score": {"question_id": "001-3", "duration": "short", "category": "Knowledge", "sub_category": "Humanity & History", "task_category": "Object Recognition", "pred_answer": "B", "answer": "B"}}
`
	lmmsV07Lines = `{"doc_id": 0, "target": "B", "filtered_resps": "The answer is B.", "doc_hash": "aa01", "input": "Which planet appears first?\nOptions:\nA. Mars.\nB. Venus.\nC. Saturn.\nD. Earth.\nAnswer with the option's letter from the given choices directly.", "videomme_perception_score": {"question_id": "002-1", "duration": "medium", "category": "Knowledge", "sub_category": "Astronomy", "task_category": "Temporal Perception", "pred_answer": "B", "answer": "B", "score": 1.0, "videoID": "zzzzzzzzzzz"}}
{"doc_id": 1, "target": "D", "filtered_resps": "A", "doc_hash": "aa02", "input": "Which planet appears last?\nOptions:\nA. Mars.\nB. Venus.\nC. Saturn.\nD. Earth.\nAnswer with the option's letter from the given choices directly.", "videomme_perception_score": {"question_id": "002-2", "duration": "medium", "category": "Knowledge", "sub_category": "Astronomy", "task_category": "Temporal Perception", "pred_answer": "A", "answer": "D", "score": 0.0, "videoID": "zzzzzzzzzzz"}}
`
)

func TestImportLMMSEvalWithoutDoc(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, file, body string
		items, preds     string
		stderr           []string
	}{
		{"v0.4-0.6", "20250712_101112_samples_videomme.jsonl", lmmsV04Lines,
			`{"id":"001-1","benchmark":"videomme","video":"001","question":"How many apples are on the tree?","options":["One.","Two.","Three.","Four."],"answer":2,"task":"Counting Problem","duration":null,"duration_category":"short","meta":{"video_from":"the question id"}}
{"id":"001-2","benchmark":"videomme","video":"001","question":"What is the genre of this video?","options":["A news report.","A documentary.","A travel vlog.","A tutorial."],"answer":0,"task":"Object Recognition","duration":null,"duration_category":"short","meta":{"video_from":"the question id"}}
{"id":"001-3","benchmark":"videomme","video":"001","question":"Who speaks first?","options":["The host.","The guest.","Nobody.","A narrator."],"answer":1,"task":"Object Recognition","duration":null,"duration_category":"short","meta":{"video_from":"the question id"}}
`,
			`{"benchmark":"videomme","id":"001-1","pred":"C"}
{"benchmark":"videomme","id":"001-2","pred":""}
{"benchmark":"videomme","id":"001-3","pred":"B"}
`,
			[]string{"items read 3 from input and videomme_perception_score", "the video of each item: 3 from the question id", "replies as the tool parsed them: 3 from videomme_perception_score.pred_answer", "3 replies, 2 right: accuracy 66.7% with unparsed replies counted wrong; 1 unparsed (no option named): 001-2"}},
		{"v0.7", "20251020_080910_samples_videomme.jsonl", lmmsV07Lines,
			`{"id":"002-1","benchmark":"videomme","video":"zzzzzzzzzzz","question":"Which planet appears first?","options":["Mars.","Venus.","Saturn.","Earth."],"answer":1,"task":"Temporal Perception","duration":null,"duration_category":"medium"}
{"id":"002-2","benchmark":"videomme","video":"zzzzzzzzzzz","question":"Which planet appears last?","options":["Mars.","Venus.","Saturn.","Earth."],"answer":3,"task":"Temporal Perception","duration":null,"duration_category":"medium"}
`,
			`{"benchmark":"videomme","id":"002-1","pred":"B"}
{"benchmark":"videomme","id":"002-2","pred":"A"}
`,
			[]string{"items read 2 from input and videomme_perception_score", "2 replies, 1 right: accuracy 50.0% with unparsed replies counted wrong\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := filepath.Join(dir, tt.file)
			os.WriteFile(in, []byte(tt.body), 0o644)
			var first []byte
			for run := range 2 {
				out := filepath.Join(dir, "items.jsonl")
				code, _, stderr := runCmd("import", "lmms-eval", in, "--out", out)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				items, _ := os.ReadFile(out)
				preds, _ := os.ReadFile(filepath.Join(dir, "items.predictions.jsonl"))
				if string(items) != tt.items || string(preds) != tt.preds {
					t.Errorf("items\n%s\nwant\n%s\npredictions\n%s\nwant\n%s", items, tt.items, preds, tt.preds)
				}
				for _, w := range tt.stderr {
					if !strings.Contains(stderr, w) {
						t.Errorf("stderr %q lacks %q", stderr, w)
					}
				}
				both := append(items, preds...)
				if run == 1 && string(both) != string(first) {
					t.Error("a second import of the same file wrote other bytes")
				}
				first = both
				if _, err := harness.ReadFiles(context.Background(), []string{out}, harness.ReadOptions{}); err != nil {
					t.Fatalf("the imported items do not read back: %v", err)
				}
			}
		})
	}
}

// TestImportLMMSEvalV02 imports the <task>.json of lmms-eval v0.2.0-v0.2.3:
// one pretty-printed object whose logs are the samples.
func TestImportLMMSEvalV02(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "videomme.json")
	os.WriteFile(in, []byte(`{
    "args": {"model": "llava_vid", "log_samples": true},
    "model_configs": {"task": "videomme"},
    "logs": [
        {
            "doc_id": 0,
            "doc": {"video_id": "001", "videoID": "fFjv93ACGo8", "duration": "short", "question_id": "001-1", "task_type": "Counting Problem", "question": "How many apples?", "options": ["A. One.", "B. Two."], "answer": "B"},
            "target": "B",
            "arguments": ["<image>\nHow many apples?"],
            "resps": [["B"]],
            "filtered_resps": ["B"]
        }
    ],
    "time": "0620_1011"
}
`), 0o644)
	out := filepath.Join(dir, "items.jsonl")
	code, _, stderr := runCmd("import", "lmms-eval", in, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	want := `{"id":"001-1","benchmark":"videomme","video":"fFjv93ACGo8","question":"How many apples?","options":["One.","Two."],"answer":1,"task":"Counting Problem","duration":null,"duration_category":"short"}` + "\n"
	if string(b) != want || !strings.Contains(stderr, "items read 1 from doc") {
		t.Errorf("items\n%s\nwant\n%s\nstderr %q", b, want, stderr)
	}
	if code, _, stderr := runCmd("import", "vlmevalkit", in, "--out", out+"2"); code != 2 || !strings.Contains(stderr, "use `vidscreen import lmms-eval`") {
		t.Errorf("vlmevalkit on a v0.2 log: exit %d, %q", code, stderr)
	}
}

func TestImportLMMSEvalRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	v07 := write("20251020_080910_samples_videomme.jsonl", lmmsV07Lines)
	noInput := write("20251020_080910_samples_a.jsonl", lmmsV07Lines+`{"doc_id": 2, "target": "A", "filtered_resps": "A"}`+"\n")
	badGold := write("20251020_080910_samples_b.jsonl", strings.Replace(lmmsV07Lines, `"target": "D"`, `"target": "Z"`, 1))
	noVideo := write("20251020_080910_samples_c.jsonl", `{"doc_id": 0, "target": "A", "filtered_resps": "A", "input": "q?\nA. yes\nB. no"}`+"\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"vlmevalkit given an lmms-eval file", []string{"vlmevalkit", v07}, "this is an lmms-eval samples file, not vlmevalkit's: use `vidscreen import lmms-eval`"},
		{"vlmevalkit given a broken lmms-eval file", []string{"vlmevalkit", noInput}, "use `vidscreen import lmms-eval`"},
		{"a line without input", []string{"lmms-eval", noInput}, "samples_a.jsonl:3: field input: missing field"},
		{"a target naming no option", []string{"lmms-eval", badGold}, `samples_b.jsonl:2: field answer: answer out of range: "Z"`},
		{"no video", []string{"lmms-eval", noVideo}, "samples_c.jsonl:1: field video: missing field: the log names no video (lmms-eval since v0.4 logs the prompt, not the benchmark's record): give --items-from FILE"},
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
