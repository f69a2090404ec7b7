package tokenizer

// The byte-level alphabet of GPT-2 (openai/gpt-2 src/encoder.py,
// bytes_to_unicode): every byte maps to a printable rune so that BPE can
// work on any input without an unknown token. The printable Latin-1 bytes
// '!'..'~', '¡'..'¬' and '®'..'ÿ' map to themselves; the other 68 bytes
// map, in order, to U+0100 onwards.
type byteAlphabet struct {
	toRune [256]rune
	// toByte maps a rune of the alphabet back to its byte; the alphabet
	// lies within U+0000..U+0143.
	toByte [0x144]int16
	// enc is each byte's rune as UTF-8, to append without encoding.
	enc [256]string
}

func newByteAlphabet() *byteAlphabet {
	a := &byteAlphabet{}
	for i := range a.toByte {
		a.toByte[i] = -1
	}
	n := 0
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		r := rune(b)
		if !printable {
			r = rune(256 + n)
			n++
		}
		a.toRune[b] = r
		a.toByte[r] = int16(b)
		a.enc[b] = string(r)
	}
	return a
}

// byteLevel is shared by every tokenizer; it is immutable after init.
var byteLevel = newByteAlphabet()

// decode maps the runes of s back to bytes; runes outside the alphabet are
// kept as their UTF-8, as the reference's decoder does.
func (a *byteAlphabet) decode(dst []byte, s string) []byte {
	for _, r := range s {
		if r >= 0 && int(r) < len(a.toByte) && a.toByte[r] >= 0 {
			dst = append(dst, byte(a.toByte[r]))
			continue
		}
		dst = append(dst, string(r)...)
	}
	return dst
}
