package letters

import (
	"strings"
	"unicode"
)

// LetterOf returns the option letter a generated reply or a candidate
// token spells, as the Video-Index authors read them
// (video_index/pool/logprobs.py: ^\s*[\(\[]?([A-Z])[\)\]\.:]?\s*$): white
// space, at most one opening "(" or "[", one capital letter, at most one
// closing ")", "]", "." or ":", white space. "A", " A", "(A", "[A", "A.",
// "A)", "A:", "(A)" spell A; "a", "AB", "((A" spell none. White space is
// Unicode's, as Python's \s is on text.
func LetterOf(s string) (byte, bool) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	if s != "" && (s[0] == '(' || s[0] == '[') {
		s = s[1:]
	}
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return 0, false
	}
	l, rest := s[0], s[1:]
	if rest != "" && strings.ContainsRune(")].:", rune(rest[0])) {
		rest = rest[1:]
	}
	if strings.TrimFunc(rest, unicode.IsSpace) != "" {
		return 0, false
	}
	return l, true
}
