package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// mcTable is a VLMEvalKit dataset TSV of n four-option questions on n/2
// videos, gold at position i%4 except every fifth at A, and the given
// number of open-ended rows (a gold naming two options).
func mcTable(n, open int) string {
	var b strings.Builder
	b.WriteString("index\tvideo\tquestion\tA\tB\tC\tD\tanswer\ttask_type\n")
	for i := range n {
		g := "ABCD"[i%4 : i%4+1]
		if i%5 == 0 {
			g = "A"
		}
		fmt.Fprintf(&b, "%d\tv%d.mp4\tWhat happens %d?\tw%d\tx%d\ty%d\tz%d\t%s\tT%d\n", i, i/2, i, i, i, i, i, g, i%3)
	}
	for i := range open {
		fmt.Fprintf(&b, "%d\tv0.mp4\tWhich two %d?\tw\tx\ty\tz\tA, B\tT0\n", n+i, i)
	}
	return b.String()
}

func TestImportCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	videos := filepath.Join(dir, "videos")
	os.MkdirAll(videos, 0o755)
	for i := range 3 { // 3 of the 20 videos
		os.WriteFile(filepath.Join(videos, fmt.Sprintf("v%d.mp4", i)), []byte("x"), 0o644)
	}
	for _, tt := range []struct {
		name   string
		n, opn int
		want   []string
	}{
		{"eligible", 40, 2, []string{
			"items by format: vlmevalkit 40",
			"records: 42 (40 items, 2 open-ended, 0 dropped)",
			"option counts: 4 options 40",
			"gold positions: A 16, B 8, C 8, D 8",
			"gold position entropy: 0.961 (normalised over 4 positions; 1 = uniform)",
			"modal gold position: A, 40.0% of the items",
			"chance: 0.250",
			"videos: 20",
			"tasks: 3 (T0, T1, T2)",
			"videos under " + videos + ": 3 of 20 found: under half: probably the wrong video field",
			"eligible: gold answers for at least half the records: pass (40 of 42, 95.2%)",
			"eligible: at least 30 multiple-choice items: pass (40)",
		}},
		{"too few, mostly open-ended", 10, 12, []string{
			"eligible: gold answers for at least half the records: fail (10 of 22, 45.5%)",
			"eligible: at least 30 multiple-choice items: fail (10)",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := writeTestFile(t, filepath.Join(t.TempDir(), "MVBench.tsv"), mcTable(tt.n, tt.opn))
			out := filepath.Join(t.TempDir(), "items.jsonl")
			code, stdout, stderr := runCmd("import", "vlmevalkit", in, "--check", "--videos", videos, "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w+"\n") && !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
				t.Errorf("--check wrote %d files", len(entries))
			}
		})
	}
}

func TestImportListAutoAndVideos(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCmd("import", "--list")
	if code != 0 || !strings.HasPrefix(stdout, "auto ") || !strings.Contains(stdout, "\nlmms-eval ") || !strings.Contains(stdout, "<YYYYmmdd_HHMMSS>_samples_<task>.jsonl") || !strings.Contains(stdout, "\nvlmevalkit ") {
		t.Errorf("--list: exit %d\n%s", code, stdout)
	}
	dir := t.TempDir()
	videos := filepath.Join(dir, "videos")
	os.MkdirAll(videos, 0o755)
	os.WriteFile(filepath.Join(videos, "v0.mp4"), []byte("x"), 0o644)
	in := writeTestFile(t, filepath.Join(dir, "MVBench.tsv"), mcTable(4, 0))
	code, _, stderr := runCmd("import", "auto", in, "--out", filepath.Join(dir, "items.jsonl"), "--videos", videos)
	if code != 0 || !strings.Contains(stderr, "detected vlmevalkit (VLMEvalKit table)") || !strings.Contains(stderr, "1 of 2 videos not found under "+videos+" (2 items)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	log := writeTestFile(t, filepath.Join(dir, "20251020_080910_samples_videomme.jsonl"), lmmsV07Lines)
	if code, _, stderr := runCmd("import", "auto", in, log, "--out", filepath.Join(dir, "mixed.jsonl")); code != 2 || !strings.Contains(stderr, "MVBench.tsv is vlmevalkit, but "+log+" is not") {
		t.Errorf("auto on two layouts: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCmd("import", "lmms-eval", in, "--out", filepath.Join(dir, "wrong.jsonl")); code != 2 || !strings.Contains(stderr, "this is a VLMEvalKit table file, not lmms-eval's: use `vidscreen import vlmevalkit`") {
		t.Errorf("lmms-eval on a VLMEvalKit table: exit %d, %q", code, stderr)
	}
	unknown := writeTestFile(t, filepath.Join(dir, "notes.txt"), "hello\n")
	if code, _, stderr := runCmd("import", "auto", unknown, "--out", filepath.Join(dir, "x.jsonl")); code != 2 || !strings.Contains(stderr, "no known layout") {
		t.Errorf("auto on text: exit %d, %q", code, stderr)
	}
}

// TestImportItemsFrom: an lmms-eval log since v0.4 holds no doc; its items
// come from what an import of the benchmark's own file wrote, joined by
// question_id, else doc_id, and stderr says so.
func TestImportItemsFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bench := writeTestFile(t, filepath.Join(dir, "videomme.items.jsonl"),
		`{"id":"001-1","benchmark":"videomme","video":"fFjv93ACGo8","question":"How many apples are on the tree?","options":["One.","Two.","Three.","Four."],"answer":2,"task":"Counting Problem","duration":null}`+"\n"+
			`{"id":"001-2","benchmark":"videomme","video":"fFjv93ACGo8","question":"What is the genre of this video?","options":["A news report.","A documentary.","A travel vlog.","A tutorial."],"answer":0,"task":"Object Recognition","duration":null}`+"\n"+
			`{"id":"001-3","benchmark":"videomme","video":"fFjv93ACGo8","question":"Who speaks first?","options":["The host.","The guest.","Nobody.","A narrator."],"answer":1,"task":"Object Recognition","duration":null}`+"\n")
	// The third line's metric object lacks its question_id: doc_id joins it.
	log := writeTestFile(t, filepath.Join(dir, "20250712_101112_samples_videomme.jsonl"), strings.Replace(lmmsV04Lines, `"question_id": "001-3", `, "", 1))
	out := filepath.Join(dir, "items.jsonl")
	code, _, stderr := runCmd("import", "lmms-eval", log, "--items-from", bench, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	if strings.Count(string(b), `"video":"fFjv93ACGo8"`) != 3 || !strings.Contains(string(b), `"id":"001-3"`) {
		t.Errorf("items\n%s", b)
	}
	for _, w := range []string{"items read 1 from --items-from " + bench + " (joined by doc_id), 2 from --items-from " + bench + " (joined by id)", "3 replies, 2 right"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
	other := writeTestFile(t, filepath.Join(dir, "other.items.jsonl"), `{"id":"9","benchmark":"b","video":"v","question":"q?","options":["x","y"],"answer":0,"task":"","duration":null}`+"\n")
	if code, _, stderr := runCmd("import", "lmms-eval", log, "--items-from", other, "--out", filepath.Join(dir, "o.jsonl")); code != 2 || !strings.Contains(stderr, `samples_videomme.jsonl:1: field id: no such item: the record has 4 options, its item in `+other+` (by doc_id) 2: not the same question`) {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// TestImportItemsFromLogLikelihoodTask: lmms-eval's egoschema_subset_mcppl
// logs the bare question as its prompt (doc_to_text: "question") and one
// [log-likelihood, is-greedy] pair per option, str()'d: with --items-from
// the EgoSchema import's items give the options, the task's own choice
// (score.pred) is the reply, and a choice past the item's options is an
// error naming the line.
func TestImportItemsFromLogLikelihoodTask(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := writeTestFile(t, filepath.Join(dir, "questions.json"), `[{"q_uid": "0074f737-11cb-497d-8d07-77c3a8127391", "google_drive_id": "1a", "question": "How does the woman help c?", "option 0": "she cuts pods", "option 1": "she pours water", "option 2": "she sweeps", "option 3": "she sings", "option 4": "she leaves"}]`)
	a := writeTestFile(t, filepath.Join(dir, "subset_answers.json"), `{"0074f737-11cb-497d-8d07-77c3a8127391": 3}`)
	items := filepath.Join(dir, "egoschema.jsonl")
	if code, _, stderr := runCmd("import", "egoschema", q, a, "--out", items); code != 0 {
		t.Fatalf("import egoschema: exit %d: %s", code, stderr)
	}
	line := func(pred int) string {
		return `{"doc_id": 0, "target": "3", "filtered_resps": [["-14.25", "False"], ["-9.5", "False"], ["-20.0", "False"], ["-11.0", "False"], ["-8.0", "False"]], "doc_hash": "a1", "input": "How does the woman help c?", ` +
			`"submission": {"0074f737-11cb-497d-8d07-77c3a8127391": ` + strconv.Itoa(pred) + `}, "score": {"pred": ` + strconv.Itoa(pred) + `, "ground_truth": "3"}}` + "\n"
	}
	log := writeTestFile(t, filepath.Join(dir, "20251020_080910_samples_egoschema_subset_mcppl.jsonl"), line(3))
	out := filepath.Join(dir, "joined.jsonl")
	if code, _, stderr := runCmd("import", "lmms-eval", log, "--out", out); code != 2 || !strings.Contains(stderr, "--items-from") {
		t.Errorf("without --items-from: exit %d, %q", code, stderr)
	}
	code, _, stderr := runCmd("import", "lmms-eval", log, "--items-from", items, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	preds, _ := os.ReadFile(strings.TrimSuffix(out, ".jsonl") + ".predictions.jsonl")
	if want := `{"benchmark":"egoschema_subset_mcppl","id":"0074f737-11cb-497d-8d07-77c3a8127391","pred":3}` + "\n"; string(preds) != want {
		t.Errorf("predictions %q, want %q", preds, want)
	}
	if !strings.Contains(stderr, "1 replies, 1 right") {
		t.Errorf("stderr %q", stderr)
	}
	// A choice past the five options is another question's log.
	bad := writeTestFile(t, filepath.Join(dir, "20251020_080911_samples_egoschema_subset_mcppl.jsonl"), strings.Replace(line(3), `["-8.0", "False"]]`, `["-8.0", "False"], ["-1.0", "False"]]`, 1))
	if code, _, stderr := runCmd("import", "lmms-eval", bad, "--items-from", items, "--out", filepath.Join(dir, "bad.jsonl")); code != 2 || !strings.Contains(stderr, bad+":1: field filtered_resps") {
		t.Errorf("six log-likelihoods for five options: exit %d, %q", code, stderr)
	}
}
