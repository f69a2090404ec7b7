package letters

import "testing"

func TestLetterOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // "" for none
	}{
		{"A", "A"}, {" A", "A"}, {"\nA", "A"}, {"A ", "A"}, {"\u00a0B\u2003", "B"},
		{"A.", "A"}, {"A)", "A"}, {"A:", "A"}, {"A]", "A"}, {"[A", "A"}, {"(A", "A"}, {"(A)", "A"}, {"[C]", "C"}, {" (D) ", "D"}, {"Z", "Z"},
		{"a", ""}, {"AB", ""}, {"((A", ""}, {"( A", ""}, {"A..", ""}, {"A. red", ""}, {"", ""}, {"(", ""}, {"Answer", ""}, {"{A}", ""}, {"1", ""},
	} {
		l, ok := LetterOf(tc.in)
		got := ""
		if ok {
			got = string(l)
		}
		if got != tc.want {
			t.Errorf("LetterOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
