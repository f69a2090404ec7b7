package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestJSONLReaderReadsOtherLayouts reads lines in the layouts of other tools'
// files (VLMEvalKit's A..P columns and integer index, MVBench's candidates
// with the answer as text, Video-MME's lettered options with a letter
// answer) and checks they become the same item schema.
func TestJSONLReaderReadsOtherLayouts(t *testing.T) {
	t.Parallel()
	const base = `"benchmark": "B", "video": "v.mp4", "question": "What happens?"`
	tests := []struct {
		name    string
		line    string
		id      string
		options []string
		answer  int
	}{
		{"an integer id", `{"id": 17, ` + base + `, "options": ["x", "y"], "answer": 1}`, "17", []string{"x", "y"}, 1},
		{"options under candidates, answer as text", `{"id": "a", ` + base + `, "candidates": ["walks", "runs", "sits"], "answer": "runs"}`, "a", []string{"walks", "runs", "sits"}, 1},
		{"A..D columns, answer as a letter", `{"id": "b", ` + base + `, "A": "red", "B": "blue", "C": "green", "D": null, "answer": "C"}`, "b", []string{"red", "blue", "green"}, 2},
		{"lettered options, answer in parentheses", `{"id": "c", ` + base + `, "options": ["A. up", "B. down"], "answer": "(B)"}`, "c", []string{"A. up", "B. down"}, 1},
		{"a lower-case letter", `{"id": "d", ` + base + `, "options": ["up", "down"], "answer": "a"}`, "d", []string{"up", "down"}, 0},
		{"answer text matching a lettered option", `{"id": "e", ` + base + `, "options": ["A. up", "B. down"], "answer": "down"}`, "e", []string{"A. up", "B. down"}, 1},
		{"options wins over candidates", `{"id": "f", ` + base + `, "options": ["p", "q"], "candidates": ["r", "s", "t"], "answer": 0}`, "f", []string{"p", "q"}, 0},
		{"numeric options as text", `{"id": "g", ` + base + `, "options": ["1", "2", "3"], "answer": "3"}`, "g", []string{"1", "2", "3"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := NewJSONLReader(strings.NewReader(tt.line+"\n"), "x.jsonl").ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			it := items[0]
			if it.ID != tt.id || !slices.Equal(it.Options, tt.options) || it.Answer != tt.answer {
				t.Errorf("got id %q options %q answer %d; want %q %q %d", it.ID, it.Options, it.Answer, tt.id, tt.options, tt.answer)
			}
		})
	}
}

func TestJSONLReaderRefusesUnreadableAnswers(t *testing.T) {
	t.Parallel()
	const base = `"benchmark": "B", "video": "v.mp4", "question": "q"`
	tests := []struct {
		name, line, want string
		reason           error
	}{
		{"a letter past the options", `{"id": "a", ` + base + `, "options": ["x", "y"], "answer": "C"}`, `x.jsonl:1: field answer: answer out of range: "C" is neither an option letter (A-B) nor the text of exactly one of the 2 options`, ErrAnswerRange},
		{"text matching no option", `{"id": "a", ` + base + `, "candidates": ["x", "y"], "answer": "z"}`, `field answer`, ErrAnswerRange},
		{"text matching two options", `{"id": "a", ` + base + `, "options": ["yes", "Yes."], "answer": "yes"}`, `field answer`, ErrAnswerRange},
		{"digits in a string", `{"id": "a", ` + base + `, "options": ["x", "y"], "answer": "1"}`, `could count from 0 or 1`, ErrFieldType},
		{"a fractional id", `{"id": 1.5, ` + base + `, "options": ["x", "y"], "answer": 1}`, `x.jsonl:1: field id: wrong type: 1.5 is not an integer or a string`, ErrFieldType},
		{"one letter column", `{"id": "a", ` + base + `, "A": "x", "answer": "A"}`, `field options: missing field`, ErrMissingField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewJSONLReader(strings.NewReader(tt.line+"\n"), "x.jsonl").ReadAll()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.reason) {
				t.Errorf("error %v; want it to contain %q and wrap %v", err, tt.want, tt.reason)
			}
		})
	}
}

// TestReadFilesReadsParquetInOtherLayouts writes Parquet files as a
// Hugging Face dataset export would (options in a candidates list or in A..D
// columns, the answer as a letter or text, integer ids) and reads them
// through the same layout rules as JSONL.
func TestReadFilesReadsParquetInOtherLayouts(t *testing.T) {
	t.Parallel()
	type candidates struct {
		ID         int64    `parquet:"id"`
		Benchmark  string   `parquet:"benchmark"`
		Video      string   `parquet:"video"`
		Question   string   `parquet:"question"`
		Candidates []string `parquet:"candidates,list"`
		Answer     string   `parquet:"answer"`
	}
	type columns struct {
		ID        string `parquet:"id"`
		Benchmark string `parquet:"benchmark"`
		Video     string `parquet:"video"`
		Question  string `parquet:"question"`
		A         string `parquet:"A"`
		B         string `parquet:"B"`
		C         string `parquet:"C"`
		Answer    string `parquet:"answer"`
	}
	dir := t.TempDir()
	write := func(name string, rows any) string {
		p := filepath.Join(dir, name)
		var buf bytes.Buffer
		var err error
		switch r := rows.(type) {
		case []candidates:
			err = parquet.Write(&buf, r)
		case []columns:
			err = parquet.Write(&buf, r)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("mvbench.parquet", []candidates{
		{7, "MVBench", "v1.mp4", "What happens?", []string{"walks", "runs"}, "runs"},
		{8, "MVBench", "v2.mp4", "Who comes?", []string{"a cat", "a dog", "nobody"}, "C"},
	})
	b := write("mmbench.parquet", []columns{{"q1", "MMB", "v3.mp4", "Colour?", "red", "blue", "green", "(A)"}})
	items, err := ReadFiles(context.Background(), []string{a, b}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%s/%s %v %d %s", it.Benchmark, it.ID, it.Options, it.Answer, filepath.Base(it.Source)))
	}
	want := []string{"MVBench/7 [walks runs] 1 mvbench.parquet: row 1", "MVBench/8 [a cat a dog nobody] 2 mvbench.parquet: row 2", "MMB/q1 [red blue green] 0 mmbench.parquet: row 1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	bad := write("bad.parquet", []candidates{{1, "B", "v", "q", []string{"x", "y"}, "x"}, {2, "B", "v", "q", []string{"x", "y"}, "z"}})
	_, err = ReadFiles(context.Background(), []string{bad}, ReadOptions{})
	if !errors.Is(err, ErrAnswerRange) || !strings.Contains(err.Error(), "bad.parquet: row 2: field answer") {
		t.Errorf("a bad answer in row 2: %v", err)
	}
}
