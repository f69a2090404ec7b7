package export

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/answer"
)

func TestPyString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a dog", `'a dog'`},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`it's "x"`, `'it\'s "x"'`},
		{`back\slash`, `'back\\slash'`},
		{"tab\tnew\nline\rret", `'tab\tnew\nline\rret'`},
		{"bell\x07", `'bell\x07'`},
		{"à droite 中文", `'à droite 中文'`},
		{"nbsp\u00a0zwsp\u200b", `'nbsp\xa0zwsp\u200b'`},
		{"", `''`},
	}
	for _, c := range cases {
		if got := pyString(c.in); got != c.want {
			t.Errorf("pyString(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := pyList([]string{"a", "it's"}); got != `['a', "it's"]` {
		t.Errorf("pyList = %s", got)
	}
}

// TestPyStringIsPythonsRepr: Python itself gives the same text, and reads
// it back (as VLMEvalKit does with eval) as the options.
func TestPyStringIsPythonsRepr(t *testing.T) {
	texts := []string{"a dog", "it's", `say "hi"`, `it's "x"`, `back\slash`, "tab\tnew\nline", "bell\x07\x7f",
		"à droite 中文", "nbsp\u00a0zwsp\u200b", "emoji 🎥", "", "line\u2028sep"}
	in, _ := json.Marshal(texts)
	var got []string
	runPython(t, t.TempDir(), fmt.Sprintf("ts = json.loads(%q)\nprint(json.dumps([repr(ts)] + [repr(s) for s in ts]))\n", string(in)), &got)
	if got[0] != pyList(texts) {
		t.Errorf("repr of the list\n%s\nwant (Python)\n%s", pyList(texts), got[0])
	}
	for i, s := range texts {
		if pyString(s) != got[i+1] {
			t.Errorf("pyString(%q) = %s, Python writes %s", s, pyString(s), got[i+1])
		}
	}
}

func TestVLMEvalKitTable(t *testing.T) {
	r := testRelease(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tsv"), filepath.Join(dir, "b.tsv")
	for _, p := range []string{a, b} {
		if err := VLMEvalKit(context.Background(), r, p); err != nil {
			t.Fatal(err)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if string(da) != string(db) {
		t.Error("two exports of one release differ")
	}
	cr := csv.NewReader(strings.NewReader(string(da)))
	cr.Comma = '\t'
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows[0], VLMEvalKitColumns) {
		t.Fatalf("header %v", rows[0])
	}
	if len(rows) != len(r.Items)+1 {
		t.Fatalf("%d rows, want %d", len(rows)-1, len(r.Items))
	}
	col := func(row []string, name string) string { return row[slices.Index(VLMEvalKitColumns, name)] }
	for k, it := range r.Items {
		row := rows[k+1]
		dur := ""
		if it.Duration != nil {
			dur = strconv.FormatFloat(*it.Duration, 'f', -1, 64)
		}
		want := map[string]string{"index": strconv.Itoa(k), "question_id": it.ID, "video": it.Video, "video_path": it.VideoPath,
			"question": it.Question, "candidates": pyList(it.Options), "answer": answer.Letter(it.Answer),
			"task_type": it.Task, "category": it.Group, "duration": dur}
		for c, w := range want {
			if got := col(row, c); got != w {
				t.Errorf("item %s: %s = %q, want %q", it.ID, c, got, w)
			}
		}
	}
	// Python's csv module and eval, as VLMEvalKit reads the table (pandas
	// read_csv with sep="\t", then eval(candidates)).
	var got []map[string]any
	runPython(t, t.TempDir(), `
import ast, csv
rows = list(csv.DictReader(open(sys.argv[2], encoding="utf-8", newline=""), delimiter="\t"))
print(json.dumps([{"question": r["question"], "candidates": ast.literal_eval(r["candidates"]), "answer": r["answer"]} for r in rows]))
`, &got, a)
	for k, it := range r.Items {
		cands, _ := json.Marshal(got[k]["candidates"])
		want, _ := json.Marshal(it.Options)
		if got[k]["question"] != it.Question || string(cands) != string(want) || got[k]["answer"] != answer.Letter(it.Answer) {
			t.Errorf("item %s: Python reads %v", it.ID, got[k])
		}
	}
}
