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
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/formats"
)

func TestPyString(t *testing.T) {
	t.Parallel()
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
	if got := pyList([]string{"a", "cr\r"}); got != `["a","cr\r"]` {
		t.Errorf("pyList of a text with a carriage return = %s, want JSON", got)
	}
}

// TestPyStringIsPythonsRepr: Python itself gives the same text, and reads
// each list back (as VLMEvalKit does with eval) as the options; a list
// that needs escapes vidscreen import does not read is written as JSON,
// which Python reads alike.
func TestPyStringIsPythonsRepr(t *testing.T) {
	t.Parallel()
	plain := []string{"a dog", "it's", `say "hi"`, `it's "x"`, `back\slash`, "tab\tnew\nline", "à droite 中文", "emoji 🎥", ""}
	odd := []string{"bell\x07\x7f", "nbsp\u00a0zwsp\u200b", "line\u2028sep", "cr\r", "a < b & c"}
	all := append(append([]string{}, plain...), odd...)
	lists := [][]string{plain, odd, {"x", "cr\r"}}
	var literals []string
	for _, l := range lists {
		literals = append(literals, pyList(l))
	}
	in, _ := json.Marshal(map[string]any{"all": all, "lists": lists, "literals": literals})
	var got struct {
		Reprs []string   `json:"reprs"`
		Plain string     `json:"plain"`
		Back  [][]string `json:"back"`
	}
	runPython(t, t.TempDir(), fmt.Sprintf(`import ast
d = json.loads(%q)
print(json.dumps({"reprs": [repr(s) for s in d["all"]], "plain": repr(d["lists"][0]), "back": [ast.literal_eval(l) for l in d["literals"]]}))
`, string(in)), &got)
	for i, s := range all {
		if pyString(s) != got.Reprs[i] {
			t.Errorf("pyString(%q) = %s, Python writes %s", s, pyString(s), got.Reprs[i])
		}
	}
	if literals[0] != got.Plain {
		t.Errorf("pyList = %s, Python's repr %s", literals[0], got.Plain)
	}
	for i, l := range lists {
		if !slices.Equal(got.Back[i], l) {
			t.Errorf("Python reads %s as %q, want %q", literals[i], got.Back[i], l)
		}
	}
	if !strings.HasPrefix(literals[1], `["`) {
		t.Errorf("a list needing \\x escapes written as %s, want JSON", literals[1])
	}
}

// TestVLMEvalKitTableImportsBack: vidscreen's own VLMEvalKit reader reads
// every text of the table exactly, odd characters included.
func TestVLMEvalKitTableImportsBack(t *testing.T) {
	t.Parallel()
	r := testRelease(t)
	r.Items[0].Options = []string{"cr\rhere", "bell\x07", "it's \"q\"", "a\\b"}
	p := filepath.Join(t.TempDir(), "release.tsv")
	if err := VLMEvalKit(context.Background(), r, p); err != nil {
		t.Fatal(err)
	}
	res, err := formats.VLMEvalKit().Read(context.Background(), []string{p}, items.Options{IndexBase: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(r.Items) {
		t.Fatalf("%d rows, want %d", len(res.Rows), len(r.Items))
	}
	for i, it := range r.Items {
		row := res.Rows[i]
		if row.ID != it.ID || row.Video != it.Video || row.Question != it.Question || !slices.Equal(row.Options, it.Options) ||
			row.Gold != answer.Letter(it.Answer) || row.Task != it.Task {
			t.Errorf("item %s read back as %+v", it.ID, row)
		}
	}
}

func TestVLMEvalKitTable(t *testing.T) {
	t.Parallel()
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
