package tokenizer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBERTDetails(t *testing.T) {
	tok := loadShared(t, "bert_wordpiece_tokenizer.json")
	tok.SetPadding(nil)
	cases := []struct {
		name   string
		text   string
		tokens []string
	}{
		// strip_accents is null: it follows lowercase, so accents go (NFD,
		// then nonspacing marks dropped).
		{"accents stripped after NFD", "Héllo Ça", []string{"[CLS]", "hello", "ca", "[SEP]"}},
		// Each CJK ideograph is its own word.
		{"CJK padded with spaces", "日本", []string{"[CLS]", "日", "本", "[SEP]"}},
		// Control characters vanish; tab and newline are whitespace.
		{"control characters removed", "a\x00b\x07c\td", []string{"[CLS]", "abc", "d", "[SEP]"}},
		// Every punctuation character is its own word, ASCII symbols too.
		{"punctuation split one by one", "a...b$c", []string{"[CLS]", "a", ".", ".", ".", "b", "$", "c", "[SEP]"}},
		// Words longer than max_input_chars_per_word (100) are [UNK].
		{"overlong word is unknown", strings.Repeat("a", 101), []string{"[CLS]", "[UNK]", "[SEP]"}},
		{"word at the limit is split", strings.Repeat("ab", 50), nil},
		// Added tokens in the text are kept whole.
		{"special tokens in text", "a [MASK] b", []string{"[CLS]", "a", "[MASK]", "b", "[SEP]"}},
		{"continuation pieces", "unaffable", []string{"[CLS]", "una", "##ffa", "##ble", "[SEP]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			enc, err := tok.Encode(c.text, true)
			if err != nil {
				t.Fatal(err)
			}
			if c.tokens == nil {
				if slices.Contains(enc.Tokens, "[UNK]") {
					t.Errorf("Encode(%q) = %q, want no [UNK]", c.text, enc.Tokens)
				}
				return
			}
			if !slices.Equal(enc.Tokens, c.tokens) {
				t.Errorf("Encode(%q) tokens = %q, want %q", c.text, enc.Tokens, c.tokens)
			}
			for i, tk := range enc.Tokens {
				id, ok := tok.TokenToID(tk)
				if !ok || id != enc.IDs[i] {
					t.Errorf("TokenToID(%q) = %d, %v; want %d", tk, id, ok, enc.IDs[i])
				}
				back, ok := tok.IDToToken(enc.IDs[i])
				if !ok || back != tk {
					t.Errorf("IDToToken(%d) = %q, %v; want %q", enc.IDs[i], back, ok, tk)
				}
			}
		})
	}
}

func TestBERTOffsets(t *testing.T) {
	tok := loadShared(t, "bert_wordpiece_tokenizer.json")
	tok.SetPadding(nil)
	text := "Héllo, naïve wörld!"
	enc, err := tok.Encode(text, true)
	if err != nil {
		t.Fatal(err)
	}
	// Offsets are byte ranges of the original text, accents included.
	var got []string
	for i, off := range enc.Offsets {
		if enc.SpecialTokensMask[i] == 1 {
			if off != [2]int{} {
				t.Errorf("special token %q has offsets %v", enc.Tokens[i], off)
			}
			continue
		}
		got = append(got, text[off[0]:off[1]])
	}
	want := []string{"Héllo", ",", "naïve", "wörld", "!"}
	// wörld is wo ##rl ##d or similar: join continuation pieces' text.
	var words []string
	for i, s := range got {
		tokIdx := i + 1
		if strings.HasPrefix(enc.Tokens[tokIdx], "##") {
			words[len(words)-1] += s
			continue
		}
		words = append(words, s)
	}
	if !slices.Equal(words, want) {
		t.Errorf("offset texts %q (tokens %q), want words %q", got, enc.Tokens, want)
	}
}

func TestBERTPair(t *testing.T) {
	tok := loadShared(t, "bert_wordpiece_tokenizer.json")
	tok.SetPadding(nil)
	enc, err := tok.EncodePair("a photo", "of a cat", true)
	if err != nil {
		t.Fatal(err)
	}
	// [CLS] a photo [SEP] of a cat [SEP], the second part with type id 1.
	wantIDs := []int{101, 1037, 6302, 102, 1997, 1037, 4937, 102}
	wantTypes := []int{0, 0, 0, 0, 1, 1, 1, 1}
	if !slices.Equal(enc.IDs, wantIDs) || !slices.Equal(enc.TypeIDs, wantTypes) {
		t.Errorf("EncodePair = %v types %v, want %v types %v", enc.IDs, enc.TypeIDs, wantIDs, wantTypes)
	}
	plain, err := tok.EncodePair("a photo", "of a cat", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1037, 6302, 1997, 1037, 4937}; !slices.Equal(plain.IDs, want) {
		t.Errorf("EncodePair without specials = %v, want %v", plain.IDs, want)
	}
	if want := []int{0, 0, 1, 1, 1}; !slices.Equal(plain.TypeIDs, want) {
		t.Errorf("EncodePair without specials types = %v, want %v", plain.TypeIDs, want)
	}
}

func TestTruncation(t *testing.T) {
	tok := loadShared(t, "bert_wordpiece_tokenizer.json")
	tok.SetPadding(nil)
	// "a photo of a cat" is a(1037) photo(6302) of(1997) a(1037) cat(4937).
	a, b := "a photo of a cat", "what did the man do"
	cases := []struct {
		name  string
		tr    Truncation
		pair  bool
		want  []int
		error bool
	}{
		{"right keeps the start", Truncation{MaxLength: 5}, false, []int{101, 1037, 6302, 1997, 102}, false},
		{"left keeps the end", Truncation{MaxLength: 5, Direction: Left}, false, []int{101, 1997, 1037, 4937, 102}, false},
		// 5 + 5 tokens into 10 - 3 specials = 7: both longer than half,
		// so 3 and 4 (the second gets the odd one).
		{"longest first shares the room", Truncation{MaxLength: 10}, true,
			[]int{101, 1037, 6302, 1997, 102, 2054, 2106, 1996, 2158, 102}, false},
		{"only second cuts the second", Truncation{MaxLength: 10, Strategy: OnlySecond}, true,
			[]int{101, 1037, 6302, 1997, 1037, 4937, 102, 2054, 2106, 102}, false},
		{"only first cuts the first", Truncation{MaxLength: 10, Strategy: OnlyFirst}, true,
			[]int{101, 1037, 6302, 102, 2054, 2106, 1996, 2158, 2079, 102}, false},
		{"only first too short", Truncation{MaxLength: 4, Strategy: OnlyFirst}, true, nil, true},
		{"shorter than the specials", Truncation{MaxLength: 1}, false, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok.SetTruncation(&c.tr)
			var enc Encoding
			var err error
			if c.pair {
				enc, err = tok.EncodePair(a, b, true)
			} else {
				enc, err = tok.Encode(a, true)
			}
			if c.error {
				if err == nil {
					t.Fatalf("got %v, want an error", enc.IDs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(enc.IDs, c.want) {
				t.Errorf("ids = %v, want %v", enc.IDs, c.want)
			}
		})
	}
}

func TestPadding(t *testing.T) {
	tok := loadShared(t, "bert_wordpiece_tokenizer.json")
	tok.SetTruncation(nil)
	ctx := context.Background()
	texts := []string{"a photo of a cat", "a cat"}
	cases := []struct {
		name string
		pad  Padding
		want [][]int
		mask [][]int
	}{
		{"to the longest of the batch", Padding{},
			[][]int{{101, 1037, 6302, 1997, 1037, 4937, 102}, {101, 1037, 4937, 102, 0, 0, 0}},
			[][]int{{1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 0, 0, 0}}},
		{"to a multiple of 4", Padding{PadToMultipleOf: 4},
			[][]int{{101, 1037, 6302, 1997, 1037, 4937, 102, 0}, {101, 1037, 4937, 102, 0, 0, 0, 0}}, nil},
		{"on the left", Padding{Direction: Left, PadID: 7},
			[][]int{{101, 1037, 6302, 1997, 1037, 4937, 102}, {7, 7, 7, 101, 1037, 4937, 102}},
			[][]int{{1, 1, 1, 1, 1, 1, 1}, {0, 0, 0, 1, 1, 1, 1}}},
		{"to a fixed length", Padding{Length: 9},
			[][]int{{101, 1037, 6302, 1997, 1037, 4937, 102, 0, 0}, {101, 1037, 4937, 102, 0, 0, 0, 0, 0}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok.SetPadding(&c.pad)
			encs, err := tok.EncodeBatch(ctx, texts, true)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range encs {
				if !slices.Equal(e.IDs, c.want[i]) {
					t.Errorf("text %d: ids %v, want %v", i, e.IDs, c.want[i])
				}
				if c.mask != nil && !slices.Equal(e.AttentionMask, c.mask[i]) {
					t.Errorf("text %d: mask %v, want %v", i, e.AttentionMask, c.mask[i])
				}
				n := e.Len()
				if len(e.TypeIDs) != n || len(e.Tokens) != n || len(e.Offsets) != n || len(e.SpecialTokensMask) != n {
					t.Errorf("text %d: slices of different lengths", i)
				}
			}
		})
	}
	// A single Encode pads to itself with the batch strategy, so only
	// the multiple applies.
	tok.SetPadding(&Padding{PadToMultipleOf: 8, PadToken: "[PAD]"})
	enc, err := tok.Encode("a cat", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"[CLS]", "a", "cat", "[SEP]", "[PAD]", "[PAD]", "[PAD]", "[PAD]"}; !slices.Equal(enc.Tokens, want) {
		t.Errorf("Encode tokens %q, want %q", enc.Tokens, want)
	}
	// The SigLIP fixture pads to a fixed 8 with </s> (id 1) by its file.
	sig := loadFixture(t, "siglip_tiny.json")
	enc, err = sig.Encode("A dog", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{4, 5, 1, 1, 1, 1, 1, 1}; !slices.Equal(enc.IDs, want) {
		t.Errorf("SigLIP fixed padding: %v, want %v", enc.IDs, want)
	}
}

func TestEncodeBatchMatchesEncode(t *testing.T) {
	for _, file := range []string{"bert_wordpiece_tokenizer.json", "clip_bpe_tokenizer.json"} {
		tok := loadShared(t, file)
		tok.SetPadding(nil)
		var texts []string
		for i := range 300 {
			texts = append(texts, fmt.Sprintf("question %d: what did the person %s do?", i, strings.Repeat("really ", i%7)))
		}
		got, err := tok.EncodeBatch(context.Background(), texts, true)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range texts {
			want, err := tok.Encode(s, true)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got[i].IDs, want.IDs) || !slices.Equal(got[i].Offsets, want.Offsets) {
				t.Fatalf("%s: EncodeBatch[%d] = %v, Encode = %v", file, i, got[i].IDs, want.IDs)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := tok.EncodeBatch(ctx, texts, true); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: EncodeBatch with a cancelled context: %v, want context.Canceled", file, err)
		}
		if encs, err := tok.EncodeBatch(context.Background(), nil, true); err != nil || len(encs) != 0 {
			t.Errorf("%s: EncodeBatch(nil) = %v, %v", file, encs, err)
		}
	}
}

func TestCLIPDetails(t *testing.T) {
	t.Parallel()
	tok := loadShared(t, "clip_bpe_tokenizer.json")
	text := "A  Photo\tof a CAT's toy"
	enc, err := tok.Encode(text, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"<|startoftext|>", "a</w>", "photo</w>", "of</w>", "a</w>", "cat</w>", "'s</w>", "toy</w>", "<|endoftext|>"}
	if !slices.Equal(enc.Tokens, want) {
		t.Errorf("tokens %q, want %q", enc.Tokens, want)
	}
	for i, off := range enc.Offsets[1 : len(enc.Offsets)-1] {
		tk := strings.TrimSuffix(want[i+1], "</w>")
		if got := strings.ToLower(text[off[0]:off[1]]); got != tk {
			t.Errorf("token %q covers %q", tk, got)
		}
	}
	if got := tok.Decode(enc.IDs, true); got != "a photo of a cat's toy" {
		t.Errorf("Decode = %q", got)
	}
	if got := tok.Decode(enc.IDs, false); got != "<|startoftext|>a photo of a cat's toy <|endoftext|>" {
		t.Errorf("Decode keeping specials = %q", got)
	}
	if n := tok.VocabSize(); n != 49408 {
		t.Errorf("VocabSize = %d, want 49408", n)
	}
	if id, ok := tok.TokenToID("<|endoftext|>"); !ok || id != 49407 {
		t.Errorf("TokenToID(<|endoftext|>) = %d, %v", id, ok)
	}
	if _, ok := tok.IDToToken(49408); ok {
		t.Error("IDToToken(49408) found a token past the vocabulary")
	}
}

func TestBERTDecode(t *testing.T) {
	t.Parallel()
	tok := loadShared(t, "bert_wordpiece_tokenizer.json")
	cases := []struct{ text, want string }{
		{"Unaffable people, don't they?", "unaffable people, don't they?"},
		{"What did the girl's dog do?", "what did the girl's dog do?"},
	}
	for _, c := range cases {
		enc, err := tok.Encode(c.text, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Decode(enc.IDs, true); got != c.want {
			t.Errorf("Decode(Encode(%q)) = %q, want %q", c.text, got, c.want)
		}
	}
	if n := tok.VocabSize(); n != 30522 {
		t.Errorf("VocabSize = %d, want 30522", n)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := func(normalizer string) string {
		return `{"normalizer": ` + normalizer + `, "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}}`
	}
	cases := []struct {
		name, json, want string
	}{
		{"unknown normalizer", base(`{"type": "Fancy"}`), `tok.json: normalizer type "Fancy" not supported`},
		{"unknown nested normalizer", base(`{"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Fancy2"}]}`), `tok.json: normalizer type "Fancy2" not supported`},
		{"unknown pre-tokenizer", `{"pre_tokenizer": {"type": "UnicodeScripts"}, "model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`, `tok.json: pre_tokenizer type "UnicodeScripts" not supported`},
		{"unknown model", `{"model": {"type": "Magic"}}`, `tok.json: model type "Magic" not supported`},
		{"unknown decoder", `{"decoder": {"type": "CTC"}, "model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`, `tok.json: decoder type "CTC" not supported`},
		{"unknown post-processor", `{"post_processor": {"type": "Odd"}, "model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`, `tok.json: post_processor type "Odd" not supported`},
		{"lookahead regex without a scanner", `{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "a(?!b)"}, "behavior": "Isolated"}, "model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`, `pre_tokenizer Split pattern not supported`},
		{"merge of unknown tokens", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}`, `merge 0 ("a", "b"): token not in the vocabulary`},
		{"unk token missing", `{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"a": 0}}}`, `unk_token "[UNK]" is not in the vocabulary`},
		{"vocabulary id out of range", `{"model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0, "b": 2000000000}}}`, `tok.json: model "WordLevel": vocab entry "b": id 2000000000 outside 0..4194303`},
		{"negative vocabulary id", `{"model": {"type": "BPE", "vocab": {"a": -1}}}`, `vocab entry "a": id -1 outside`},
		{"added token id out of range", `{"added_tokens": [{"id": 9000000000, "content": "<x>"}], "model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`, `tok.json: added_tokens[0] "<x>": id 9000000000 outside`},
		{"fixed padding too long", `{"padding": {"strategy": {"Fixed": 100000000000}}, "model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`, `tok.json: padding strategy Fixed 100000000000 outside 0..1048576`},
		{"negative pad multiple", `{"padding": {"strategy": "BatchLongest", "pad_to_multiple_of": -8}, "model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`, `padding pad_to_multiple_of -8 outside`},
		{"truncation too long", `{"truncation": {"max_length": 4000000000}, "model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`, `truncation max_length 4000000000 outside`},
		{"not JSON", `{"model": `, `tok.json: unexpected end of JSON input`},
		{"no model", `{}`, `tok.json: no model`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "tok.json")
			if err := os.WriteFile(path, []byte(c.json), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load error %v, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestAddedTokenOptions(t *testing.T) {
	t.Parallel()
	tok, err := FromJSON([]byte(`{
	 "added_tokens": [
	  {"id": 10, "content": "<x>", "single_word": false, "lstrip": false, "rstrip": true, "normalized": false, "special": true},
	  {"id": 11, "content": "hi", "single_word": true, "lstrip": false, "rstrip": false, "normalized": false, "special": false},
	  {"id": 12, "content": "BIG", "single_word": false, "lstrip": false, "rstrip": false, "normalized": true, "special": false}],
	 "normalizer": {"type": "Lowercase"},
	 "pre_tokenizer": {"type": "WhitespaceSplit"},
	 "model": {"type": "WordLevel", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1, "this": 2, "big": 3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		text string
		ids  []int
		offs [][2]int
	}{
		{"rstrip swallows the spaces after", "a<x>   a", []int{1, 10, 1}, [][2]int{{0, 1}, {1, 7}, {7, 8}}},
		{"single word alone matches", "hi a", []int{11, 1}, nil},
		{"single word inside a word does not", "this", []int{2}, nil},
		// "BIG" is normalized (lowercased) to "big" and matched after
		// normalization, so it wins over the model's "big" (3).
		{"normalized token matches normalized text", "a BIG big", []int{1, 12, 12}, [][2]int{{0, 1}, {2, 5}, {6, 9}}},
	}
	for _, c := range cases {
		enc, err := tok.Encode(c.text, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(enc.IDs, c.ids) {
			t.Errorf("%s: Encode(%q) = %v, want %v", c.name, c.text, enc.IDs, c.ids)
		}
		if c.offs != nil && !slices.Equal(enc.Offsets, c.offs) {
			t.Errorf("%s: offsets %v, want %v", c.name, enc.Offsets, c.offs)
		}
	}
	// No decoder: tokens joined by spaces; the special <x> skipped.
	if got := tok.Decode([]int{1, 10, 11, 99}, true); got != "a hi" {
		t.Errorf("Decode = %q, want %q", got, "a hi")
	}
	if n := tok.VocabSize(); n != 13 {
		t.Errorf("VocabSize = %d, want 13", n)
	}
}

func TestLowercaseIsPerCharacter(t *testing.T) {
	t.Parallel()
	// As the reference's Rust char::to_lowercase: İ becomes i + U+0307,
	// and a final capital sigma becomes σ, not ς (Python's str.lower,
	// which openai/CLIP's tokenizer uses, gives ς there).
	var text, tmp normText
	text.setOriginal("İSTANBUL ΣΑΣ", 0)
	lowercaseNormalizer{}.normalize(&text, &tmp)
	if got, want := string(text.s), "i\u0307stanbul σασ"; got != want {
		t.Errorf("lowercase = %q, want %q", got, want)
	}
	// Both runes of İ's lowercase map back to İ's two bytes.
	if sp := text.spanOf(0, 3); sp != (span{0, 2}) {
		t.Errorf("span of i + U+0307 = %v, want {0 2}", sp)
	}
}
