package items

import "testing"

// FuzzParseList: a table cell is outside bytes; ParseList must return a
// list or an error, never panic, and never accept a cell too short to be a
// list.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{`['a', 'b']`, `["x"]`, `['it\'s' "y"]`, `[`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseList(s)
		if err == nil && len(s) < 2 {
			t.Fatalf("ParseList(%q) = %q with no error", s, out)
		}
	})
}

// FuzzOptionsInQuestion: question texts are outside bytes; recovered
// options are never empty, and there are none or at least two.
func FuzzOptionsInQuestion(f *testing.F) {
	for _, s := range []string{"Q?\nA. x\nB. y", "Q? (A) x (B) y", "A. ", "(A) (B) "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, opts := OptionsInQuestion(s)
		if len(opts) == 1 {
			t.Fatalf("OptionsInQuestion(%q) gave one option", s)
		}
		for _, o := range opts {
			if o == "" {
				t.Fatalf("OptionsInQuestion(%q) gave an empty option: %q", s, opts)
			}
		}
	})
}
