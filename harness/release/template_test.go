package release

import (
	"slices"
	"strings"
	"testing"
)

// Worked by hand through the authors' template_regex (Video-Index
// pool/scenes.py): quoted runs, then numbers, replaced; tokens lower-cased;
// a repeated placeholder collapsed.
func TestQuestionTemplateIsTheAuthorsRegexRule(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ q, want string }{
		{"How many times does the man jump in clip 12?", "how many times does the man jump in clip <NUM> ?"},
		{`What does the man say after "hello there" at 1:30?`, "what does the man say after <ENT> at <NUM> ?"},
		// An apostrophe is a quote: "'s hat'" is a quoted run.
		{"What is the man's hat's colour?", "what is the man <ENT> s colour?"},
		// Two numbers in a row are one <NUM>; "4," is a number and a comma.
		{"Is it 3 4 or 5 times?", "is it <NUM> or <NUM> times?"},
		{"Between 3 and 4, 5?", "between <NUM> and <NUM> , <NUM> ?"},
		{"How far, in metres: 1,000.5 or 3.25?", "how far, in metres: <NUM> or <NUM> ?"},
		// Any token starting with "<" collapses when repeated.
		{"<b> <b> What  IS\tthis?\nNOW", "<b> what is this? now"},
		{"The <NUM> 7 <ENT> 'q'", "the <NUM> <ENT>"},
		{"Pick 'A' or 'B'", "pick <ENT> or <ENT>"},
		// Python's \d is any decimal digit; its split() splits on U+001C.
		{"Which frame (of \u0663 shown) comes first?", "which frame (of <NUM> shown) comes first?"},
		{"It\x1cis", "it is"},
		{"", ""},
		// The first 800 characters, not bytes.
		{strings.Repeat("É", 900), strings.Repeat("é", 800)},
	} {
		if got := QuestionTemplate(c.q); got != c.want {
			t.Errorf("QuestionTemplate(%.40q) = %.60q, want %.60q", c.q, got, c.want)
		}
	}
}

// The per-template cap counts a source's questions of one template: two
// sources asking the same templated question are two templates.
func TestTemplateGroupsAreCountedPerSource(t *testing.T) {
	t.Parallel()
	p := testPool(t, []cand{
		{id: "a1", source: "A", video: "v1", dur: 5, question: "How many cups in clip 1?"},
		{id: "a2", source: "A", video: "v2", dur: 5, question: "how many cups in clip 22?"},
		{id: "a3", source: "A", video: "v3", dur: 5, question: "How many plates in clip 3?"},
		{id: "b1", source: "B", video: "v4", dur: 5, question: "How many cups in clip 4?"},
	})
	var got []int
	for i := range p.Candidates {
		got = append(got, p.TemplateGroup(i))
	}
	if want := []int{2, 2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("template groups %v, want %v", got, want)
	}
}
