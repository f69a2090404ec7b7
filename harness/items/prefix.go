package items

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/vidscreen/vidscreen/harness/answer"
)

// letterPrefix is an option's own letter as the benchmarks write it: "A. ",
// "(A) ", "A) " or "A: ", then the option's text. The space after the
// separator is required: "(b)(a)(d)(c)." (Video-MME's ordering options) is
// itself an option made of letters, not a letter and a text.
var letterPrefix = regexp.MustCompile(`^(\(([A-Pa-p])\)|([A-Pa-p])([.):]))\s+(\S.*)$`)

// StripLetterPrefixes removes the letters options carry in their text
// ("A. a dog", "B. a cat") so that an option is its text only. It removes
// them only when every option has one, in order A, B, C, ..., all in one
// form (one separator, one case): options that merely start with a letter
// and a dot are left alone. stripped says whether it removed them; out is
// opts itself when it did not.
func StripLetterPrefixes(opts []string) (out []string, stripped bool) {
	if len(opts) < 2 {
		return opts, false
	}
	out = make([]string, len(opts))
	var form string
	for i, o := range opts {
		letter, sep, text, ok := splitPrefix(o)
		if !ok || !strings.EqualFold(letter, answer.Letter(i)) {
			return opts, false
		}
		// The form is the separator and the letter's case: "A." and
		// "b)" in one list are not a layout.
		f := sep
		if unicode.IsLower(rune(letter[0])) {
			f += "lower"
		}
		if i == 0 {
			form = f
		} else if f != form {
			return opts, false
		}
		out[i] = text
	}
	return out, true
}

// splitPrefix splits "A. text" into its letter, separator ("." ")" ":" or
// "()") and text.
func splitPrefix(o string) (letter, sep, text string, ok bool) {
	g := letterPrefix.FindStringSubmatch(strings.TrimSpace(o))
	if g == nil {
		return "", "", "", false
	}
	if g[2] != "" {
		return g[2], "()", strings.TrimSpace(g[5]), true
	}
	return g[3], g[4], strings.TrimSpace(g[5]), true
}
