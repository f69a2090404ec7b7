package tokenizer

import (
	"math"
	"slices"
	"unicode/utf8"
)

// unigram is SentencePiece's unigram model: the tokenization of a piece is
// the path through the lattice of vocabulary matches with the highest total
// score (Viterbi). A character no piece covers costs the lowest score less
// 10 (SentencePiece's kUnkPenalty, unigram_model.cc) and becomes the
// unknown token; consecutive unknowns fuse into one, which byte_fallback
// then spells as "<0xXX>" byte tokens.
type unigram struct {
	v            *vocabulary
	scores       []float64
	unk          int32
	byteFallback bool
	fuseUnk      bool
	trie         *byteTrie
	unkScore     float64
	byteIDs      [256]int32
}

// unkPenalty is kUnkPenalty of sentencepiece/src/unigram_model.cc.
const unkPenalty = 10.0

func (m *unigram) vocab() *vocabulary { return m.v }

// unigramNode is the best path ending at a byte position.
type unigramNode struct {
	score float64
	start int32 // -1: unreached
	id    int32
}

func (m *unigram) tokenize(s []byte, out []token, sc *scratch) []token {
	if len(s) == 0 {
		return out
	}
	// The best path ending at each byte position.
	nodes := slices.Grow(sc.nodes[:0], len(s)+1)[:len(s)+1]
	sc.nodes = nodes
	for i := range nodes {
		nodes[i] = unigramNode{score: math.Inf(-1), start: -1}
	}
	nodes[0].start = 0
	nodes[0].score = 0
	for start := 0; start < len(s); {
		_, runeLen := utf8.DecodeRune(s[start:])
		base := nodes[start].score
		single := false
		m.trie.prefixes(s[start:], func(n int, id int32) {
			end := start + n
			cand := base + m.scores[id]
			if nd := &nodes[end]; nd.start < 0 || cand > nd.score {
				*nd = unigramNode{score: cand, start: int32(start), id: id}
			}
			if n == runeLen {
				single = true
			}
		})
		if !single {
			cand := base + m.unkScore
			if nd := &nodes[start+runeLen]; nd.start < 0 || cand > nd.score {
				*nd = unigramNode{score: cand, start: int32(start), id: m.unk}
			}
		}
		start += runeLen
	}
	// Backtrack, fusing runs of unknowns.
	mark := len(out)
	for end := len(s); end > 0; {
		nd := nodes[end]
		if m.fuseUnk && nd.id == m.unk && len(out) > mark && out[len(out)-1].id == m.unk {
			out[len(out)-1].start = nd.start
		} else {
			out = append(out, token{nd.id, nd.start, int32(end)})
		}
		end = int(nd.start)
	}
	reverse(out[mark:])
	if !m.byteFallback {
		return out
	}
	// Spell unknowns as bytes when every byte has a token.
	for k := mark; k < len(out); k++ {
		t := out[k]
		if t.id != m.unk || !m.hasBytes(s[t.start:t.end]) {
			continue
		}
		bytesToks := make([]token, 0, t.end-t.start)
		for i := t.start; i < t.end; i++ {
			bytesToks = append(bytesToks, token{m.byteIDs[s[i]], i, i + 1})
		}
		out = append(out[:k], append(bytesToks, out[k+1:]...)...)
		k += len(bytesToks) - 1
	}
	return out
}

func (m *unigram) hasBytes(b []byte) bool {
	for _, c := range b {
		if m.byteIDs[c] < 0 {
			return false
		}
	}
	return true
}

func reverse(t []token) {
	for i, j := 0, len(t)-1; i < j; i, j = i+1, j-1 {
		t[i], t[j] = t[j], t[i]
	}
}
