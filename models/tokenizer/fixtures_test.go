package tokenizer

import (
	"path/filepath"
	"slices"
	"testing"
)

// The fixtures in testdata/ copy the structure of real tokenizer.json files
// (GPT-2, RoBERTa, Qwen2, Llama 2, T5, SigLIP) with tiny vocabularies, so
// that every id below can be derived by hand. In the byte-level files the
// first 256 ids are GPT-2's byte alphabet in its own order: the printable
// bytes '!'..'~' are ids 0..93 (byte-33), '¡'..'¬' 94..105, '®'..'ÿ'
// 106..187, then the other bytes in order from 188, so space (Ġ) is 220 and
// newline (Ċ) 198, as in the real GPT-2 vocabulary. Merged tokens follow
// in the order of the merge list.

func loadFixture(t testing.TB, name string) *Tokenizer {
	t.Helper()
	tok, err := Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type idCase struct {
	name string
	text string
	want []int
}

func checkIDs(t *testing.T, file string, addSpecial bool, cases []idCase) {
	t.Helper()
	tok := loadFixture(t, file)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			enc, err := tok.Encode(c.text, addSpecial)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(enc.IDs, c.want) {
				t.Errorf("Encode(%q) = %v %q, want %v", c.text, enc.IDs, enc.Tokens, c.want)
			}
		})
	}
}

func TestGPT2ByteLevelBPE(t *testing.T) {
	t.Parallel()
	checkIDs(t, "gpt2_tiny.json", true, []idCase{
		// Pieces "Hello", "Ġworld". H,e,l,l,o: "l l" (rank 2) and then
		// "H e" (4), "He ll" (5), "Hell o" (6) give Hello=262; Ġ,w,o,r,l,d:
		// "Ġ w" (7), "o r" (8), "Ġw or" (9), "l d" (10), "Ġwor ld" (11)
		// give Ġworld=267.
		{"merges build whole words", "Hello world", []int{262, 267}},
		// "hello": "h e" (1) then "l l" (2) -> he=257, ll=258, o=78;
		// "Ġthe": "Ġ t" (0), "h e" (1), "Ġt he" (3) -> 259.
		{"lowest rank merges first", "hello the world", []int{257, 258, 78, 259, 267}},
		// l,l,d: "l l" (rank 2) beats "l d" (rank 10): ll=258, d=67.
		{"rank decides between overlapping pairs", "lld", []int{258, 67}},
		// GPT-2 regex: "it", "'s", " " (the first of two spaces, by
		// \s+(?!\S)), " ok", "\n". it=269, 's=268, Ġ=220, Ġ o k =
		// 220 78 74, Ċ=198.
		{"contractions and space runs", "it's  ok\n", []int{269, 268, 220, 220, 78, 74, 198}},
		// <|endoftext|> (id 271) is cut out before the model.
		{"added token inside text", "a<|endoftext|>b", []int{64, 271, 65}},
		// Three trailing spaces are one piece; "Ġ Ġ" merges leftmost first.
		{"trailing spaces", "   ", []int{270, 220}},
		// é is bytes C3 A9: C3 is printable (106+0xC3-0xAE=127), A9 too
		// (94+0xA9-0xA1=102).
		{"non-ASCII as bytes", "é", []int{127, 102}},
		{"empty text", "", nil},
	})
}

func TestRoBERTaProcessing(t *testing.T) {
	t.Parallel()
	// Ids are GPT-2's shifted by 4 after <s>, <pad>, </s>, <unk>.
	// add_prefix_space: "Hello world" is read as " Hello world": ĠHello
	// does not merge Ġ with Hello (no "Ġ Hello" merge): Ġ=224, Hello=266,
	// Ġworld=271.
	checkIDs(t, "roberta_tiny.json", true, []idCase{
		{"cls and sep around the text", "Hello world", []int{0, 224, 266, 271, 2}},
		// <mask> has lstrip: it swallows the space before it.
		{"lstrip added token", "Hello <mask>", []int{0, 224, 266, 275, 2}},
	})
	tok := loadFixture(t, "roberta_tiny.json")
	enc, err := tok.EncodePair("Hello", "world", true)
	if err != nil {
		t.Fatal(err)
	}
	// <s> A </s></s> B </s>, type ids all 0.
	if want := []int{0, 224, 266, 2, 2, 271, 2}; !slices.Equal(enc.IDs, want) {
		t.Errorf("EncodePair ids = %v, want %v", enc.IDs, want)
	}
	if want := []int{0, 0, 0, 0, 0, 0, 0}; !slices.Equal(enc.TypeIDs, want) {
		t.Errorf("EncodePair type ids = %v, want %v", enc.TypeIDs, want)
	}
	if want := []int{1, 0, 0, 1, 1, 0, 1}; !slices.Equal(enc.SpecialTokensMask, want) {
		t.Errorf("EncodePair special mask = %v, want %v", enc.SpecialTokensMask, want)
	}
	// trim_offsets: Ġworld covers "world" (6..11), not " world".
	enc, err = tok.Encode("Hello world", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{0, 0}, {0, 0}, {0, 5}, {6, 11}, {0, 0}}; !slices.Equal(enc.Offsets, want) {
		t.Errorf("offsets = %v, want %v", enc.Offsets, want)
	}
}

func TestQwen2Split(t *testing.T) {
	t.Parallel()
	checkIDs(t, "qwen2_tiny.json", true, []idCase{
		// Qwen2 pieces: "Hello" (259), "\n\n" (\s*[\r\n]+; Ċ Ċ merge 260),
		// "World" (W o, r l, Wo rl, Worl d: 264), " " (a lone space before
		// a digit), then each digit alone (\p{N}): 1=16 2=17 3=18, although
		// the vocabulary has a "1 2" merge.
		{"newlines and single digits", "Hello\n\nWorld 123", []int{259, 260, 264, 220, 16, 17, 18}},
		// (?i:'m) matches "'M"; " here" keeps its space ([^\r\n\p{L}\p{N}]?\p{L}+).
		// I=40 '=6 M=44 Ġ=220 h=71 e=68 r=81 e=68.
		{"case-insensitive contraction", "I'M here", []int{40, 6, 44, 220, 71, 68, 81, 68}},
		// ignore_merges is false here: ĠHi (266) is in the vocabulary but
		// no merge builds it, so " Hi" stays Ġ H i.
		{"no merge path, no token", " Hi", []int{220, 39, 72}},
		// Special tokens are cut out of the raw text; "\n" before a letter
		// is its own piece (newlines never prefix a word).
		{"chat template", "<|im_start|>user\nhi<|im_end|>", []int{268, 84, 82, 68, 81, 198, 71, 72, 269}},
		// NFC composes e + U+0301 into é before byte-level mapping.
		{"NFC", "e\u0301", []int{127, 102}},
	})
}

func TestBPEIgnoreMerges(t *testing.T) {
	t.Parallel()
	tok := loadFixture(t, "qwen2_tiny.json")
	tok.model.(*bpe).ignoreMerges = true
	// With ignore_merges (Llama 3 files), a piece found whole in the
	// vocabulary is one token: ĠHi=266.
	enc, err := tok.Encode(" Hi", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{266}; !slices.Equal(enc.IDs, want) {
		t.Errorf("ids = %v, want %v", enc.IDs, want)
	}
}

func TestLlamaByteFallbackBPE(t *testing.T) {
	t.Parallel()
	// Vocabulary: <unk> 0, <s> 1, </s> 2, <0x00>..<0xFF> 3..258, then
	// ▁ h i t e r ▁h ▁hi ▁t he ▁the re ▁there = 259..271.
	checkIDs(t, "llama_tiny.json", true, []idCase{
		// Normalized to "▁hi▁there" (Prepend, Replace); no pre-tokenizer,
		// so one piece: ▁h(0) ▁hi(1) ▁t(2) he(3) ▁the(4) re(5) ▁there(6).
		{"sentencepiece-style BPE", "hi there", []int{1, 266, 271}},
		// é is not in the vocabulary: byte_fallback spells it <0xC3>
		// <0xA9> = 3+0xC3, 3+0xA9.
		{"byte fallback", "hé", []int{1, 265, 198, 172}},
	})
}

func TestT5Unigram(t *testing.T) {
	t.Parallel()
	// Scores: ▁ -2, ▁the -3, ▁t -4, he -4, ▁cat -4.5, s -6, ▁cats -9,
	// ▁hel -5, lo -5, ▁hello -20, ... (testdata/t5_tiny.json).
	checkIDs(t, "t5_tiny.json", true, []idCase{
		// ▁the (-3) beats ▁t+he (-8); ▁cats (-9) beats ▁cat+s (-10.5). </s>=1.
		{"whole pieces when they score best", "the cats", []int{4, 9, 1}},
		// ▁hel+lo (-10) beats the whole ▁hello (-20): Viterbi, not greedy.
		{"split beats a rare whole word", "hello", []int{10, 11, 1}},
		// Z is in no piece: unknown (id 2), and the two fuse into one.
		{"unknown characters fuse", "ZZ the", []int{3, 2, 4, 1}},
		// Replace " {2,}" -> " " before Metaspace.
		{"double spaces collapse", "the  cats", []int{4, 9, 1}},
		// Precompiled maps ﬁ to "fi": ▁fi (-4) + ne (-5).
		{"precompiled ligature", "ﬁne", []int{22, 23, 1}},
		// Precompiled maps fullwidth Ａ to A: ▁ A.
		{"precompiled fullwidth", "Ａ", []int{3, 20, 1}},
		// Precompiled maps the grapheme e + U+0301 to é (26).
		{"precompiled grapheme", "e\u0301", []int{3, 26, 1}},
		// "the " before the added token ends in a space: ▁the, ▁; the
		// text after it starts with a space, so no second ▁ is prepended.
		{"added token between words", "the <extra_id_0> cats", []int{4, 3, 25, 9, 1}},
	})
}

func TestSigLIPUnigram(t *testing.T) {
	tok := loadFixture(t, "siglip_tiny.json")
	tok.SetPadding(nil) // tested in TestPadding
	cases := []idCase{
		// Punctuation removed, whitespace collapsed, stripped, lowercased:
		// "a dog" -> ▁a (4) ▁dog (5) </s> (1).
		{"canonicalized text", "A dog!", []int{4, 5, 1}},
		// "cats dog": ▁cat (6) s (9) ▁dog (5).
		{"punctuation and spaces", "  Cat's   dog. ", []int{6, 9, 5, 1}},
		// é is unknown; byte_fallback spells it <0xC3> (7) <0xA9> (8).
		{"byte fallback", "é", []int{3, 7, 8, 1}},
		// ü is C3 BC and <0xBC> is missing: it stays unknown (2).
		{"byte fallback needs every byte", "ü", []int{3, 2, 1}},
	}
	for _, c := range cases {
		enc, err := tok.Encode(c.text, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(enc.IDs, c.want) {
			t.Errorf("%s: Encode(%q) = %v %q, want %v", c.name, c.text, enc.IDs, enc.Tokens, c.want)
		}
	}
}

func TestDecodeFixtures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file        string
		ids         []int
		skipSpecial bool
		want        string
	}{
		{"gpt2_tiny.json", []int{262, 267}, true, "Hello world"},
		{"gpt2_tiny.json", []int{269, 268, 220, 220, 78, 74, 198}, true, "it's  ok\n"},
		{"gpt2_tiny.json", []int{64, 271, 65}, false, "a<|endoftext|>b"},
		{"gpt2_tiny.json", []int{64, 271, 65}, true, "ab"},
		// A lone continuation byte is invalid UTF-8: U+FFFD.
		{"gpt2_tiny.json", []int{102}, true, "\uFFFD"},
		{"roberta_tiny.json", []int{0, 224, 266, 271, 2}, true, " Hello world"},
		{"qwen2_tiny.json", []int{268, 84, 82, 68, 81, 198, 71, 72, 269}, false, "<|im_start|>user\nhi<|im_end|>"},
		// Replace ▁, ByteFallback, Fuse, Strip one leading space.
		{"llama_tiny.json", []int{1, 265, 198, 172}, true, "hé"},
		{"llama_tiny.json", []int{1, 266, 271}, true, "hi there"},
		// Metaspace: ▁ dropped at the start of the first token only.
		{"t5_tiny.json", []int{4, 9, 1}, true, "the cats"},
		{"t5_tiny.json", []int{4, 9, 1}, false, "the cats</s>"},
		{"siglip_tiny.json", []int{3, 7, 8, 1}, true, "é"},
	}
	for _, c := range cases {
		tok := loadFixture(t, c.file)
		if got := tok.Decode(c.ids, c.skipSpecial); got != c.want {
			t.Errorf("%s: Decode(%v, %v) = %q, want %q", c.file, c.ids, c.skipSpecial, got, c.want)
		}
	}
}

func TestMetaspacePrependScheme(t *testing.T) {
	t.Parallel()
	// "always" prepends ▁ to every piece between added tokens, "first"
	// only to the piece at the start of the input (Llama 2 with
	// legacy=false), "never" to none.
	cases := []struct {
		scheme prependScheme
		want   []int
	}{
		// <extra_id_0> (25), then ▁cats (9).
		{prependAlways, []int{25, 9, 1}},
		// "cats" has no ▁: c a t s = 13 14 15 8 (-24 beats nothing else).
		{prependFirst, []int{25, 13, 14, 15, 8, 1}},
		{prependNever, []int{25, 13, 14, 15, 8, 1}},
	}
	for _, c := range cases {
		tok := loadFixture(t, "t5_tiny.json")
		m := tok.pre.(metaspacePreTokenizer)
		m.prepend = c.scheme
		tok.pre = m
		enc, err := tok.Encode("<extra_id_0>cats", true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(enc.IDs, c.want) {
			t.Errorf("scheme %d: %v %q, want %v", c.scheme, enc.IDs, enc.Tokens, c.want)
		}
	}
	// With "first", the start of the input still gets its ▁.
	tok := loadFixture(t, "t5_tiny.json")
	m := tok.pre.(metaspacePreTokenizer)
	m.prepend = prependFirst
	tok.pre = m
	enc, err := tok.Encode("cats", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{9}; !slices.Equal(enc.IDs, want) {
		t.Errorf("first at the start: %v, want %v", enc.IDs, want)
	}
}

// TestBPEHeapMergeMatchesScan checks that the priority-queue merge of long
// words gives what the plain scan gives, on the real CLIP merges.
func TestBPEHeapMergeMatchesScan(t *testing.T) {
	t.Parallel()
	tok := loadShared(t, "clip_bpe_tokenizer.json")
	m := tok.model.(*bpe)
	words := []string{
		"supercalifragilisticexpialidocious",
		"pneumonoultramicroscopicsilicovolcanoconiosis",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"thethethethethethethethethethethethethethethethethethethethethethethethe",
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
	}
	for _, w := range words {
		var sc scratch
		syms := m.initial([]byte(w), nil, &sc)
		scan := slices.Clone(syms)
		// The plain scan, forced.
		n := len(scan)
		for n > 1 {
			best := -1
			var bm merge
			for i := 0; i+1 < n; i++ {
				if mg, ok := m.merges[[2]int32{scan[i].id, scan[i+1].id}]; ok && (best < 0 || mg.rank < bm.rank) {
					best, bm = i, mg
				}
			}
			if best < 0 {
				break
			}
			scan[best] = token{bm.id, scan[best].start, scan[best+1].end}
			copy(scan[best+1:n], scan[best+2:n])
			n--
		}
		scan = scan[:n]
		heaped := syms[:m.mergeHeap(syms)]
		if !slices.Equal(heaped, scan) {
			t.Errorf("%s: heap merge %v, scan %v", w, heaped, scan)
		}
	}
}
