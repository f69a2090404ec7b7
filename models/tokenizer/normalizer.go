package tokenizer

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A normalizer rewrites t in place; tmp is scratch space it may swap with t.
// Every rune it emits carries the original range of the rune(s) it came
// from, so token offsets point into the caller's text.
type normalizer interface {
	normalize(t, tmp *normText)
}

// swap makes tmp's contents t's, keeping both buffers for reuse.
func swap(t, tmp *normText) { *t, *tmp = *tmp, *t }

type sequenceNormalizer []normalizer

func (s sequenceNormalizer) normalize(t, tmp *normText) {
	for _, n := range s {
		n.normalize(t, tmp)
	}
}

// bertNormalizer is BertNormalizer: remove control characters and map
// whitespace to ' ' (clean_text), surround CJK ideographs with spaces,
// strip accents (NFD, then drop nonspacing marks), lowercase. The four
// passes of the reference are fused into one loop over the runes.
type bertNormalizer struct {
	cleanText, handleCJK, stripAccents, lowercase bool
}

func (n *bertNormalizer) normalize(t, tmp *normText) {
	tmp.reset()
	for i := 0; i < len(t.s); {
		c := t.s[i]
		sp := t.align[i]
		if c < utf8.RuneSelf {
			i++
			if n.cleanText {
				if c == '\t' || c == '\n' || c == '\r' {
					c = ' '
				} else if c < 0x20 || c == 0x7f {
					continue
				}
			}
			if n.lowercase && c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			tmp.s = append(tmp.s, c)
			tmp.align = append(tmp.align, sp)
			continue
		}
		r, size := utf8.DecodeRune(t.s[i:])
		i += size
		if n.cleanText {
			if r == utf8.RuneError || isBertControl(r) {
				continue
			}
			if isBertWhitespace(r) {
				r = ' '
			}
		}
		cjk := n.handleCJK && isCJK(r)
		if cjk {
			tmp.appendRune(' ', sp)
		}
		if n.stripAccents {
			d := norm.NFD.AppendString(t.scratch[:0], string(r))
			t.scratch = d
			for j := 0; j < len(d); {
				dr, ds := utf8.DecodeRune(d[j:])
				j += ds
				if unicode.Is(unicode.Mn, dr) {
					continue
				}
				n.emit(tmp, dr, sp)
			}
		} else {
			n.emit(tmp, r, sp)
		}
		if cjk {
			tmp.appendRune(' ', sp)
		}
	}
	swap(t, tmp)
}

func (n *bertNormalizer) emit(t *normText, r rune, sp span) {
	if n.lowercase {
		appendLower(t, r, sp)
	} else {
		t.appendRune(r, sp)
	}
}

// unicodeForm applies one of the four Unicode normalization forms.
type unicodeForm struct{ form norm.Form }

func (n unicodeForm) normalize(t, tmp *normText) {
	if isASCII(t.s) || n.form.IsNormal(t.s) {
		return // ASCII and already-normal text are unchanged by every form
	}
	tmp.reset()
	var it norm.Iter
	it.Init(n.form, t.s)
	for !it.Done() {
		start := it.Pos()
		seg := it.Next()
		end := it.Pos()
		if bytes.Equal(seg, t.s[start:end]) {
			tmp.appendFrom(t, start, end)
			continue
		}
		tmp.appendString(string(seg), t.spanOf(start, end))
	}
	swap(t, tmp)
}

type lowercaseNormalizer struct{}

func (lowercaseNormalizer) normalize(t, tmp *normText) {
	if isASCII(t.s) {
		for i, c := range t.s {
			if c >= 'A' && c <= 'Z' {
				t.s[i] = c + 'a' - 'A'
			}
		}
		return
	}
	tmp.reset()
	for i := 0; i < len(t.s); {
		r, size := utf8.DecodeRune(t.s[i:])
		appendLower(tmp, r, t.align[i])
		i += size
	}
	swap(t, tmp)
}

// stripAccentsNormalizer is StripAccents: drop nonspacing marks (Mn). Files
// pair it with NFD before it, as the reference requires.
type stripAccentsNormalizer struct{}

func (stripAccentsNormalizer) normalize(t, tmp *normText) {
	if isASCII(t.s) {
		return
	}
	tmp.reset()
	for i := 0; i < len(t.s); {
		r, size := utf8.DecodeRune(t.s[i:])
		if !unicode.Is(unicode.Mn, r) {
			tmp.appendFrom(t, i, i+size)
		}
		i += size
	}
	swap(t, tmp)
}

// stripNormalizer is Strip: remove whitespace at the left and/or right end.
type stripNormalizer struct{ left, right bool }

func (n stripNormalizer) normalize(t, tmp *normText) {
	i, j := 0, len(t.s)
	if n.left {
		for i < j {
			r, size := utf8.DecodeRune(t.s[i:j])
			if !isWhitespace(r) {
				break
			}
			i += size
		}
	}
	if n.right {
		for j > i {
			r, size := utf8.DecodeLastRune(t.s[i:j])
			if !isWhitespace(r) {
				break
			}
			j -= size
		}
	}
	t.s = t.s[i:j]
	t.align = t.align[i:j]
}

// prependNormalizer is Prepend: put a string before non-empty text,
// attributed to the first character as the reference does.
type prependNormalizer struct{ prefix string }

func (n prependNormalizer) normalize(t, tmp *normText) {
	if len(t.s) == 0 {
		return
	}
	tmp.reset()
	tmp.appendString(n.prefix, t.align[0])
	tmp.appendFrom(t, 0, len(t.s))
	swap(t, tmp)
}

// replaceNormalizer is Replace: every match of a pattern becomes content,
// attributed to the whole match.
type replaceNormalizer struct {
	find    matcher
	content string
}

func (n replaceNormalizer) normalize(t, tmp *normText) {
	tmp.reset()
	tmp.ranges = n.find.find(t.s, tmp.ranges[:0])
	last := 0
	found := false
	for _, m := range tmp.ranges {
		i, j := m[0], m[1]
		if j-i == 1 && len(n.content) == 1 && t.s[i] == n.content[0] {
			continue // replacing a byte by itself changes nothing (`\s+` on " ")
		}
		found = true
		tmp.appendFrom(t, last, i)
		tmp.appendString(n.content, t.spanOf(i, j))
		last = j
	}
	if !found {
		return
	}
	tmp.appendFrom(t, last, len(t.s))
	swap(t, tmp)
}

// A matcher finds the non-overlapping, non-empty matches of a pattern,
// left to right, and appends their byte ranges to dst.
type matcher interface {
	find(s []byte, dst [][2]int) [][2]int
}

// literalMatcher matches a fixed string.
type literalMatcher []byte

func (m literalMatcher) find(s []byte, dst [][2]int) [][2]int {
	if len(m) == 0 {
		return dst
	}
	for off := 0; ; {
		k := bytes.Index(s[off:], m)
		if k < 0 {
			return dst
		}
		dst = append(dst, [2]int{off + k, off + k + len(m)})
		off += k + len(m)
	}
}

// runMatcher matches maximal runs of at least min runes satisfying in: the
// patterns `\s+` and ` {2,}` without a regexp engine.
type runMatcher struct {
	in  func(rune) bool
	min int
}

func (m runMatcher) find(s []byte, dst [][2]int) [][2]int {
	for i := 0; i < len(s); {
		r, size := runeAt(s, i)
		if !m.in(r) {
			i += size
			continue
		}
		j, n := i, 0
		for j < len(s) {
			r, size := runeAt(s, j)
			if !m.in(r) {
				break
			}
			j += size
			n++
		}
		if n >= m.min {
			dst = append(dst, [2]int{i, j})
		}
		i = j
	}
	return dst
}

// regexpMatcher is the fallback for patterns without a hand-written
// matcher; Go's RE2 syntax covers those without lookaround.
type regexpMatcher struct{ re *regexp.Regexp }

func (m regexpMatcher) find(s []byte, dst [][2]int) [][2]int {
	for _, loc := range m.re.FindAllIndex(s, -1) {
		if loc[1] > loc[0] {
			dst = append(dst, [2]int{loc[0], loc[1]})
		}
	}
	return dst
}

// newMatcher returns a matcher for a literal string or a regex, choosing a
// hand-written one for the regexes that real files use.
func newMatcher(literal string, regex string, isRegex bool) (matcher, error) {
	if !isRegex {
		return literalMatcher(literal), nil
	}
	switch regex {
	case `\s+`:
		return runMatcher{in: isWhitespace, min: 1}, nil
	case ` {2,}`:
		return runMatcher{in: func(r rune) bool { return r == ' ' }, min: 2}, nil
	case ` +`:
		return runMatcher{in: func(r rune) bool { return r == ' ' }, min: 1}, nil
	}
	re, err := regexp.Compile(unicodeClasses(regex))
	if err != nil {
		return nil, err
	}
	return regexpMatcher{re}, nil
}

// Unicode meanings of the Perl classes, as Oniguruma (the reference's
// engine) reads them; RE2 reads \s, \d and \w as ASCII only.
var perlClasses = map[byte]string{
	's': `\s\v\x{85}\p{Z}`,
	'd': `\p{Nd}`,
	'w': `\p{L}\p{M}\p{N}\p{Pc}`,
}

// unicodeClasses rewrites \s \d \w (and, outside brackets, \S \D \W) of a
// regex into their Unicode classes, so that RE2 matches what the
// reference matches.
func unicodeClasses(re string) string {
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '\\' && i+1 < len(re):
			n := re[i+1]
			i++
			if cls, ok := perlClasses[n]; ok {
				if inClass {
					sb.WriteString(cls)
				} else {
					sb.WriteString("[" + cls + "]")
				}
				continue
			}
			if cls, ok := perlClasses[n+'a'-'A']; ok && n >= 'A' && n <= 'Z' && !inClass {
				sb.WriteString("[^" + cls + "]")
				continue
			}
			sb.WriteByte(c)
			sb.WriteByte(n)
			continue
		case c == '[' && !inClass:
			inClass = true
			sb.WriteByte(c)
			// A ']' first in a class (after an optional '^') is literal.
			if i+1 < len(re) && re[i+1] == '^' {
				sb.WriteByte('^')
				i++
			}
			if i+1 < len(re) && re[i+1] == ']' {
				sb.WriteByte(']')
				i++
			}
			continue
		case c == ']' && inClass:
			inClass = false
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// nmtNormalizer is Nmt, SentencePiece's nmt_nfkc control-character rules
// without the NFKC part (sentencepiece/src/normalizer.cc): some control
// characters removed, others and some spaces mapped to ' '.
type nmtNormalizer struct{}

func nmtMap(r rune) (rune, bool) {
	switch {
	case r >= 0x1 && r <= 0x8, r == 0xB, r >= 0xE && r <= 0x1F, r == 0x7F, r == 0x8F, r == 0x9F:
		return 0, false
	case r == 0x9, r == 0xA, r == 0xC, r == 0xD, r == 0x1680, r >= 0x200B && r <= 0x200F,
		r == 0x2028, r == 0x2029, r == 0x2581, r == 0xFEFF, r == 0xFFFD:
		return ' ', true
	}
	return r, true
}

func (nmtNormalizer) normalize(t, tmp *normText) {
	tmp.reset()
	for i := 0; i < len(t.s); {
		r, size := runeAt(t.s, i)
		switch m, keep := nmtMap(r); {
		case !keep:
		case m == r:
			tmp.appendFrom(t, i, i+size)
		default:
			tmp.appendRune(m, t.align[i])
		}
		i += size
	}
	swap(t, tmp)
}
