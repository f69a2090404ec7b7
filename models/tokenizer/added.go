package tokenizer

import (
	"sort"
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json's added_tokens: a string that is
// cut out of the input whole, before the model sees it (special tokens such
// as [CLS] or <|endoftext|>, and tokens a model's authors added).
type addedToken struct {
	id         int
	content    string
	singleWord bool // only as a whole word
	lstrip     bool // also swallows whitespace on its left
	rstrip     bool // and on its right
	normalized bool // matched in normalized text rather than raw input
	special    bool // dropped by Decode(skipSpecial)
}

// addedMatcher finds added tokens in text: at the leftmost position where
// any token matches, the longest one wins (the reference's Aho-Corasick
// automaton in LeftmostLongest mode).
type addedMatcher struct {
	byFirst [256][]*addedToken // by first byte, longest first
	any     bool
}

func newAddedMatcher(toks []*addedToken, content func(*addedToken) string) *addedMatcher {
	m := &addedMatcher{}
	for _, t := range toks {
		c := content(t)
		if c == "" {
			continue
		}
		m.byFirst[c[0]] = append(m.byFirst[c[0]], t)
		m.any = true
	}
	for i := range m.byFirst {
		l := m.byFirst[i]
		sort.SliceStable(l, func(a, b int) bool { return len(content(l[a])) > len(content(l[b])) })
	}
	return m
}

// addedSplit is a part of the input: an added token (tok != nil) or text.
type addedSplit struct {
	tok        *addedToken
	start, end int
}

// split cuts s at the added tokens in it; key gives the string each token
// is matched as (its content, normalized or not).
func (m *addedMatcher) split(s []byte, key func(*addedToken) string, dst []addedSplit) []addedSplit {
	if !m.any {
		return append(dst, addedSplit{nil, 0, len(s)})
	}
	last := 0
	for i := 0; i < len(s); {
		var hit *addedToken
		for _, t := range m.byFirst[s[i]] {
			k := key(t)
			if len(s)-i >= len(k) && string(s[i:i+len(k)]) == k {
				if t.singleWord && !wordBounded(s, i, i+len(k)) {
					continue
				}
				hit = t
				break
			}
		}
		if hit == nil {
			i++
			continue
		}
		start, stop := i, i+len(key(hit))
		if hit.lstrip {
			for start > last {
				r, size := utf8.DecodeLastRune(s[last:start])
				if !isWhitespace(r) {
					break
				}
				start -= size
			}
		}
		if hit.rstrip {
			for stop < len(s) {
				r, size := utf8.DecodeRune(s[stop:])
				if !isWhitespace(r) {
					break
				}
				stop += size
			}
		}
		if start > last {
			dst = append(dst, addedSplit{nil, last, start})
		}
		dst = append(dst, addedSplit{hit, start, stop})
		last = stop
		i = stop
	}
	if last < len(s) {
		dst = append(dst, addedSplit{nil, last, len(s)})
	}
	return dst
}

// wordBounded reports whether s[i:j] is not glued to word characters.
func wordBounded(s []byte, i, j int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRune(s[:i])
		if isWordChar(r) {
			return false
		}
	}
	if j < len(s) {
		r, _ := utf8.DecodeRune(s[j:])
		if isWordChar(r) {
			return false
		}
	}
	return true
}
