package screen

import (
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// The option-format step removes what the authors' option_format_reasons
// (pool/dedup.py) flags: meta options in their several phrasings, repeated
// option texts once the letter prefix is taken off, an empty gold option;
// and keeps options that merely contain such words.
func TestOptionFormatStep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		options []string
		answer  int32
		want    bool
	}{
		{"plain", []string{"a red ball", "a blue cup", "a green hat"}, 0, false},
		{"all of the above", []string{"runs", "jumps", "All of the above"}, 2, true},
		{"none of these, lettered", []string{"runs", "jumps", "C. none of these."}, 0, true},
		{"both A and B", []string{"runs", "jumps", "Both A and B"}, 0, true},
		{"A and B are correct", []string{"runs", "jumps", "a and b are correct"}, 1, true},
		{"A, B and C", []string{"runs", "jumps", "sits", "(d) A, B and C"}, 1, true},
		{"A & B & C", []string{"runs", "jumps", "sits", "A & B & C"}, 1, true},
		{"cannot be determined from the video", []string{"runs", "Cannot be determined from the video"}, 0, true},
		{"can't be determined", []string{"runs", "It is sits", "can't be determined."}, 0, true},
		{"not enough information", []string{"runs", "Not enough information to answer"}, 0, true},
		{"insufficient information", []string{"runs", "insufficient information"}, 0, true},
		{"not mentioned", []string{"runs", "Not mentioned in the clip"}, 0, true},
		{"not shown in the video", []string{"runs", "not shown in the video"}, 0, true},
		{"bare none", []string{"two", "three", "None"}, 0, true},
		{"bare others", []string{"a cat", "others"}, 0, true},
		{"words that only contain meta words", []string{"all the dogs run", "none of the cats sit", "another man", "Andy and Bob"}, 0, false},
		{"repeated text", []string{"a red ball", "A red  ball", "a blue cup"}, 2, true},
		{"repeated once the letters are off", []string{"A. a red ball", "B) a red ball", "a blue cup"}, 2, true},
		{"an empty gold", []string{"runs", "  ", "jumps"}, 1, true},
		{"a gold that is only its letter", []string{"runs", "B.", "jumps"}, 1, true},
		{"an empty option that is not gold", []string{"runs", "", "jumps"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Row{Options: tt.options, Answer: tt.answer}
			if got := badFormat(r, 0); got != tt.want {
				t.Errorf("badFormat(%q, gold %d) = %v, want %v", tt.options, tt.answer, got, tt.want)
			}
		})
	}
	// The audit's flags still remove, and --drop-quality names more.
	if !badFormat(&Row{Options: []string{"x", "y"}, Quality: []string{"meta_option"}}, 0) {
		t.Error("a row flagged meta_option kept")
	}
	if !badFormat(&Row{Options: []string{"x", "y"}, Quality: []string{"letter_prefix"}}, harness.LetterPrefix) {
		t.Error("a row flagged letter_prefix kept under --drop-quality letter_prefix")
	}
}
