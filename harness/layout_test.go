package harness

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestJSONLReaderReadsOtherLayouts reads lines in the layouts of other tools'
// files (VLMEvalKit's A..P columns and integer index, MVBench's candidates
// with the answer as text, Video-MME's lettered options with a letter
// answer) and checks they become the same item schema.
func TestJSONLReaderReadsOtherLayouts(t *testing.T) {
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
