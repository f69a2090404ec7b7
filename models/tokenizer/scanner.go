package tokenizer

import (
	"bytes"
	"unicode/utf8"
)

// Hand-written scanners for the pre-tokenizer regexes of real files. Go's
// regexp (RE2) has no lookahead, which the GPT-2 and Qwen2 patterns need for
// `\s+(?!\S)`, and a scanner is several times faster than a regexp engine in
// this hot path. Each scanner appends the byte ranges of its matches, left to
// right, exactly as the reference's leftmost-first regex engine finds them.

// A scanner appends the matches of one pattern in s to dst.
type scanner func(s []byte, dst [][2]int) [][2]int

// Patterns with a scanner, exactly as they appear in tokenizer.json files.
const (
	// CLIP (openai/CLIP simple_tokenizer.py, as transformers converts it).
	clipPattern = `<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+`
	// GPT-2 (openai/gpt-2 src/encoder.py), used by the ByteLevel
	// pre-tokenizer when use_regex is true.
	gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	// Qwen2 and Qwen2.5 tokenizer.json.
	qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// Llama 3: Qwen2's pattern with numbers in groups of up to three.
	llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// Whitespace pre-tokenizer.
	whitespacePattern = `\w+|[^\w\s]+`
)

// scanners maps a pattern to its scanner.
var scanners = map[string]scanner{
	clipPattern:       scanCLIP,
	gpt2Pattern:       scanGPT2,
	qwen2Pattern:      func(s []byte, dst [][2]int) [][2]int { return scanQwen2(s, dst, 1) },
	llama3Pattern:     func(s []byte, dst [][2]int) [][2]int { return scanQwen2(s, dst, 3) },
	whitespacePattern: scanWhitespaceWords,
}

// runeAt decodes the rune at s[i], with an ASCII fast path.
func runeAt(s []byte, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(s[i:])
}

// isOther is [^\s\p{L}\p{N}].
func isOther(r rune) bool { return !isWhitespace(r) && !isLetter(r) && !isNumber(r) }

// runWhile returns the end of the run of runes from i satisfying f.
func runWhile(s []byte, i int, f func(rune) bool) int {
	for i < len(s) {
		r, size := runeAt(s, i)
		if !f(r) {
			break
		}
		i += size
	}
	return i
}

// contraction returns the length of 's 't 're 've 'm 'll 'd at s[i:], or 0.
func contraction(s []byte, i int, foldCase bool) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	lower := func(c byte) byte {
		if foldCase && c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < len(s) {
		a, b := lower(s[i+1]), lower(s[i+2])
		if (a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l') {
			return 3
		}
	}
	return 0
}

var (
	clipStart = []byte("<|startoftext|>")
	clipEnd   = []byte("<|endoftext|>")
)

func scanCLIP(s []byte, dst [][2]int) [][2]int {
	for i := 0; i < len(s); {
		if s[i] == '<' {
			if bytes.HasPrefix(s[i:], clipStart) {
				dst = append(dst, [2]int{i, i + len(clipStart)})
				i += len(clipStart)
				continue
			}
			if bytes.HasPrefix(s[i:], clipEnd) {
				dst = append(dst, [2]int{i, i + len(clipEnd)})
				i += len(clipEnd)
				continue
			}
		}
		if n := contraction(s, i, false); n > 0 {
			dst = append(dst, [2]int{i, i + n})
			i += n
			continue
		}
		r, size := runeAt(s, i)
		var j int
		switch {
		case isLetter(r):
			j = runWhile(s, i+size, isLetter)
		case isNumber(r):
			j = i + size
		case isWhitespace(r):
			i += size // matched by no alternative
			continue
		default:
			j = runWhile(s, i+size, isOther)
		}
		dst = append(dst, [2]int{i, j})
		i = j
	}
	return dst
}

// wsEnd handles `\s+(?!\S)|\s+` at a whitespace rune at i: the run of
// whitespace, less its last rune when more than one rune is followed by a
// non-space, so that the last space can prefix the next word.
func wsEnd(s []byte, i int) int {
	k := runWhile(s, i, isWhitespace)
	if k == len(s) {
		return k
	}
	_, last := utf8.DecodeLastRune(s[i:k])
	if k-last > i {
		return k - last
	}
	return k
}

func scanGPT2(s []byte, dst [][2]int) [][2]int {
	for i := 0; i < len(s); {
		if n := contraction(s, i, false); n > 0 {
			dst = append(dst, [2]int{i, i + n})
			i += n
			continue
		}
		j := i
		if s[i] == ' ' && i+1 < len(s) {
			j = i + 1
		}
		r, size := runeAt(s, j)
		end := -1
		switch {
		case isLetter(r):
			end = runWhile(s, j+size, isLetter)
		case isNumber(r):
			end = runWhile(s, j+size, isNumber)
		case !isWhitespace(r):
			end = runWhile(s, j+size, isOther)
		}
		if end < 0 {
			// s[j] is whitespace: s[i] is too (if j > i, s[i] is ' ').
			end = wsEnd(s, i)
		}
		dst = append(dst, [2]int{i, end})
		i = end
	}
	return dst
}

func isNewline(r rune) bool { return r == '\r' || r == '\n' }

// scanQwen2 scans Qwen2's pattern, or Llama 3's when maxDigits is 3.
func scanQwen2(s []byte, dst [][2]int, maxDigits int) [][2]int {
	for i := 0; i < len(s); {
		end := qwen2Match(s, i, maxDigits)
		dst = append(dst, [2]int{i, end})
		i = end
	}
	return dst
}

func qwen2Match(s []byte, i, maxDigits int) int {
	if n := contraction(s, i, true); n > 0 {
		return i + n
	}
	r, size := runeAt(s, i)
	next := rune(-1)
	nextSize := 0
	if i+size < len(s) {
		next, nextSize = runeAt(s, i+size)
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isLetter(r) {
		return runWhile(s, i+size, isLetter)
	}
	if !isNewline(r) && !isNumber(r) && next >= 0 && isLetter(next) {
		return runWhile(s, i+size+nextSize, isLetter)
	}
	// \p{N} or \p{N}{1,3}
	if isNumber(r) {
		j := i + size
		for n := 1; n < maxDigits && j < len(s); n++ {
			r2, size2 := runeAt(s, j)
			if !isNumber(r2) {
				break
			}
			j += size2
		}
		return j
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`
	j := -1
	if isOther(r) {
		j = i
	} else if r == ' ' && next >= 0 && isOther(next) {
		j = i + size
	}
	if j >= 0 {
		k := runWhile(s, j, isOther)
		return runWhile(s, k, isNewline)
	}
	// r is whitespace. `\s*[\r\n]+`: up to the last newline of the run.
	k := runWhile(s, i, isWhitespace)
	lastNL := -1
	for p := i; p < k; {
		r2, size2 := runeAt(s, p)
		if isNewline(r2) {
			lastNL = p + size2
		}
		p += size2
	}
	if lastNL >= 0 {
		return lastNL
	}
	return wsEnd(s, i)
}

// scanWhitespaceWords is `\w+|[^\w\s]+`.
func scanWhitespaceWords(s []byte, dst [][2]int) [][2]int {
	notWordNotSpace := func(r rune) bool { return !isWordChar(r) && !isWhitespace(r) }
	for i := 0; i < len(s); {
		r, size := runeAt(s, i)
		var j int
		switch {
		case isWordChar(r):
			j = runWhile(s, i+size, isWordChar)
		case isWhitespace(r):
			i += size
			continue
		default:
			j = runWhile(s, i+size, notWordNotSpace)
		}
		dst = append(dst, [2]int{i, j})
		i = j
	}
	return dst
}
