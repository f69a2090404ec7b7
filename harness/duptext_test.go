package harness

import (
	"context"
	"slices"
	"testing"
)

// TestDuplicateTextAuthorsNormalisation ports the Video-Index authors'
// opt_sig element (audit/screen.py: the prefix ^\s*[\(\[]?[A-Pa-p][\)\]\.,:]\s+
// cut, then scoring.py norm_text), each case worked by hand.
func TestDuplicateTextAuthorsNormalisation(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"A. The Cat", "the cat"},
		{"(b) the   cat", "the cat"},
		{"C: The cat!", "the cat"},   // "!" -> " ", trimmed
		{"D.The cat", "d.the cat"},   // no space after the mark: no prefix
		{"Q. The cat", "q. the cat"}, // Q is past P
		{"the cat.", "the cat"},      // trailing full stops cut
		{"...the cat...", "the cat"},
		{"it’s “red”", "it's 'red'"}, // curly quotes made "'", kept
		{"3.5 m-long", "3.5 m-long"}, // "." and "-" kept (numbers)
		{"a/b, c", "a b c"},
		{"  Über_Straße ", "über_straße"},
		{"cats", "cats"},
		{"", ""},
	}
	for _, c := range cases {
		if got := DuplicateText(c.in); got != c.want {
			t.Errorf("DuplicateText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDupKeyComparesNormalisedOptionSets: the guard of the authors'
// find_duplicates is (video, sorted normalised option set, normalised
// answer); items differing only in option order, case, letter prefixes
// or punctuation share it; another clip of the video does not.
func TestDupKeyComparesNormalisedOptionSets(t *testing.T) {
	t.Parallel()
	s1, s2 := 1.0, 5.0
	base := &Item{Video: "v", Options: []string{"Red", "blue", "green"}, Answer: 1}
	same := []*Item{
		{Video: "v", Options: []string{"A. green", "B. Blue!", "C. red."}, Answer: 1},
		{Video: "v", Options: []string{"BLUE", "Red", "Green"}, Answer: 0},
	}
	other := []*Item{
		{Video: "v", Options: []string{"Red", "blue", "green"}, Answer: 0},                       // another answer
		{Video: "w", Options: []string{"Red", "blue", "green"}, Answer: 1},                       // another video
		{Video: "v", Options: []string{"Red", "blue", "green", "pink"}, Answer: 1},               // another set
		{Video: "v", Start: &s1, End: &s2, Options: []string{"Red", "blue", "green"}, Answer: 1}, // another clip
	}
	for _, it := range same {
		if dupKey(it) != dupKey(base) {
			t.Errorf("%q: key differs from %q's", it.Options, base.Options)
		}
	}
	for _, it := range other {
		if dupKey(it) == dupKey(base) {
			t.Errorf("%+v: key equals %q's", it, base.Options)
		}
	}
}

// TestSampleDedupsWithoutASample: with n = 0 (every item) the duplicate
// rule still runs (paper 002, 3.1, before the audit), each benchmark
// whole and without a refill, and the smallest id in string order stays
// ("10" < "9"); a benchmark without duplicates gets no info.
func TestSampleDedupsWithoutASample(t *testing.T) {
	t.Parallel()
	vs := map[string][]float32{"q": {1, 0}, "q?": {1, 0}, "r": {0, 1}}
	abc := []string{"a", "b", "c"}
	items := []*Item{
		{ID: "9", Benchmark: "A", Video: "v", Question: "q", Options: abc, Answer: 0},
		{ID: "10", Benchmark: "A", Video: "v", Question: "q?", Options: []string{"C.", "a", "B"}, Answer: 1},
		{ID: "11", Benchmark: "A", Video: "v", Question: "r", Options: abc, Answer: 0},
		{ID: "1", Benchmark: "B", Video: "v", Question: "q", Options: abc, Answer: 0},
	}
	kept, infos, err := Sample(context.Background(), items, 0, 1, vectorEmbedder(t, vs))
	if err != nil {
		t.Fatal(err)
	}
	if got := itemIDs(kept); !slices.Equal(got, []string{"10", "11", "1"}) {
		t.Errorf("kept %v, want [10 11 1]", got)
	}
	if len(infos) != 1 || infos[0].Benchmark != "A" || infos[0].Duplicates != 1 || infos[0].Refilled != 0 || infos[0].N != 2 || infos[0].Of != 3 {
		t.Errorf("infos %+v, want A: 1 duplicate left, none replaced, 2 of 3", infos)
	}
	// Without an embedder nothing is compared and every item stays.
	kept, infos, err = Sample(context.Background(), items, 0, 1, nil)
	if err != nil || len(kept) != len(items) || infos != nil {
		t.Errorf("no embedder: %d kept, infos %v, err %v; want every item", len(kept), infos, err)
	}
}
