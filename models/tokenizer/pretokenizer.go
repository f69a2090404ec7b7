package tokenizer

import (
	"slices"
	"unicode/utf8"
)

// A piece is a span of normalized text that the model tokenizes on its own
// (a "word"), with the original range of each of its bytes.
type piece struct {
	s     []byte
	align []span
}

// A preTokenizer splits (and may transform) pieces. It appends its output
// to out; transformed text is written into ar, which outlives the call.
type preTokenizer interface {
	preTokenize(in, out []piece, ar *arena) []piece
}

// arena holds the text of transformed pieces during one encoding. Pieces
// keep pointing at old backing arrays when the buffers grow, which stay
// valid, so appending never invalidates a piece.
type arena struct {
	normText
	matches [][2]int
	segs    []segment
	free    [][]piece // piece buffers for the steps of a sequence
}

// piece returns the arena's bytes [from:] as a piece, capped so that
// appending to it cannot overwrite later text.
func (a *arena) piece(from int) piece {
	return piece{s: a.s[from:len(a.s):len(a.s)], align: a.align[from:len(a.align):len(a.align)]}
}

type sequencePreTokenizer []preTokenizer

func (s sequencePreTokenizer) preTokenize(in, out []piece, ar *arena) []piece {
	cur := in
	for k, p := range s {
		if k == len(s)-1 {
			out = p.preTokenize(cur, out, ar)
			if k > 0 {
				ar.free = append(ar.free, cur[:0])
			}
			return out
		}
		var buf []piece
		if n := len(ar.free); n > 0 {
			buf, ar.free = ar.free[n-1], ar.free[:n-1]
		}
		next := p.preTokenize(cur, buf, ar)
		if k > 0 {
			ar.free = append(ar.free, cur[:0])
		}
		cur = next
	}
	return append(out, in...)
}

// behavior says what a split does with the text a pattern matched.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

// segment is a matched or unmatched byte range of a piece.
type segment struct {
	start, end int
	match      bool
}

// splitPiece cuts p at the matches ms (sorted, non-overlapping) following
// the reference's SplitDelimiterBehavior; invert swaps matched and
// unmatched text first.
func splitPiece(p piece, ms [][2]int, b behavior, invert bool, segs []segment, out []piece) ([]piece, []segment) {
	segs = segs[:0]
	last := 0
	for _, m := range ms {
		if m[0] > last {
			segs = append(segs, segment{last, m[0], invert})
		}
		segs = append(segs, segment{m[0], m[1], !invert})
		last = m[1]
	}
	if last < len(p.s) {
		segs = append(segs, segment{last, len(p.s), invert})
	}
	switch b {
	case removed:
		w := 0
		for _, sg := range segs {
			if !sg.match {
				segs[w] = sg
				w++
			}
		}
		segs = segs[:w]
	case isolated:
	case contiguous:
		w := 0
		prev := false
		for k, sg := range segs {
			if k > 0 && sg.match == prev {
				segs[w-1].end = sg.end
			} else {
				segs[w] = sg
				w++
			}
			prev = sg.match
		}
		segs = segs[:w]
	case mergedWithPrevious:
		w := 0
		prev := false
		for _, sg := range segs {
			if sg.match && !prev && w > 0 {
				segs[w-1].end = sg.end
			} else {
				segs[w] = sg
				w++
			}
			prev = sg.match
		}
		segs = segs[:w]
	case mergedWithNext:
		// Walk backwards: a match joins the unmatched text after it.
		w := len(segs)
		prev := false
		for k := len(segs) - 1; k >= 0; k-- {
			sg := segs[k]
			if sg.match && !prev && w < len(segs) {
				segs[w].start = sg.start
			} else {
				w--
				segs[w] = sg
			}
			prev = sg.match
		}
		segs = segs[w:]
	}
	for _, sg := range segs {
		if sg.end > sg.start {
			out = append(out, piece{s: p.s[sg.start:sg.end], align: p.align[sg.start:sg.end]})
		}
	}
	return out, segs
}

// splitPreTokenizer is Split (and Punctuation, Digits, WhitespaceSplit):
// a pattern and what to do with its matches.
type splitPreTokenizer struct {
	scan     scanner
	behavior behavior
	invert   bool
}

func (p splitPreTokenizer) preTokenize(in, out []piece, ar *arena) []piece {
	for _, pc := range in {
		ar.matches = p.scan(pc.s, ar.matches[:0])
		if !p.invert && p.behavior == isolated && coversAll(ar.matches, len(pc.s)) {
			// Fast path: every byte matched, each match is a piece.
			for _, m := range ar.matches {
				out = append(out, piece{s: pc.s[m[0]:m[1]], align: pc.align[m[0]:m[1]]})
			}
			continue
		}
		if p.invert && p.behavior == removed {
			for _, m := range ar.matches {
				out = append(out, piece{s: pc.s[m[0]:m[1]], align: pc.align[m[0]:m[1]]})
			}
			continue
		}
		out, ar.segs = splitPiece(pc, ar.matches, p.behavior, p.invert, ar.segs, out)
	}
	return out
}

func coversAll(ms [][2]int, n int) bool {
	last := 0
	for _, m := range ms {
		if m[0] != last {
			return false
		}
		last = m[1]
	}
	return last == n
}

// scanRunes returns a scanner matching each rune satisfying f on its own.
func scanRunes(f func(rune) bool) scanner {
	return func(s []byte, dst [][2]int) [][2]int {
		for i := 0; i < len(s); {
			r, size := runeAt(s, i)
			if f(r) {
				dst = append(dst, [2]int{i, i + size})
			}
			i += size
		}
		return dst
	}
}

// scanRuns returns a scanner matching maximal runs of runes satisfying f.
func scanRuns(f func(rune) bool) scanner {
	return func(s []byte, dst [][2]int) [][2]int {
		for i := 0; i < len(s); {
			r, size := runeAt(s, i)
			if !f(r) {
				i += size
				continue
			}
			j := runWhile(s, i+size, f)
			dst = append(dst, [2]int{i, j})
			i = j
		}
		return dst
	}
}

// bertPreTokenizer is BertPreTokenizer: split on whitespace (dropped) and
// on each punctuation character (kept as its own piece), in one pass.
type bertPreTokenizer struct{}

func (bertPreTokenizer) preTokenize(in, out []piece, ar *arena) []piece {
	for _, pc := range in {
		s := pc.s
		start := -1
		for i := 0; i < len(s); {
			r, size := runeAt(s, i)
			switch {
			case isWhitespace(r):
				if start >= 0 {
					out = append(out, piece{s[start:i], pc.align[start:i]})
					start = -1
				}
			case isBertPunctuation(r):
				if start >= 0 {
					out = append(out, piece{s[start:i], pc.align[start:i]})
					start = -1
				}
				out = append(out, piece{s[i : i+size], pc.align[i : i+size]})
			default:
				if start < 0 {
					start = i
				}
			}
			i += size
		}
		if start >= 0 {
			out = append(out, piece{s[start:], pc.align[start:]})
		}
	}
	return out
}

// byteLevelPreTokenizer is ByteLevel: optionally a space before each
// piece, the GPT-2 split, then every byte replaced by its rune in the
// byte-level alphabet.
type byteLevelPreTokenizer struct {
	addPrefixSpace bool
	useRegex       bool
}

func (p byteLevelPreTokenizer) preTokenize(in, out []piece, ar *arena) []piece {
	for _, pc := range in {
		if len(pc.s) == 0 {
			continue
		}
		if p.addPrefixSpace && pc.s[0] != ' ' {
			from := len(ar.s)
			ar.appendString(" ", pc.align[0])
			ar.appendFrom(&normText{s: pc.s, align: pc.align}, 0, len(pc.s))
			pc = ar.piece(from)
		}
		if !p.useRegex {
			out = append(out, byteLevelPiece(pc, ar))
			continue
		}
		ar.matches = scanGPT2(pc.s, ar.matches[:0])
		for _, m := range ar.matches {
			sub := piece{s: pc.s[m[0]:m[1]], align: pc.align[m[0]:m[1]]}
			out = append(out, byteLevelPiece(sub, ar))
		}
	}
	return out
}

// byteLevelPiece maps each byte of pc to its byte-level rune; the runes of
// one original character all keep that character's range.
func byteLevelPiece(pc piece, ar *arena) piece {
	from := len(ar.s)
	ar.s = slices.Grow(ar.s, 2*len(pc.s))
	ar.align = slices.Grow(ar.align, 2*len(pc.s))
	for i, c := range pc.s {
		sp := pc.align[i]
		if c >= '!' && c <= '~' { // maps to itself
			ar.s = append(ar.s, c)
			ar.align = append(ar.align, sp)
			continue
		}
		enc := byteLevel.enc[c]
		ar.s = append(ar.s, enc...)
		for range len(enc) {
			ar.align = append(ar.align, sp)
		}
	}
	return ar.piece(from)
}

// metaspacePreTokenizer is Metaspace: spaces become the replacement rune
// (U+2581 in SentencePiece files), one is prepended per prepend scheme,
// and with split the text is cut before each replacement rune.
type metaspacePreTokenizer struct {
	replacement rune
	repl        string
	prepend     prependScheme
	split       bool
}

type prependScheme int

const (
	prependAlways prependScheme = iota
	prependFirst
	prependNever
)

func (p metaspacePreTokenizer) preTokenize(in, out []piece, ar *arena) []piece {
	for _, pc := range in {
		if len(pc.s) == 0 {
			continue
		}
		from := len(ar.s)
		first, _ := utf8.DecodeRune(pc.s)
		if first != p.replacement && first != ' ' {
			if p.prepend == prependAlways || (p.prepend == prependFirst && pc.align[0].start == 0) {
				ar.appendString(p.repl, pc.align[0])
			}
		}
		for i := 0; i < len(pc.s); {
			r, size := runeAt(pc.s, i)
			if r == ' ' {
				ar.appendString(p.repl, pc.align[i])
			} else {
				ar.appendFrom(&normText{s: pc.s, align: pc.align}, i, i+size)
			}
			i += size
		}
		np := ar.piece(from)
		if !p.split {
			out = append(out, np)
			continue
		}
		// MergedWithNext on the replacement rune.
		start := 0
		for i := 0; i < len(np.s); {
			r, size := runeAt(np.s, i)
			if r == p.replacement && i > start {
				out = append(out, piece{np.s[start:i], np.align[start:i]})
				start = i
			}
			i += size
		}
		if start < len(np.s) {
			out = append(out, piece{np.s[start:], np.align[start:]})
		}
	}
	return out
}
