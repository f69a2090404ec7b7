package tokenizer

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

var fuzzSeeds = []string{
	"a photo of a cat",
	"Héllo naïve café!",
	"我爱视频 and 日本語",
	"emoji 🙂 test 🇫🇷",
	"  multiple   spaces\tand\nnewlines  ",
	"[CLS] a [SEP] <|endoftext|> <|startoftext|>x",
	"don't won't I'LL",
	"\x00\x01\xff\xfe invalid",
	"İstanbul ǅ ΣΑΣ ﬁ ①",
	strings.Repeat("x", 300),
	"a\u0301\u0302\u0303",
	"",
}

// normalizedForDecode is what Decode should give back for text, up to
// spaces: each part between added tokens run through the normalizer,
// added tokens as they are.
func normalizedForDecode(tok *Tokenizer, text string) string {
	var orig, part, tmp normText
	orig.setOriginal(text, 0)
	var sb strings.Builder
	for _, sp := range tok.rawAdded.split(orig.s, contentOf, nil) {
		if sp.tok != nil {
			sb.WriteString(sp.tok.content)
			continue
		}
		part.reset()
		part.appendFrom(&orig, sp.start, sp.end)
		tok.normalizer.normalize(&part, &tmp)
		sb.Write(part.s)
	}
	return sb.String()
}

func withoutSpaces(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// fuzzEncode checks what must hold for any input: no panic, consistent
// slices, ids in range, offsets inside the text, and that decoding gives
// the normalized text back up to spaces (BERT: when nothing is unknown).
func fuzzEncode(f *testing.F, file string, lossless func(Encoding) bool) {
	tok := loadShared(f, file)
	tok.SetPadding(nil)
	tok.SetTruncation(nil)
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		enc, err := tok.Encode(text, true)
		if err != nil {
			t.Fatal(err)
		}
		n := enc.Len()
		if len(enc.TypeIDs) != n || len(enc.AttentionMask) != n || len(enc.Tokens) != n || len(enc.Offsets) != n || len(enc.SpecialTokensMask) != n {
			t.Fatalf("slices of different lengths: %+v", enc)
		}
		if n < 2 || enc.SpecialTokensMask[0] != 1 || enc.SpecialTokensMask[n-1] != 1 {
			t.Fatalf("special tokens missing: %v", enc.Tokens)
		}
		for i, id := range enc.IDs {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("id %d out of range", id)
			}
			if tk, ok := tok.IDToToken(id); !ok || tk != enc.Tokens[i] {
				t.Fatalf("token %d is %q but id %d is %q", i, enc.Tokens[i], id, tk)
			}
			off := enc.Offsets[i]
			if off[0] < 0 || off[0] > off[1] || off[1] > len(text) {
				t.Fatalf("offsets %v outside the %d-byte text", off, len(text))
			}
			if i > 0 && enc.SpecialTokensMask[i] == 0 && off[0] < enc.Offsets[i-1][0] {
				t.Fatalf("offsets go backwards: %v", enc.Offsets)
			}
		}
		if !lossless(enc) {
			return
		}
		got := withoutSpaces(tok.Decode(enc.IDs[1:n-1], false))
		want := withoutSpaces(normalizedForDecode(tok, text))
		if got != want {
			t.Fatalf("Decode(Encode(%q)) = %q, want %q (up to spaces)", text, got, want)
		}
	})
}

func FuzzBERTEncode(f *testing.F) {
	fuzzEncode(f, "bert_wordpiece_tokenizer.json", func(e Encoding) bool {
		return !slices.Contains(e.Tokens, "[UNK]")
	})
}

func FuzzCLIPEncode(f *testing.F) {
	fuzzEncode(f, "clip_bpe_tokenizer.json", func(Encoding) bool { return true })
}
