package harness

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestJSONLReaderReadsFixture(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	items, err := NewJSONLReader(f, "items.jsonl").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 6 {
		t.Fatalf("got %d items, want 6 (the blank line is skipped)", len(items))
	}
	first := items[0]
	if first.ID != "val/4010069381_6" || first.Benchmark != "NExT-QA" || first.Answer != 0 || len(first.Options) != 5 || first.Task != "CH" || first.Duration != nil {
		t.Errorf("first item = %+v", first)
	}
	if first.Source != "items.jsonl:1" {
		t.Errorf("Source = %q, want items.jsonl:1", first.Source)
	}
	c := items[4]
	if c.Group != "perception" || c.VideoPath != "videos/big_buck_bunny_0_30.webm" || *c.Start != 0 || *c.End != 30 || *c.Duration != 30 {
		t.Errorf("optional fields = %+v", c)
	}
	if string(c.Meta) != `{"source":"Zulko/moviepy","tags":["cc-by"]}` {
		t.Errorf("meta = %s, want it compacted", c.Meta)
	}
	if c.Source != "items.jsonl:6" {
		t.Errorf("Source = %q: lines are counted with the blank one", c.Source)
	}
	if last := items[5]; last.Task != "" || last.Duration != nil {
		t.Errorf("task and duration may be omitted: %+v", last)
	}
}

const good = `{"id": "q1", "benchmark": "B", "video": "v", "question": "what?", "options": ["a", "b", "c"], "answer": 2, "task": "t", "duration": 1.5}`

func TestJSONLReaderRefusesBadItems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		line  string
		field string
		want  error
	}{
		{"a missing id", `{"benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0}`, "id", ErrMissingField},
		{"a missing answer", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"]}`, "answer", ErrMissingField},
		{"a null question", `{"id": "q", "benchmark": "B", "video": "v", "question": null, "options": ["a","b"], "answer": 0}`, "question", ErrFieldType},
		{"a fractional id (integer ids are read as strings)", `{"id": 7.5, "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0}`, "id", ErrFieldType},
		{"an answer given as a string", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": "0"}`, "answer", ErrFieldType},
		{"a fractional answer", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 1.5}`, "answer", ErrFieldType},
		{"an answer past the options", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 2}`, "answer", ErrAnswerRange},
		{"a negative answer", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": -1}`, "answer", ErrAnswerRange},
		{"one option", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a"], "answer": 0}`, "options", ErrTooFewOptions},
		{"seventeen options", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q"], "answer": 0}`, "options", ErrTooManyOptions},
		{"options as a string", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": "a,b", "answer": 0}`, "options", ErrFieldType},
		{"a numeric option", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a", 2], "answer": 0}`, "options[1]", ErrFieldType},
		{"an empty benchmark", `{"id": "q", "benchmark": "", "video": "v", "question": "q", "options": ["a","b"], "answer": 0}`, "benchmark", ErrEmptyField},
		{"invalid UTF-8 in the question", "{\"id\": \"q\", \"benchmark\": \"B\", \"video\": \"v\", \"question\": \"q\xff\", \"options\": [\"a\",\"b\"], \"answer\": 0}", "question", ErrInvalidUTF8},
		{"invalid UTF-8 in an option", "{\"id\": \"q\", \"benchmark\": \"B\", \"video\": \"v\", \"question\": \"q\", \"options\": [\"a\",\"\xc3(\"], \"answer\": 0}", "options", ErrInvalidUTF8},
		{"a video_path with ..", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0, "video_path": "../secret.mp4"}`, "video_path", ErrVideoPathEscape},
		{"an absolute video_path", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0, "video_path": "/etc/passwd"}`, "video_path", ErrVideoPathEscape},
		{"a negative duration", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0, "duration": -1}`, "duration", ErrBadValue},
		{"an end before the start", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0, "start": 5, "end": 2}`, "end", ErrBadValue},
		{"an empty clip", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0, "start": 5, "end": 5}`, "end", ErrBadValue},
		{"an empty clip from the start", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0, "end": 0}`, "end", ErrBadValue},
		{"a question past MaxTextBytes", `{"id": "q", "benchmark": "B", "video": "v", "question": "` + strings.Repeat("a", MaxTextBytes+1) + `", "options": ["a","b"], "answer": 0}`, "question", ErrTooLarge},
		{"an option past MaxTextBytes", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","` + strings.Repeat("b", MaxTextBytes+1) + `"], "answer": 0}`, "options[1]", ErrTooLarge},
		{"an answer of 2^64-1", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 18446744073709551615}`, "answer", ErrAnswerRange},
		{"a duration given as text", `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0, "duration": "3s"}`, "duration", ErrFieldType},
		{"a truncated line", `{"id": "q", "benchmark": "B"`, "", ErrSyntax},
		{"an array instead of an object", `["q"]`, "", ErrSyntax},
		{"a null line", `null`, "", ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := good + "\n" + tt.line + "\n" + good + "\n"
			r := NewJSONLReader(strings.NewReader(in), "f.jsonl")
			r.VideoRoot = "videos" // video_path is checked only against a root
			if _, err := r.Read(); err != nil {
				t.Fatalf("first line: %v", err)
			}
			it, err := r.Read()
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got item %+v, error %v; want a *ParseError", it, err)
			}
			if pe.File != "f.jsonl" || pe.Line != 2 || pe.Field != tt.field || !errors.Is(err, tt.want) {
				t.Errorf("got %#v (%v); want f.jsonl line 2 field %q, %v", pe, err, tt.field, tt.want)
			}
			if _, err2 := r.Read(); err2 != err {
				t.Errorf("a later Read returned %v, want the same error again", err2)
			}
		})
	}
}

func TestVideoPathSymlinkOutsideRootIsRefused(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "v.mp4"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "v.mp4"), filepath.Join(root, "link.mp4")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "in.mp4"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	line := func(p string) string {
		return `{"id": "q", "benchmark": "B", "video": "v", "question": "q", "options": ["a","b"], "answer": 0, "video_path": "` + p + `"}`
	}
	for _, tt := range []struct {
		path string
		want error
	}{{"in.mp4", nil}, {"missing/later.mp4", nil}, {"link.mp4", ErrVideoPathEscape}} {
		r := NewJSONLReader(strings.NewReader(line(tt.path)), "f.jsonl")
		r.VideoRoot = root
		_, err := r.Read()
		if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
			t.Errorf("video_path %q: got %v, want %v", tt.path, err, tt.want)
		}
	}
}

func TestReadFilesRefusesDuplicateIDsWithinABenchmark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := strings.Replace(good, `"B"`, `"Other"`, 1)
	write(a, good+"\n"+other+"\n")
	write(b, "\n"+good+"\n")
	items, err := ReadFiles(context.Background(), []string{a}, ReadOptions{})
	if err != nil || len(items) != 2 {
		t.Fatalf("the same id in two benchmarks is allowed: %v, %d items", err, len(items))
	}
	_, err = ReadFiles(context.Background(), []string{a, b}, ReadOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != b || pe.Line != 2 || pe.Field != "id" || !errors.Is(err, ErrDuplicateID) {
		t.Fatalf("got %v, want a duplicate id at %s:2", err, b)
	}
	if !strings.Contains(err.Error(), a+":1") {
		t.Errorf("error %q does not name the first occurrence", err)
	}
}

// pqItem is the row layout of the Parquet fixtures the tests write.
type pqItem struct {
	ID        string   `parquet:"id"`
	Benchmark string   `parquet:"benchmark"`
	Video     string   `parquet:"video"`
	Question  string   `parquet:"question"`
	Options   []string `parquet:"options,list"`
	Answer    int64    `parquet:"answer"`
	Task      string   `parquet:"task"`
	Duration  *float64 `parquet:"duration,optional"`
	Meta      string   `parquet:"meta,optional"`
}

func writeParquet[T any](t testing.TB, rows []T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParquetReaderReadsItems(t *testing.T) {
	t.Parallel()
	d := 8.5
	rows := []pqItem{
		{ID: "a", Benchmark: "B", Video: "v1", Question: "q1", Options: []string{"x", "y", "z"}, Answer: 2, Task: "t", Duration: &d, Meta: `{"k": 1}`},
		{ID: "b", Benchmark: "B", Video: "v2", Question: "q2", Options: []string{"yes", "no"}, Answer: 1},
	}
	b := writeParquet(t, rows)
	r, err := NewParquetReader(bytes.NewReader(b), int64(len(b)), "f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	items, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("got %d items", len(items))
	}
	a := items[0]
	if a.ID != "a" || a.Answer != 2 || strings.Join(a.Options, "|") != "x|y|z" || *a.Duration != 8.5 || string(a.Meta) != `{"k":1}` || a.Source != "f.parquet: row 1" {
		t.Errorf("row 1 = %+v", a)
	}
	if items[1].Duration != nil || items[1].Meta != nil || len(items[1].Options) != 2 {
		t.Errorf("row 2 = %+v", items[1])
	}
}

// TestHugeAnswerNamesTheNumber: an answer of 2^64-1 in an unsigned
// Parquet column was reported as "-1 is not an index", and in JSONL as
// "not an integer"; both now say the number given.
func TestHugeAnswerNamesTheNumber(t *testing.T) {
	t.Parallel()
	type unsignedAnswer struct {
		ID        string   `parquet:"id"`
		Benchmark string   `parquet:"benchmark"`
		Video     string   `parquet:"video"`
		Question  string   `parquet:"question"`
		Options   []string `parquet:"options,list"`
		Answer    uint64   `parquet:"answer"`
	}
	dir := t.TempDir()
	pq := filepath.Join(dir, "u.parquet")
	row := unsignedAnswer{ID: "a", Benchmark: "B", Video: "v", Question: "q", Options: []string{"x", "y"}}
	big := row
	big.ID, big.Answer = "b", math.MaxUint64
	if err := os.WriteFile(pq, writeParquet(t, []unsignedAnswer{row, big}), 0o644); err != nil {
		t.Fatal(err)
	}
	jl := filepath.Join(dir, "u.jsonl")
	if err := os.WriteFile(jl, []byte(`{"id": "a", "benchmark": "B", "video": "v", "question": "q", "options": ["x","y"], "answer": 18446744073709551615}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, where string }{{pq, "u.parquet: row 2: field answer"}, {jl, "u.jsonl:1: field answer"}} {
		_, err := ReadFiles(context.Background(), []string{tc.path}, ReadOptions{})
		if !errors.Is(err, ErrAnswerRange) || !strings.Contains(err.Error(), tc.where) || !strings.Contains(err.Error(), "18446744073709551615 is not an index") {
			t.Errorf("%s: %v; want %q and the number given", tc.path, err, tc.where)
		}
	}
}

func TestParquetReaderRefusesBadItems(t *testing.T) {
	t.Parallel()
	ok := pqItem{ID: "a", Benchmark: "B", Video: "v", Question: "q", Options: []string{"x", "y"}}
	bad := func(f func(*pqItem)) []pqItem {
		b := ok
		f(&b)
		b.ID = "b"
		return []pqItem{ok, b}
	}
	type noAnswer struct {
		ID        string   `parquet:"id"`
		Benchmark string   `parquet:"benchmark"`
		Video     string   `parquet:"video"`
		Question  string   `parquet:"question"`
		Options   []string `parquet:"options,list"`
	}
	type textAnswer struct {
		ID        string   `parquet:"id"`
		Benchmark string   `parquet:"benchmark"`
		Video     string   `parquet:"video"`
		Question  string   `parquet:"question"`
		Options   []string `parquet:"options,list"`
		Answer    string   `parquet:"answer"`
	}
	tests := []struct {
		name  string
		file  []byte
		row   int
		field string
		want  error
	}{
		{"an answer out of range", writeParquet(t, bad(func(p *pqItem) { p.Answer = 5 })), 2, "answer", ErrAnswerRange},
		{"one option", writeParquet(t, bad(func(p *pqItem) { p.Options = []string{"x"} })), 2, "options", ErrTooFewOptions},
		{"no options", writeParquet(t, bad(func(p *pqItem) { p.Options = nil })), 2, "options", ErrTooFewOptions},
		{"invalid UTF-8", writeParquet(t, bad(func(p *pqItem) { p.Question = "\xff" })), 2, "question", ErrInvalidUTF8},
		{"meta that is not JSON", writeParquet(t, bad(func(p *pqItem) { p.Meta = "{" })), 2, "meta", ErrSyntax},
		{"a duplicate id", writeParquet(t, []pqItem{ok, ok}), 2, "id", ErrDuplicateID},
		{"no answer column", writeParquet(t, []noAnswer{{ID: "a"}}), 0, "answer", ErrMissingField},
		// A text answer is read as a letter or an option's text (layout.go).
		{"a text answer naming no option", writeParquet(t, []textAnswer{{ID: "a", Benchmark: "B", Video: "v", Question: "q", Options: []string{"x", "y"}, Answer: "z"}}), 1, "answer", ErrAnswerRange},
		{"not Parquet at all", []byte("PAR1 nope"), 0, "", ErrParquet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f.parquet")
			if err := os.WriteFile(p, tt.file, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFiles(context.Background(), []string{p}, ReadOptions{})
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Row != tt.row || pe.Line != 0 || pe.Field != tt.field || !errors.Is(err, tt.want) {
				t.Fatalf("got %v; want row %d field %q, %v", err, tt.row, tt.field, tt.want)
			}
		})
	}
}
