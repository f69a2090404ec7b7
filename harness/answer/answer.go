// Package answer turns what people and models write for a multiple-choice
// answer into an option index: a gold answer given as a letter or as the
// option's text, and a model's generated reply, parsed by the rules of
// docs/audit.md (a leading option letter, the last "answer is X", a unique
// option-text match, a numeric index). Letters run A to P, for up to 16
// options.
package answer

import (
	"regexp"
	"strings"
	"unicode"
)

// MaxOptions is the number of option letters, A to P.
const MaxOptions = 16

// Letter returns the letter of option i (0-based): "A" to "P".
func Letter(i int) string { return string(rune('A' + i)) }

// A Rule names how a reply was parsed.
type Rule int

const (
	None         Rule = iota // nothing in the reply names an option
	Index                    // an integer option index, not text
	OptionLetter             // a leading option letter: "B", "(B) a dog", "B. a dog"
	AnswerIs                 // the last "answer/option/choice is X"
	OptionText               // the text of exactly one option
	Number                   // a bare number n, option n counted from 1
)

var ruleNames = [...]string{"none", "index", "letter", "answer-is", "option-text", "number"}

func (r Rule) String() string { return ruleNames[r] }

// ParseLetter reads a reply that is only an option letter, as gold answers
// are written: "B", "b", "(B)", "B.", "B)", "[B]", "Option B". It returns
// the 0-based index, or -1 when s is not a letter among n options.
func ParseLetter(s string, n int) int {
	s = strings.TrimSpace(s)
	for _, p := range []string{"option ", "Option ", "OPTION "} {
		s = strings.TrimPrefix(s, p)
	}
	s = strings.TrimRight(strings.TrimLeft(s, "([ "), ".:)] ")
	if len(s) != 1 {
		return -1
	}
	c := unicode.ToUpper(rune(s[0]))
	if i := int(c - 'A'); c >= 'A' && i < min(n, MaxOptions) {
		return i
	}
	return -1
}

// MatchText returns the index of the one option whose normalised text
// equals s's (case, spacing, punctuation and a letter prefix such as "A. "
// ignored), or -1 when none or several do.
func MatchText(s string, options []string) int {
	want := Normalize(stripLetterPrefix(s))
	if want == "" {
		return -1
	}
	found := -1
	for i, o := range options {
		if Normalize(stripLetterPrefix(o)) == want {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// Gold reads a gold answer written as text: an option letter, else the
// text of exactly one option. It returns -1 when s is neither.
func Gold(s string, options []string) int {
	if i := ParseLetter(s, len(options)); i >= 0 {
		return i
	}
	return MatchText(s, options)
}

var (
	// leadingLetter is a reply that opens with an option letter followed by
	// nothing, punctuation or a space: "B", "B.", "(B) ...", "B: ...".
	leadingLetter = regexp.MustCompile(`^[(\[]?([A-P])(?:[)\].:,]|\s|$)`)
	// answerIs finds "answer is B", "the correct option: (C)", "Choice - D".
	answerIs = regexp.MustCompile(`(?i:answer|option|choice)\s*(?:(?i:is)\s*)?[:\-]?\s*[(\[]?([A-P])\b`)
	number   = regexp.MustCompile(`^\(?(\d{1,2})\)?[.:)]?$`)
)

// Parse reads a model's generated reply to a question with the given
// options, trying in order: a leading option letter (not the article "A"
// or the pronoun "I" opening a sentence), the last "answer/option/choice
// is X", the text of exactly one option (the reply equal to it, else the
// only option the reply contains), a bare number n naming option n counted
// from 1. It returns the 0-based index and the rule that found it, or -1
// and None.
func Parse(reply string, options []string) (int, Rule) {
	n := min(len(options), MaxOptions)
	s := strings.TrimSpace(reply)
	if m := leadingLetter.FindStringSubmatch(s); m != nil {
		i := int(m[1][0] - 'A')
		rest := s[len(m[0]):]
		// "A man walks in" and "I think it is C" open with an article or a
		// pronoun, not a choice: a bare A or I followed by a lower-case word.
		article := (m[1] == "A" || m[1] == "I") && m[0] == m[1]+" " && startsLower(rest)
		if i < n && !article {
			return i, OptionLetter
		}
	}
	if all := answerIs.FindAllStringSubmatch(s, -1); all != nil {
		if i := int(all[len(all)-1][1][0] - 'A'); i < n {
			return i, AnswerIs
		}
	}
	if i := MatchText(s, options); i >= 0 {
		return i, OptionText
	}
	if i := containedOption(s, options); i >= 0 {
		return i, OptionText
	}
	if m := number.FindStringSubmatch(s); m != nil {
		k := 0
		for _, c := range m[1] {
			k = 10*k + int(c-'0')
		}
		if k >= 1 && k <= n {
			return k - 1, Number
		}
	}
	return -1, None
}

// containedOption returns the one option whose normalised text appears in
// the reply as whole words, or -1. An option contained in another that also
// appears ("red" in "red car") does not count against it.
func containedOption(reply string, options []string) int {
	r := " " + Normalize(reply) + " "
	var hits []int
	for i, o := range options {
		t := Normalize(stripLetterPrefix(o))
		if t != "" && strings.Contains(r, " "+t+" ") {
			hits = append(hits, i)
		}
	}
	var kept []int
	for _, i := range hits {
		ti := Normalize(stripLetterPrefix(options[i]))
		inner := false
		for _, j := range hits {
			tj := Normalize(stripLetterPrefix(options[j]))
			if j != i && len(tj) > len(ti) && strings.Contains(" "+tj+" ", " "+ti+" ") {
				inner = true
			}
		}
		if !inner {
			kept = append(kept, i)
		}
	}
	if len(kept) == 1 {
		return kept[0]
	}
	return -1
}

func startsLower(s string) bool {
	for _, r := range s {
		return unicode.IsLower(r)
	}
	return false
}

// stripLetterPrefix removes the "A. ", "(B) ", "C) " some benchmarks put
// before each option text: optional spaces, an optional "(" or "[", a
// letter A-P, one of ".):]", then at least one space. (By hand rather than
// by regular expression: it runs for every option of every row matched.)
func stripLetterPrefix(s string) string {
	t := strings.TrimLeft(s, " \t")
	if t != "" && (t[0] == '(' || t[0] == '[') {
		t = t[1:]
	}
	if len(t) < 3 || t[0] < 'A' || t[0] > 'P' || !strings.ContainsRune(".):]", rune(t[1])) {
		return s
	}
	rest := strings.TrimLeft(t[2:], " \t\n\r")
	if len(rest) == len(t)-2 {
		return s // no space after the mark: "A.B" is text
	}
	return rest
}

// CompareForm is an option's text without a letter prefix ("A. "), normalised
// as Normalize does: the form in which options are compared across files.
func CompareForm(s string) string { return Normalize(stripLetterPrefix(s)) }

// Normalize lower-cases s, turns punctuation into spaces and collapses runs
// of spaces, so that "A dog." and "a dog" compare equal.
func Normalize(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// Choice is Parse's index alone (-1 when no rule reads the reply): the form
// a served reader's client takes to read a generated reply
// (served.Config.ParseReply).
func Choice(reply string, options []string) int {
	i, _ := Parse(reply, options)
	return i
}
