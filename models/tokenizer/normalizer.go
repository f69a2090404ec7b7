package tokenizer

import (
	"bytes"
	"regexp"
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
	var one [utf8.UTFMax]byte
	var decomposed [32]byte
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
			k := utf8.EncodeRune(one[:], r)
			d := norm.NFD.Append(decomposed[:0], one[:k]...)
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
	last := 0
	found := false
	n.find.each(t.s, func(i, j int) {
		if j-i == 1 && len(n.content) == 1 && t.s[i] == n.content[0] {
			return // replacing a byte by itself changes nothing (`\s+` on " ")
		}
		found = true
		tmp.appendFrom(t, last, i)
		tmp.appendString(n.content, t.spanOf(i, j))
		last = j
	})
	if !found {
		return
	}
	tmp.appendFrom(t, last, len(t.s))
	swap(t, tmp)
}

// A matcher finds the non-overlapping, non-empty matches of a pattern,
// left to right.
type matcher interface {
	each(s []byte, f func(i, j int))
}

// literalMatcher matches a fixed string.
type literalMatcher string

func (m literalMatcher) each(s []byte, f func(i, j int)) {
	if m == "" {
		return
	}
	for off := 0; ; {
		k := bytes.Index(s[off:], []byte(m))
		if k < 0 {
			return
		}
		f(off+k, off+k+len(m))
		off += k + len(m)
	}
}

// runMatcher matches maximal runs of at least min runes satisfying in: the
// patterns `\s+` and ` {2,}` without a regexp engine.
type runMatcher struct {
	in  func(rune) bool
	min int
}

func (m runMatcher) each(s []byte, f func(i, j int)) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if !m.in(r) {
			i += size
			continue
		}
		j, n := i, 0
		for j < len(s) {
			r, size := utf8.DecodeRune(s[j:])
			if !m.in(r) {
				break
			}
			j += size
			n++
		}
		if n >= m.min {
			f(i, j)
		}
		i = j
	}
}

// regexpMatcher is the fallback for patterns without a hand-written
// matcher; Go's RE2 syntax covers those without lookaround.
type regexpMatcher struct{ re *regexp.Regexp }

func (m regexpMatcher) each(s []byte, f func(i, j int)) {
	for _, loc := range m.re.FindAllIndex(s, -1) {
		if loc[1] > loc[0] {
			f(loc[0], loc[1])
		}
	}
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
	re, err := regexp.Compile(regex)
	if err != nil {
		return nil, err
	}
	return regexpMatcher{re}, nil
}
