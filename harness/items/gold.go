package items

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
)

// ErrAmbiguousIndex is a digit answer ("0", "2") in a file whose layout
// does not say whether it counts options from 0 or from 1: read the wrong
// way, every answer names the option next to the right one, and an audit
// then reports a model at chance as a benchmark that breaks.
var ErrAmbiguousIndex = errors.New("ambiguous option index")

// Base returns how a digit answer is read: the layout's base when it
// defines one (0 or 1), else the user's (IndexBase), else -1 (refuse).
func (o Options) Base(layout int) int {
	if layout == 0 || layout == 1 {
		return layout
	}
	if o.IndexBase == 0 || o.IndexBase == 1 {
		return o.IndexBase
	}
	return -1
}

// digits is an answer that is only a number: "2", "(2)", "2.".
var digits = regexp.MustCompile(`^\(?(\d{1,9})\)?[.:)]?$`)

// oneLetter is a gold that is a single letter, "(Z)" or "Z.".
var oneLetter = regexp.MustCompile(`^\(?[A-Za-z]\)?[.:)]?$`)

// severalLetters is a gold naming more than one option: "A, C", "A and
// C", "AC", "(A)(C)", "A/C".
var severalLetters = regexp.MustCompile(`^\(?[A-P]\)?(?:\s*(?:,|;|/|&|\+|and)?\s*\(?[A-P]\)?)+$`)

// Gold reads a record's gold answer as an option index. base is how a
// digit gold is read (Options.Base): 0 or 1, or -1 when nobody says, and a
// digit gold is then an ErrAmbiguousIndex error naming both readings —
// unless it is the text of exactly one option (options "0", "1", "2").
// A letter, or the text of exactly one option, names that option. A gold
// naming several options ("A, C"), or none (empty, or a text no option
// has), makes the record open-ended: index -1 and openEnded the reason,
// for a Drop with OpenEnded set. A letter or number past the options is
// an error (harness.ErrAnswerRange).
func Gold(gold string, options []string, base int) (index int, openEnded string, err error) {
	g := strings.TrimSpace(gold)
	if g == "" {
		return -1, "the answer is empty: it names no option", nil
	}
	if m := digits.FindStringSubmatch(g); m != nil {
		n, _ := strconv.Atoi(m[1])
		if base < 0 {
			if i := exactText(g, options); i >= 0 {
				return i, "", nil
			}
			return -1, "", ambiguous(g, n, options)
		}
		if i := n - base; i >= 0 && i < len(options) {
			return i, "", nil
		}
		return -1, "", fmt.Errorf("%w: %s is not one of the %d options counted from %d", harness.ErrAnswerRange, g, len(options), base)
	}
	if i := answer.ParseLetter(g, len(options)); i >= 0 {
		return i, "", nil
	}
	if i := answer.MatchText(g, options); i >= 0 {
		return i, "", nil
	}
	if oneLetter.MatchString(g) {
		return -1, "", fmt.Errorf("%w: %q is a letter past the %d options", harness.ErrAnswerRange, g, len(options))
	}
	if named := lettersNamed(g, len(options)); len(named) >= 2 {
		return -1, fmt.Sprintf("the answer %q names several options (%s)", g, strings.Join(named, ", ")), nil
	}
	if list, err := ParseList(g); err == nil && len(list) >= 2 {
		return -1, fmt.Sprintf("the answer %q names several options", truncate(g)), nil
	}
	return -1, fmt.Sprintf("the answer %q is no option's letter or text", truncate(g)), nil
}

// Reply reads a model's reply as an option index by answer.Parse, except
// that a reply that is only a number is read with base (0 or 1, see
// Options.Base) and, when base is -1, is an ErrAmbiguousIndex error naming
// both readings. index -1 is a reply naming no option (unparsed).
func Reply(reply string, options []string, base int) (int, answer.Rule, error) {
	g := strings.TrimSpace(reply)
	if m := digits.FindStringSubmatch(g); m != nil {
		n, _ := strconv.Atoi(m[1])
		if base < 0 {
			return -1, answer.None, ambiguous(g, n, options)
		}
		if i := n - base; i >= 0 && i < len(options) {
			return i, answer.Number, nil
		}
		return -1, answer.None, nil
	}
	i, rule := answer.Parse(g, options)
	return i, rule, nil
}

// ambiguous names both readings of a digit answer n among options.
func ambiguous(g string, n int, options []string) error {
	reading := func(i int) string {
		if i < 0 || i >= len(options) {
			return "no option"
		}
		return fmt.Sprintf("option %s (%q)", answer.Letter(i), truncate(options[i]))
	}
	return fmt.Errorf("%w: %q is %s counted from 0, %s counted from 1, and the layout does not say which: give --index-base 0 or 1",
		ErrAmbiguousIndex, g, reading(n), reading(n-1))
}

// exactText is the one option whose text is g, or -1.
func exactText(g string, options []string) int {
	found := -1
	for i, o := range options {
		if strings.TrimSpace(o) == g {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// lettersNamed lists the distinct option letters of a gold such as
// "A, C", when all are among n options; nil otherwise.
func lettersNamed(g string, n int) []string {
	if !severalLetters.MatchString(g) {
		return nil
	}
	var out []string
	seen := map[rune]bool{}
	for _, r := range strings.ReplaceAll(g, "and", "") {
		if r < 'A' || r > 'P' {
			continue
		}
		if int(r-'A') >= n {
			return nil
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, string(r))
		}
	}
	return out
}
