package tokenizer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A decoder turns tokens back into text pieces; Decode joins what the last
// decoder of the chain returns.
type decoder interface {
	decode(tokens []string) []string
}

type sequenceDecoder []decoder

func (s sequenceDecoder) decode(tokens []string) []string {
	for _, d := range s {
		tokens = d.decode(tokens)
	}
	return tokens
}

// wordPieceDecoder is the WordPiece decoder: continuation pieces join the
// previous token without their prefix, others get a space; with cleanup,
// spaces before punctuation and contractions go (the reference's
// clean_up_tokenization).
type wordPieceDecoder struct {
	prefix  string
	cleanup bool
}

func (d wordPieceDecoder) decode(tokens []string) []string {
	var sb strings.Builder
	for i, t := range tokens {
		if i > 0 {
			if strings.HasPrefix(t, d.prefix) {
				t = t[len(d.prefix):]
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(t)
	}
	if d.cleanup {
		// On the joined text, as transformers' clean_up_tokenization does
		// after the reference's per-token pass (which cannot join "' s").
		return []string{cleanupTokenization(sb.String())}
	}
	return []string{sb.String()}
}

// cleanupReplacer is transformers' clean_up_tokenization
// (tokenization_utils_base.py). The reference's Rust list also turns
// " do not" into " don't", which changes meaning; transformers, which
// users of these files decode with, does not.
var cleanupReplacer = []struct{ from, to string }{
	{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
	{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
}

func cleanupTokenization(s string) string {
	for _, r := range cleanupReplacer {
		s = strings.ReplaceAll(s, r.from, r.to)
	}
	return s
}

// byteLevelDecoder is the ByteLevel decoder: the runes of the byte-level
// alphabet back to bytes, invalid UTF-8 replaced by U+FFFD. A token with a
// rune outside the alphabet (an added token) is kept as it is.
type byteLevelDecoder struct{}

func (byteLevelDecoder) decode(tokens []string) []string {
	var b []byte
	for _, t := range tokens {
		inAlphabet := true
		for _, r := range t {
			if int(r) >= len(byteLevel.toByte) || byteLevel.toByte[r] < 0 {
				inAlphabet = false
				break
			}
		}
		if inAlphabet {
			b = byteLevel.decode(b, t)
		} else {
			b = append(b, t...)
		}
	}
	return []string{strings.ToValidUTF8(string(b), "\uFFFD")}
}

// bpeDecoder is BPEDecoder: the end-of-word suffix becomes a space (none
// after the last token).
type bpeDecoder struct{ suffix string }

func (d bpeDecoder) decode(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		rep := " "
		if i == len(tokens)-1 {
			rep = ""
		}
		out[i] = strings.ReplaceAll(t, d.suffix, rep)
	}
	return out
}

// metaspaceDecoder is the Metaspace decoder: the replacement rune becomes a
// space, except in the first token when a space was prepended.
type metaspaceDecoder struct {
	replacement rune
	prepend     prependScheme
}

func (d metaspaceDecoder) decode(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		var sb strings.Builder
		for _, r := range t {
			if r == d.replacement {
				if i == 0 && d.prepend != prependNever {
					continue
				}
				r = ' '
			}
			sb.WriteRune(r)
		}
		out[i] = sb.String()
	}
	return out
}

// byteFallbackDecoder is ByteFallback: runs of "<0xXX>" tokens become the
// bytes they name, decoded as UTF-8; a run that is not valid UTF-8 becomes
// one U+FFFD per byte.
type byteFallbackDecoder struct{}

func (byteFallbackDecoder) decode(tokens []string) []string {
	var out []string
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range tokens {
		if b, ok := parseByteToken(t); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// parseByteToken reads "<0xXX>".
func parseByteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(t[3:5], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

// fuseDecoder is Fuse: all tokens into one string.
type fuseDecoder struct{}

func (fuseDecoder) decode(tokens []string) []string {
	return []string{strings.Join(tokens, "")}
}

// stripDecoder is Strip: remove up to start copies of content from the left
// of each token and up to stop from the right.
type stripDecoder struct {
	content     string
	start, stop int
}

func (d stripDecoder) decode(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		for k := 0; k < d.start && strings.HasPrefix(t, d.content); k++ {
			t = t[len(d.content):]
		}
		for k := 0; k < d.stop && strings.HasSuffix(t, d.content); k++ {
			t = t[:len(t)-len(d.content)]
		}
		out[i] = t
	}
	return out
}

// replaceDecoder is Replace: a literal pattern replaced in each token.
type replaceDecoder struct{ from, to string }

func (d replaceDecoder) decode(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = strings.ReplaceAll(t, d.from, d.to)
	}
	return out
}
