package tokenizer

import "unicode/utf8"

// A token as a model produces it: an id and the byte range of the piece it
// covers.
type token struct {
	id         int32
	start, end int32
}

// scratch is memory a model may reuse from one piece to the next.
type scratch struct {
	buf   []byte
	nodes []unigramNode
}

// A model turns one piece into tokens.
type model interface {
	tokenize(s []byte, out []token, sc *scratch) []token
	vocab() *vocabulary
}

// vocabulary is a model's token <-> id mapping.
type vocabulary struct {
	ids    map[string]int
	tokens []string // by id; "" where no token has the id
}

func newVocabulary(ids map[string]int) *vocabulary {
	n := 0
	for _, id := range ids {
		if id+1 > n {
			n = id + 1
		}
	}
	v := &vocabulary{ids: ids, tokens: make([]string, n)}
	for tok, id := range ids {
		if id >= 0 {
			v.tokens[id] = tok
		}
	}
	return v
}

// wordPiece is the WordPiece model: greedy longest-match-first over the
// vocabulary, continuation pieces carrying a prefix ("##"); a word with any
// part not in the vocabulary becomes the unknown token as a whole.
type wordPiece struct {
	v        *vocabulary
	unk      int32
	prefix   string
	maxChars int
	maxLen   int // longest vocabulary entry in bytes, bounding the search
}

func (m *wordPiece) vocab() *vocabulary { return m.v }

func (m *wordPiece) tokenize(s []byte, out []token, sc *scratch) []token {
	if utf8.RuneCount(s) > m.maxChars {
		return append(out, token{m.unk, 0, int32(len(s))})
	}
	mark := len(out)
	for start := 0; start < len(s); {
		end := len(s)
		if lim := start + m.maxLen; end > lim {
			end = lim
			for end > start && !utf8.RuneStart(s[end]) {
				end--
			}
		}
		found := -1
		for end > start {
			var id int
			var ok bool
			if start > 0 {
				b := append(sc.buf[:0], m.prefix...)
				b = append(b, s[start:end]...)
				sc.buf = b
				id, ok = m.v.ids[string(b)]
			} else {
				id, ok = m.v.ids[string(s[start:end])]
			}
			if ok {
				found = id
				break
			}
			end--
			for end > start && !utf8.RuneStart(s[end]) {
				end--
			}
		}
		if found < 0 {
			return append(out[:mark], token{m.unk, 0, int32(len(s))})
		}
		out = append(out, token{int32(found), int32(start), int32(end)})
		start = end
	}
	return out
}
