package tokenizer

import "unicode"

// Character classes as the reference (HF tokenizers, Rust) defines them.
// Go's unicode tables follow the same Unicode data, so the classes agree
// except where the Unicode versions differ.

// isWhitespace is Rust's char::is_whitespace, the Unicode White_Space
// property, which unicode.IsSpace implements.
func isWhitespace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.IsSpace(r)
}

// isBertWhitespace is the whitespace test of BertNormalizer's clean_text:
// tab, newline and carriage return count as whitespace although they are
// control characters.
func isBertWhitespace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || isWhitespace(r)
}

// isBertControl is BertNormalizer's control test: every Unicode "C"
// category (Cc, Cf, Co, Cs and unassigned Cn) except tab, newline and
// carriage return, which it treats as whitespace.
func isBertControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	// Cn: a code point in no category at all.
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isBertPunctuation is the reference's is_bert_punc: ASCII punctuation
// (which includes symbols such as $ + < = > ^ ` | ~) or any Unicode P*
// category.
func isBertPunctuation(r rune) bool {
	if r < 0x80 {
		return (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126)
	}
	return unicode.IsPunct(r)
}

// isCJK reports whether r is in the CJK Unified Ideographs blocks that
// BERT pads with spaces (google-research/bert tokenization.py,
// _is_chinese_char, as the reference's BertNormalizer has it). The
// reference's fifth range starts at U+2B920 where Google's starts at
// U+2B820 (tokenizers/src/normalizers/bert.rs, is_chinese_char, unchanged
// since 2019): U+2B820..U+2B91F (CJK Extension E) are not padded by
// Python transformers' fast BERT tokenizers, and not here either.
// transformers.js pads none of the ideographs beyond U+FFFF (it tests
// UTF-16 code units).
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// isLetter, isNumber: \p{L} and \p{N} of the reference's regexes.
func isLetter(r rune) bool {
	if r < 0x80 {
		return (r|0x20) >= 'a' && (r|0x20) <= 'z'
	}
	return unicode.IsLetter(r)
}

func isNumber(r rune) bool {
	if r < 0x80 {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isWordChar is \w of the reference's regex engine (Oniguruma): letters,
// marks, numbers and connector punctuation such as '_'.
func isWordChar(r rune) bool {
	if r < 0x80 {
		return isLetter(r) || isNumber(r) || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) || unicode.Is(unicode.Pc, r)
}

// appendLower appends the full lowercase mapping of r, as Rust's
// char::to_lowercase gives it: one rune, except U+0130 (capital I with dot
// above), whose lowercase is "i" followed by U+0307.
func appendLower(t *normText, r rune, sp span) {
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		t.s = append(t.s, byte(r))
		t.align = append(t.align, sp)
		return
	}
	if r == 0x130 {
		t.appendRune('i', sp)
		t.appendRune(0x307, sp)
		return
	}
	t.appendRune(unicode.ToLower(r), sp)
}
