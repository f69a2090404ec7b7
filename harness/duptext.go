package harness

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// cutDupPrefix cuts the option-letter prefix the Video-Index authors cut
// before comparing option sets (audit/screen.py opt_sig,
// ^\s*[\(\[]?[A-Pa-p][\)\]\.,:]\s+): spaces, an optional opening
// bracket, a letter A to P, a closing mark and at least one space ("A. ",
// "(b) ", "C: "). By hand rather than by the expression: every audit runs
// it on every option of every item.
func cutDupPrefix(s string) string {
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	i := 0
	for i < len(s) && space(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '(' || s[i] == '[') {
		i++
	}
	if i >= len(s) || !('A' <= s[i] && s[i] <= 'P' || 'a' <= s[i] && s[i] <= 'p') {
		return s
	}
	i++
	if i >= len(s) || !strings.ContainsRune(")].,:", rune(s[i])) {
		return s
	}
	i++
	j := i
	for j < len(s) && space(s[j]) {
		j++
	}
	if j == i {
		return s
	}
	return s[j:]
}

// DuplicateText is an option text as the duplicate rule before the audit
// compares it: the authors' letter prefix cut (dupPrefix), then their
// norm_text (scoring.py): trimmed, lower-cased, curly quotes and the
// backtick made "'", every character but letters, digits, "_", ".", "-"
// and white space made a space, white space runs made one space, and
// leading and trailing full stops cut. "B. The Cat!" and "the cat" are
// one text; "cat." and "cat" too; "cats" and "cat" are not.
func DuplicateText(s string) string {
	s = cutDupPrefix(s)
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '‘' || r == '’' || r == '“' || r == '”' || r == '`':
			return '\''
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '.' || r == '-' || unicode.IsSpace(r):
			return r
		}
		return ' '
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimSpace(strings.Trim(s, "."))
}

// duplicateVideo is the video identity of the duplicate rule: the item's
// video id with its clip bounds, so that two windows of one file are two
// videos. The authors key on the normalised video's content hash
// (audit/screen.py identity) and fall back to the source's key before the
// video is normalised; the audit draws its items before it reads any
// video, so it keys on the source, as their fallback does.
func duplicateVideo(it *Item) string {
	v := it.Video
	if it.Start != nil || it.End != nil {
		v += fmt.Sprintf("@%v-%v", ptrOr(it.Start), ptrOr(it.End))
	}
	return v
}

func ptrOr(x *float64) any {
	if x == nil {
		return ""
	}
	return *x
}

// dupKey is what two near-duplicates share exactly (the authors' guard,
// audit/screen.py): the video (duplicateVideo), the option set (its
// DuplicateText texts, sorted) and the gold option's DuplicateText.
func dupKey(it *Item) string {
	opts := make([]string, len(it.Options))
	for k, o := range it.Options {
		opts[k] = DuplicateText(o)
	}
	slices.Sort(opts)
	gold := ""
	if it.Answer >= 0 && it.Answer < len(it.Options) {
		gold = DuplicateText(it.Options[it.Answer])
	}
	var b strings.Builder
	for _, s := range append([]string{duplicateVideo(it), gold}, opts...) {
		fmt.Fprintf(&b, "%d:%s", len(s), s)
	}
	return b.String()
}
