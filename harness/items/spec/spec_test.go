package spec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// write puts files into a fresh folder and returns its path.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// got is the part of a row the tests compare.
type got struct {
	ID, Video, Question string
	Options             []string
	Gold                int
	Task, Group         string
	Duration            float64
	DurationGroup       string
	Start, End          float64
	Source              string
}

func summarise(rows []items.Row) []got {
	var out []got
	for _, r := range rows {
		g := got{ID: r.ID, Video: r.Video, Question: r.Question, Options: r.Options, Gold: r.GoldIndex,
			Task: r.Task, Group: r.Group, DurationGroup: r.DurationGroup, Source: filepath.Base(r.Source)}
		if r.Duration != nil {
			g.Duration = *r.Duration
		}
		if r.Start != nil {
			g.Start = *r.Start
		}
		if r.End != nil {
			g.End = *r.End
		}
		out = append(out, g)
	}
	return out
}

func TestReadShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []got
		drops []string // reasons, in order
	}{{
		name: "option list, letter gold, video from a template",
		files: map[string]string{
			"spec.yaml": `name: CG
files: ["cgbench.json"]
fields:
  question: question
  options: choices
  answer: right_answer
  subtask: sub_category
  video: "{video_uid}.mp4"
  duration: duration
answer_type: letter
`,
			"cgbench.json": `[
  {"qid": 26, "video_uid": "BV1", "question": "What is held?", "choices": ["A. a cup", "B. a pen", "C. a key"], "right_answer": "B", "sub_category": "objects", "duration": 1320},
  {"qid": 27, "video_uid": "BV2", "question": "Which order?", "choices": ["(b)(a)(c).", "(a)(b)(c).", "(c)(b)(a)."], "right_answer": "A", "sub_category": "order", "duration": 60.5}
]`,
		},
		want: []got{
			{ID: "CG_0", Video: "BV1.mp4", Question: "What is held?", Options: []string{"a cup", "a pen", "a key"}, Gold: 1, Task: "objects", Duration: 1320, Source: "cgbench.json: row 1"},
			{ID: "CG_1", Video: "BV2.mp4", Question: "Which order?", Options: []string{"(b)(a)(c).", "(a)(b)(c).", "(c)(b)(a)."}, Gold: 0, Task: "order", Duration: 60.5, Source: "cgbench.json: row 2"},
		},
	}, {
		name: "records path with __key, option dict, index0 gold, nested fields, converters",
		files: map[string]string{
			"spec.yaml": `name: PLM
files: ["fgqa.json"]
records: data.*.*
fields:
  id: "{__key}/{metadata.qid|int}"
  question: metadata.question
  options: options
  answer: answer_idx
  subtask: metadata.question_type
  video: "{metadata.video|stem}.mp4"
  start: "{metadata.start|sec}"
  end: metadata.end
answer_type: index0
group: fine-grained
`,
			"fgqa.json": `{"data": {
  "vidB": [{"metadata": {"qid": 2.0, "question": "Next step?", "question_type": "steps", "video": "clips/vidB.webm", "start": "00:01:05", "end": 70}, "options": {"option_1": "stir", "option_0": "pour", "option_2": ""}, "answer_idx": 1}],
  "vidA": [{"metadata": {"qid": 1, "question": "Tool?", "question_type": "tools", "video": "vidA.mp4", "start": 0, "end": "12.5"}, "options": {"B": "knife", "A": "spoon"}, "answer_idx": "0"}]
}}`,
		},
		want: []got{
			{ID: "vidA/1", Video: "vidA.mp4", Question: "Tool?", Options: []string{"spoon", "knife"}, Gold: 0, Task: "tools", Group: "fine-grained", End: 12.5, Source: "fgqa.json: row 1"},
			{ID: "vidB/2", Video: "vidB.mp4", Question: "Next step?", Options: []string{"pour", "stir"}, Gold: 1, Task: "steps", Group: "fine-grained", Start: 65, End: 70, Source: "fgqa.json: row 2"},
		},
	}, {
		name: "one column per option, index gold, a filter, CSV",
		files: map[string]string{
			"spec.yaml": `name: NQ
files: ["val.csv"]
fields:
  id: "val/{video}_{qid}"
  question: question
  option_fields: [a0, a1, a2, a3, a4]
  answer: answer
  subtask: type
  video: "{video}.mp4"
answer_type: index0
filters:
  - {field: type, not_in: [TN]}
`,
			"val.csv": "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4\n" +
				"4010069381,369,640,480,why is the baby crying,2,0,CW,hungry,tired,fell down,wet,scared\n" +
				"4010069381,369,640,480,what does the man do next,1,1,TN,sit,stand,run,jump,walk\n" +
				"4010069381,369,640,480,\"how many, in all\",0,2,DC,two,,three,,\n",
		},
		want: []got{
			{ID: "val/4010069381_0", Video: "4010069381.mp4", Question: "why is the baby crying", Options: []string{"hungry", "tired", "fell down", "wet", "scared"}, Gold: 2, Task: "CW", Source: "val.csv:2"},
			{ID: "val/4010069381_2", Video: "4010069381.mp4", Question: "how many, in all", Options: []string{"two", "", "three"}, Gold: 0, Task: "DC", Source: "val.csv:4"},
		},
	}, {
		name: "options as a string holding a list, columns with spaces, JSON Lines, dedupe, open-ended",
		files: map[string]string{
			"spec.yaml": `name: LM
files: ["*.jsonl"]
fields:
  question: Question Text
  options: Answer Options
  answer: Correct Answer
  video: "{Video Name}.mp4"
dedupe: true
`,
			"lemonade.jsonl": `{"Video Name": "v1", "Question Text": "What next?", "Answer Options": "['open', \"it's closed\", 'wait']", "Correct Answer": "it's closed"}
{"Video Name": "v1", "Question Text": "What next?", "Answer Options": "['open', 'shut']", "Correct Answer": "A"}
{"Video Name": "v2", "Question Text": "Which two?", "Answer Options": "['x', 'y', 'z']", "Correct Answer": "A, C"}
{"Video Name": "v3", "Question Text": "Name it", "Answer Options": "", "Correct Answer": "a dog"}
`,
		},
		want: []got{
			{ID: "LM_0", Video: "v1.mp4", Question: "What next?", Options: []string{"open", "it's closed", "wait"}, Gold: 1, Source: "lemonade.jsonl:1"},
		},
		drops: []string{
			"dedupe: repeats the video and question of",
			"open-ended: the answer \"A, C\" names several options (A, C)",
			"open-ended: the record has no options",
		},
	}, {
		name: "options inside the question, keep mcq, a duration category",
		files: map[string]string{
			"spec.yaml": `name: TC
files: ["tc.json"]
fields:
  question: question
  answer: answer
  video: "{video}.mp4"
  duration: duration
keep: mcq
`,
			"tc.json": `{"items": [
  {"video": "a", "question": "How fast is it?\nA. slow\nB. fast\nC. still", "answer": "B", "duration": "short"},
  {"video": "b", "question": "Describe it", "answer": "a bird", "duration": "long"}
]}`,
		},
		want: []got{
			{ID: "TC_0", Video: "a.mp4", Question: "How fast is it?", Options: []string{"slow", "fast", "still"}, Gold: 1, DurationGroup: "short", Source: "tc.json: row 1"},
		},
		drops: []string{"keep: mcq: the record has no options"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, tc.files)
			s, err := Load(filepath.Join(dir, "spec.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Read(context.Background(), nil, items.NoOptions())
			if err != nil {
				t.Fatal(err)
			}
			if g := summarise(res.Rows); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("rows:\n got  %+v\n want %+v", g, tc.want)
			}
			if len(res.Dropped) != len(tc.drops) {
				t.Fatalf("dropped %+v, want %d", res.Dropped, len(tc.drops))
			}
			for i, d := range res.Dropped {
				if !strings.HasPrefix(d.Reason, tc.drops[i]) {
					t.Errorf("drop %d: %q, want it to start %q", i, d.Reason, tc.drops[i])
				}
				if d.OpenEnded != strings.HasPrefix(d.Reason, "open-ended") {
					t.Errorf("drop %d: OpenEnded %v for %q", i, d.OpenEnded, d.Reason)
				}
			}
			again, err := s.Read(context.Background(), nil, items.NoOptions())
			if err != nil || !reflect.DeepEqual(again, res) {
				t.Errorf("a second read differs (err %v)", err)
			}
		})
	}
}

func TestReadParquet(t *testing.T) {
	t.Parallel()
	type row struct {
		VideoID  string   `parquet:"video_id"`
		Duration string   `parquet:"duration"`
		VideoIDF string   `parquet:"videoID"`
		Question string   `parquet:"question"`
		Options  []string `parquet:"options,list"`
		Answer   string   `parquet:"answer"`
		Task     string   `parquet:"task_type"`
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "test-00000-of-00001.parquet")
	if err := parquet.WriteFile(p, []row{
		{"001", "short", "fFjv93ACGo8", "What is shown?", []string{"A. a cat", "B. a dog", "C. a car", "D. a boat"}, "C", "Counting"},
		{"001", "short", "fFjv93ACGo8", "Which order?", []string{"A. (b)(a).", "B. (a)(b).", "C. none", "D. both"}, "A", "Temporal"},
	}); err != nil {
		t.Fatal(err)
	}
	s, desc, err := Guess("Video-MME", []string{p})
	if err != nil {
		t.Fatal(err)
	}
	if want := "video=videoID question=question options=options answer=answer subtask=task_type duration=duration"; desc != want {
		t.Errorf("guessed %q, want %q", desc, want)
	}
	res, err := s.Read(context.Background(), []string{p}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []got{
		{ID: "Video-MME_0", Video: "fFjv93ACGo8", Question: "What is shown?", Options: []string{"a cat", "a dog", "a car", "a boat"}, Gold: 2, Task: "Counting", DurationGroup: "short", Source: "test-00000-of-00001.parquet: row 1"},
		{ID: "Video-MME_1", Video: "fFjv93ACGo8", Question: "Which order?", Options: []string{"(b)(a).", "(a)(b).", "none", "both"}, Gold: 0, Task: "Temporal", DurationGroup: "short", Source: "test-00000-of-00001.parquet: row 2"},
	}
	if g := summarise(res.Rows); !reflect.DeepEqual(g, want) {
		t.Errorf("rows:\n got  %+v\n want %+v", g, want)
	}
}

func TestGuessTable(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{
		"Video-MME.tsv": "index\tvideo\tquestion\tA\tB\tC\tD\tanswer\tcategory\n" +
			"0\tv1\tWhat colour?\tred\t\tgreen\tblue\tD\tcolour\n",
		"bad.csv": "clip_name,prompt_text,gold\nx,y,A\n",
	})
	s, desc, err := Guess("", []string{filepath.Join(dir, "Video-MME.tsv")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "id=index video=video question=question option_fields=A,B,C,D answer=answer subtask=category"; desc != want {
		t.Errorf("guessed %q, want %q", desc, want)
	}
	res, err := s.Read(context.Background(), []string{filepath.Join(dir, "Video-MME.tsv")}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []got{{ID: "0", Video: "v1", Question: "What colour?", Options: []string{"red", "", "green", "blue"}, Gold: 3, Task: "colour", Source: "Video-MME.tsv:2"}}
	if g := summarise(res.Rows); !reflect.DeepEqual(g, want) {
		t.Errorf("rows:\n got  %+v\n want %+v", g, want)
	}
	_, _, err = Guess("", []string{filepath.Join(dir, "bad.csv")})
	if err == nil || !strings.Contains(err.Error(), "field detection failed (video=none, question=none); the columns are clip_name, gold, prompt_text") {
		t.Errorf("err = %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	base := "name: B\nfiles: [\"d.json\"]\nfields: {question: q, options: o, answer: a, video: \"{v}.mp4\"}\n"
	tests := []struct {
		name, spec, data string
		opt              items.Options
		wantErr          string
		is               error
	}{
		{"unknown key names its line", "name: B\nfiles: [d.json]\nfeilds: {}\n", "[]", items.NoOptions(), "line 3: field feilds not found", ErrSpec},
		{"unknown converter", "name: B\nfiles: [d.json]\nfields: {video: \"{v|upper}\"}\n", "[]", items.NoOptions(), "unknown converter \"upper\"", ErrSpec},
		{"no name", "files: [d.json]\n", "[]", items.NoOptions(), "name: required", ErrSpec},
		{"a missing video names row and field", base, `[{"q": "x?", "o": ["a", "b"], "a": "A"}]`, items.NoOptions(), "d.json: row 1: field v: missing field", harness.ErrMissingField},
		{"an answer past the options", base + "answer_type: letter\n", `[{"v": "1", "q": "x?", "o": ["a", "b"], "a": "D"}]`, items.NoOptions(), "d.json: row 1: field a: answer out of range", harness.ErrAnswerRange},
		{"a digit gold without an index base", base, `[{"v": "1", "q": "x?", "o": ["a", "b", "c"], "a": 1}]`, items.NoOptions(), "option B (\"b\") counted from 0, option A (\"a\") counted from 1", items.ErrAmbiguousIndex},
		{"a digit gold under letter", base + "answer_type: letter\n", `[{"v": "1", "q": "x?", "o": ["a", "b", "c"], "a": "1"}]`, items.NoOptions(), "a number, not a letter", harness.ErrBadValue},
		{"a missing option before a given one", "name: B\nfiles: [d.json]\nfields: {question: q, option_fields: [a0, a1, a2, a3], answer: a, video: v}\nanswer_type: index0\n",
			`[{"v": "1", "q": "x?", "a0": "p", "a1": "q", "a3": "s", "a": 0}]`, items.NoOptions(), "d.json: row 1: field a2: missing field: option a2 is missing", harness.ErrMissingField},
		{"options of the wrong type", base, `[{"v": "1", "q": "x?", "o": "a or b", "a": "A"}]`, items.NoOptions(), "field o: wrong type: want a list of options", harness.ErrFieldType},
		{"no file matches", "name: B\nfiles: [\"missing*.json\"]\n", "[]", items.NoOptions(), "no file matches", ErrSpec},
		{"an object with no list", base, `{"a": 1}`, items.NoOptions(), "set records:", harness.ErrFieldType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, map[string]string{"spec.yaml": tc.spec, "d.json": tc.data})
			s, err := Load(filepath.Join(dir, "spec.yaml"))
			if err == nil {
				_, err = s.Read(context.Background(), nil, tc.opt)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want one containing %q and wrapping %v", err, tc.wantErr, tc.is)
			}
		})
	}
	// The index base the user gives settles the digit gold.
	dir := write(t, map[string]string{"spec.yaml": base, "d.json": `[{"v": "1", "q": "x?", "o": ["a", "b", "c"], "a": 1}]`})
	s, err := Load(filepath.Join(dir, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for base, want := range map[int]int{0: 1, 1: 0} {
		res, err := s.Read(context.Background(), nil, items.Options{IndexBase: base})
		if err != nil || res.Rows[0].GoldIndex != want {
			t.Errorf("--index-base %d: %v, %+v; want gold %d", base, err, res, want)
		}
	}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	rec := map[string]any{"id": 7.0, "path": "a/b/c.mp4", "t": "01:02:03.5", "n": "3", "l": []any{"x", "y"}, "m": map[string]any{"k": "v"}}
	tests := map[string]string{
		"{id|int}.mp4":           "7.mp4",
		"{path|basename}":        "c.mp4",
		"{path|stem}":            "c",
		"{path|dir0}":            "a",
		"{path|strip:a/}":        "b/c.mp4",
		"{t|sec}":                "3723.5",
		"{n|letter0}{n|letter1}": "DC",
		"{l|first}|{m.k}":        "x|v",
		"{path|upper}":           "error",
		"{missing}":              "absent",
	}
	for tmpl, want := range tests {
		tp, err := compile(tmpl)
		if err != nil {
			if want != "error" {
				t.Errorf("%s: %v", tmpl, err)
			}
			continue
		}
		v, ok, err := tp.eval(rec)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tmpl, err)
		case !ok:
			if want != "absent" {
				t.Errorf("%s: absent, want %q", tmpl, want)
			}
		case v != want:
			t.Errorf("%s = %q, want %q", tmpl, v, want)
		}
	}
}
