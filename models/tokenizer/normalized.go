package tokenizer

import (
	"unicode/utf8"
)

// span is a half-open byte range [start, end) in the original input text.
type span struct{ start, end int32 }

// normText is text being transformed by normalizers and pre-tokenizers,
// with, for every byte of s, the range of the original input it came from.
// All bytes of one rune share one span, so offsets can always be mapped back
// to whole characters of the input, as the reference's NormalizedString does.
type normText struct {
	s     []byte
	align []span
	// scratch and ranges are working space for normalizers, reused
	// between calls.
	scratch []byte
	ranges  [][2]int
}

// reset empties t, keeping its buffers.
func (t *normText) reset() {
	t.s = t.s[:0]
	t.align = t.align[:0]
}

// appendRune appends r, attributed to the original range sp.
func (t *normText) appendRune(r rune, sp span) {
	n := len(t.s)
	if r < utf8.RuneSelf {
		t.s = append(t.s, byte(r))
	} else {
		t.s = utf8.AppendRune(t.s, r)
	}
	for i := n; i < len(t.s); i++ {
		t.align = append(t.align, sp)
	}
}

// appendString appends s, attributed as a whole to sp.
func (t *normText) appendString(s string, sp span) {
	t.s = append(t.s, s...)
	for range len(s) {
		t.align = append(t.align, sp)
	}
}

// appendFrom copies bytes [i, j) of src with their own alignment.
func (t *normText) appendFrom(src *normText, i, j int) {
	t.s = append(t.s, src.s[i:j]...)
	t.align = append(t.align, src.align[i:j]...)
}

// setOriginal fills t with text, each byte aligned to the rune containing it
// and shifted by base. Invalid UTF-8 bytes become U+FFFD, each aligned to the
// byte it replaces, so that everything after this point sees valid UTF-8.
func (t *normText) setOriginal(text string, base int) {
	t.reset()
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			t.s = append(t.s, c)
			t.align = append(t.align, span{int32(base + i), int32(base + i + 1)})
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		sp := span{int32(base + i), int32(base + i + size)}
		if r == utf8.RuneError && size == 1 {
			t.appendRune(utf8.RuneError, sp)
		} else {
			t.s = append(t.s, text[i:i+size]...)
			for range size {
				t.align = append(t.align, sp)
			}
		}
		i += size
	}
}

// spanOf returns the original range covered by bytes [i, j) of t. An empty
// range maps to the empty original range at the position of byte i.
func (t *normText) spanOf(i, j int) span {
	if i >= j {
		if i < len(t.align) {
			return span{t.align[i].start, t.align[i].start}
		}
		if len(t.align) > 0 {
			e := t.align[len(t.align)-1].end
			return span{e, e}
		}
		return span{}
	}
	return span{t.align[i].start, t.align[j-1].end}
}

// isASCII reports whether b holds only ASCII bytes.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
