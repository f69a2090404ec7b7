package vidomni

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply string
		n     int
		want  []int8 // nil: unparsed
		why   string // in the error
	}{
		{"the paper's format", "{\"sentence_1\": 0, \"sentence_2\": 1}\nSentence 2 is wrong.", 2, []int8{0, 1}, ""},
		{"keys out of order", `{"sentence_2": 1, "sentence_1": 0, "sentence_3": 0}`, 3, []int8{0, 1, 0}, ""},
		{"a code fence and blank lines first", "\n\n```json\n{\"sentence_1\": 1}\n```\nreason", 1, []int8{1}, ""},
		{"text before the dictionary on its line", `Labels: {"sentence_1": "1", "sentence_2": "0"} because...`, 2, []int8{1, 0}, ""},
		{"a dictionary over several lines", "{\n  \"sentence_1\": true,\n  \"Sentence_2\": false\n}\nwhy", 2, []int8{1, 0}, ""},
		{"keys with a space", `{"sentence 1": 0, "SENTENCE 2": 1}`, 2, []int8{0, 1}, ""},
		{"prose only", "Sentence 1 is correct. Sentence 2 is a hallucination.", 2, nil, "holds no JSON dictionary"},
		{"the dictionary not on the first line", "Here are my labels:\n{\"sentence_1\": 0}", 1, nil, "holds no JSON dictionary"},
		{"empty", "  \n", 1, nil, "empty reply"},
		{"invalid JSON", `{"sentence_1": 0, "sentence_2": }`, 2, nil, "not valid JSON"},
		{"a missing sentence", `{"sentence_1": 0}`, 2, nil, "no label for sentence_2"},
		{"a sentence beyond the caption", `{"sentence_1": 0, "sentence_2": 1, "sentence_3": 0}`, 2, nil, "beyond the caption's 2 sentences"},
		{"a value that is not binary", `{"sentence_1": 0.5}`, 1, nil, "want 0 or 1"},
		{"a word as value", `{"sentence_1": "Incorrect"}`, 1, nil, "want 0 or 1"},
		{"a foreign key", `{"sentence_1": 0, "summary": 1}`, 1, nil, "is not sentence_K"},
		{"sentence_0", `{"sentence_0": 0}`, 1, nil, "beyond"},
		{"a sentence labelled twice", `{"sentence_1": 0, "Sentence_1": 1}`, 1, nil, "labelled twice"},
		{"an array instead of a dictionary", `[0, 1]`, 2, nil, "holds no JSON dictionary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReply(tt.reply, tt.n)
			if tt.want != nil {
				if err != nil || !slices.Equal(got, tt.want) {
					t.Fatalf("got %v, %v; want %v", got, err, tt.want)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrUnparsed) || !strings.Contains(err.Error(), tt.why) || got != nil {
				t.Fatalf("got %v, %v; want an unparsed error saying %q", got, err, tt.why)
			}
		})
	}
}

// FormatReply writes what ParseReply reads, and the prompt numbers the
// sentences as the reply's keys do.
func TestFormatReplyRoundTripAndPrompt(t *testing.T) {
	t.Parallel()
	labels := []int8{0, 1, 1, 0, 1}
	got, err := ParseReply(FormatReply(labels)+"\nreasons", len(labels))
	if err != nil || !slices.Equal(got, labels) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	p := VerificationPrompt([]string{"A dog runs.", " It barks. "})
	if !strings.HasPrefix(p, "You are an expert in Video Hallucination Detection.") || !strings.HasSuffix(p, "Caption:\nSentence 1: A dog runs.\nSentence 2: It barks.") {
		t.Fatalf("prompt:\n%s", p)
	}
}

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{`{"sentence_1": 1}`, "```json\n{\"sentence_2\": 0, \"sentence_1\": 1}", "x {", "{}"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, reply string, n int) {
		if n < 1 || n > 64 {
			return
		}
		got, err := ParseReply(reply, n)
		if (err == nil) != (got != nil) || (got != nil && len(got) != n) {
			t.Fatalf("ParseReply(%q, %d) = %v, %v", reply, n, got, err)
		}
	})
}
