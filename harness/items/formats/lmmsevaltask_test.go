package formats

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

func fptr(f float64) *float64 { return &f }

// taskDataset is dataset.jsonl as `vidscreen select --export-lmms-eval`
// writes it (package harness/release/export, which this package's tests
// cannot import: it imports the readers), with the items it holds.
// harness/release/export's and cmd/vidscreen's tests check the export and
// the round trip through vidscreen import.
func taskDataset(t *testing.T) ([]*harness.Item, string) {
	t.Helper()
	name := "vidscreen-00112233aabbccdd"
	want := []*harness.Item{
		{ID: "nextqa/val/4010069381_3", Benchmark: name, Video: "4010069381", VideoPath: "nextqa/4010069381.mp4",
			Question: "why did the boy pick up the ball?", Options: []string{"to throw it", "it's his", "to \"hide\" it"},
			Answer: 1, Task: "CW", Group: "reasoning", Duration: fptr(40),
			Meta: json.RawMessage(`{"source":"nextqa","source_id":"val/4010069381_3","option_order":[2,0,1],"source_meta":{"frames":1217}}`)},
		{ID: "star/Interaction_T1_13", Benchmark: name, Video: "6H78U", Question: "Which object was tidied up?",
			Options: []string{"The closet.", "The blanket."}, Answer: 0, Task: "Interaction", Start: fptr(11.1), End: fptr(19.6)},
	}
	lines := `{"item_id":"nextqa/val/4010069381_3","vidscreen_release":"vidscreen-00112233aabbccdd","video":"4010069381","video_path":"nextqa/4010069381.mp4","question":"why did the boy pick up the ball?","options":["to throw it","it's his","to \"hide\" it"],"answer":"B","answer_index":1,"task":"CW","group":"reasoning","duration":40.0,"start":null,"end":null,"blind_orders":[[2,0,1],[0,1,2],[1,2,0],[2,0,1]],"meta":"{\"option_order\":[2,0,1],\"source\":\"nextqa\",\"source_id\":\"val/4010069381_3\",\"source_meta\":{\"frames\":1217}}"}
{"item_id":"star/Interaction_T1_13","vidscreen_release":"vidscreen-00112233aabbccdd","video":"6H78U","video_path":"","question":"Which object was tidied up?","options":["The closet.","The blanket."],"answer":"A","answer_index":0,"task":"Interaction","group":"","duration":null,"start":11.1,"end":19.6,"blind_orders":[[1,0],[0,1],[1,0],[0,1]],"meta":""}
`
	p := filepath.Join(t.TempDir(), "dataset.jsonl")
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return want, p
}

func TestLMMSEvalTaskRoundTrip(t *testing.T) {
	want, path := taskDataset(t)
	f := LMMSEvalTask()
	head, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := items.Detect(All(), path, head); err != nil || got.Name != f.Name {
		t.Errorf("auto detects %q (%v), want %s", got.Name, err, f.Name)
	}
	res, err := f.Read(context.Background(), []string{path}, items.Options{IndexBase: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(want) || len(res.Dropped) != 0 {
		t.Fatalf("%d rows, %d dropped", len(res.Rows), len(res.Dropped))
	}
	for i, it := range want {
		row := res.Rows[i]
		if row.ID != it.ID || row.Benchmark != it.Benchmark || row.Video != it.Video || row.VideoPath != it.VideoPath || row.Question != it.Question ||
			!slices.Equal(row.Options, it.Options) || row.GoldIndex != it.Answer || row.Task != it.Task || row.Group != it.Group ||
			!reflect.DeepEqual(row.Duration, it.Duration) || !reflect.DeepEqual(row.Start, it.Start) || !reflect.DeepEqual(row.End, it.End) ||
			row.HasPrediction || row.Line != i+1 {
			t.Errorf("row %d: %+v, want item %+v", i, row, it)
		}
		var meta map[string]any
		if len(it.Meta) > 0 {
			dec := json.NewDecoder(strings.NewReader(string(it.Meta)))
			dec.UseNumber()
			if err := dec.Decode(&meta); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(row.Meta, meta) {
			t.Errorf("row %d: meta %v, want %v", i, row.Meta, meta)
		}
	}
}

func TestLMMSEvalTaskDetect(t *testing.T) {
	t.Parallel()
	_, path := taskDataset(t)
	exported, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		head string
		want bool
	}{
		{"exported", string(exported), true},
		{"with a byte order mark", "\ufeff" + string(exported), true},
		{"vidscreen items", `{"id":"1","benchmark":"b","video":"v","question":"q","options":["a","b"],"answer":0,"task":"","duration":null}` + "\n", false},
		{"lmms-eval samples", `{"doc_id": 0, "target": "B", "filtered_resps": ["B"], "input": "Question: q\nA. a\nB. b"}` + "\n", false},
		{"item_id without a release", `{"item_id":"x","video":"v"}` + "\n", false},
	}
	for _, c := range cases {
		if got := LMMSEvalTask().Detect("dataset.jsonl", []byte(c.head)); got != c.want {
			t.Errorf("%s: detect %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLMMSEvalTaskErrors(t *testing.T) {
	t.Parallel()
	_, path := taskDataset(t)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(good), "\n")
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(first), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	cases := []struct {
		name, line, field string
		reason            error
	}{
		{"not JSON", `{"item_id": "x",`, "", harness.ErrSyntax},
		{"no item_id", edit(func(m map[string]any) { delete(m, "item_id") }), "item_id", harness.ErrMissingField},
		{"no release", edit(func(m map[string]any) { m["vidscreen_release"] = "" }), "vidscreen_release", harness.ErrMissingField},
		{"options not a list", edit(func(m map[string]any) { m["options"] = "a, b" }), "options", harness.ErrFieldType},
		{"answer_index past the options", edit(func(m map[string]any) { m["answer_index"] = 3; m["answer"] = "D" }), "answer_index", harness.ErrAnswerRange},
		{"letter and index disagree", edit(func(m map[string]any) { m["answer"] = "A" }), "answer", harness.ErrBadValue},
		{"meta not an object", edit(func(m map[string]any) { m["meta"] = "[1, 2]" }), "meta", harness.ErrFieldType},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The bad document is the second line.
			p := writeFile(t, t.TempDir(), "dataset.jsonl", first+"\n"+c.line+"\n")
			_, err := LMMSEvalTask().Read(context.Background(), []string{p}, items.NoOptions())
			wantParseError(t, err, p, 2, c.field, c.reason)
		})
	}
	empty := filepath.Join(t.TempDir(), "dataset.jsonl")
	if err := os.WriteFile(empty, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LMMSEvalTask().Read(context.Background(), []string{empty}, items.Options{}); !errors.Is(err, harness.ErrNoItems) {
		t.Errorf("empty file: %v", err)
	}
}

// FuzzLMMSEvalTask: any file reads as rows or as a *harness.ParseError,
// never a panic; a row read has its gold among its options.
func FuzzLMMSEvalTask(f *testing.F) {
	f.Add([]byte(`{"item_id":"a/1","vidscreen_release":"r","video":"v","video_path":"","question":"q","options":["x","y"],"answer":"B","answer_index":1,"task":"","group":"","duration":null,"start":null,"end":null,"blind_orders":[[0,1]],"meta":""}` + "\n"))
	f.Add([]byte(`{"item_id":1}`))
	f.Add([]byte("\ufeff{}\n\n"))
	fuzzRead(f, "dataset.jsonl", LMMSEvalTask().Read, goldInRange)
}
