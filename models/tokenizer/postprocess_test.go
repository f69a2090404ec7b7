package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// tinyWordPiece is a WordPiece file with a post-processor put in.
func tinyWordPiece(t *testing.T, post string) *Tokenizer {
	t.Helper()
	tok, err := FromJSON([]byte(`{
	 "added_tokens": [
	  {"id": 0, "content": "[UNK]", "special": true},
	  {"id": 1, "content": "[CLS]", "special": true},
	  {"id": 2, "content": "[SEP]", "special": true}],
	 "normalizer": {"type": "BertNormalizer", "lowercase": true},
	 "pre_tokenizer": {"type": "BertPreTokenizer"},
	 "post_processor": ` + post + `,
	 "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
	 "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
	  "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3, "cat": 4, "play": 5, "##ing": 6, "?": 7}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestBertProcessing(t *testing.T) {
	tok := tinyWordPiece(t, `{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}`)
	enc, err := tok.EncodePair("a cat", "Playing?", true)
	if err != nil {
		t.Fatal(err)
	}
	// [CLS] a cat [SEP] play ##ing ? [SEP]
	if want := []int{1, 3, 4, 2, 5, 6, 7, 2}; !slices.Equal(enc.IDs, want) {
		t.Errorf("ids %v, want %v", enc.IDs, want)
	}
	if want := []int{0, 0, 0, 0, 1, 1, 1, 1}; !slices.Equal(enc.TypeIDs, want) {
		t.Errorf("type ids %v, want %v", enc.TypeIDs, want)
	}
	if want := []int{1, 0, 0, 1, 0, 0, 0, 1}; !slices.Equal(enc.SpecialTokensMask, want) {
		t.Errorf("special mask %v, want %v", enc.SpecialTokensMask, want)
	}
	// Offsets of the second text point into the second text.
	if want := [][2]int{{0, 4}, {4, 7}, {7, 8}}; !slices.Equal(enc.Offsets[4:7], want) {
		t.Errorf("pair offsets %v, want %v", enc.Offsets[4:7], want)
	}
	if got := tok.Decode(enc.IDs, true); got != "a cat playing?" {
		t.Errorf("Decode = %q", got)
	}
	// Truncation leaves room for the three special tokens of a pair.
	tok.SetTruncation(&Truncation{MaxLength: 6})
	enc, err = tok.EncodePair("a cat", "Playing?", true)
	if err != nil {
		t.Fatal(err)
	}
	// 2 + 3 tokens into 3: the shorter does not fit in what the longer
	// leaves (3-2 < 2), so both get half, the second the odd token: 1 + 2.
	if want := []int{1, 3, 2, 5, 6, 2}; !slices.Equal(enc.IDs, want) {
		t.Errorf("truncated ids %v, want %v", enc.IDs, want)
	}
}

func TestSequenceProcessing(t *testing.T) {
	t.Parallel()
	// Llama 3 files: ByteLevel (offsets only) then TemplateProcessing.
	tok := tinyWordPiece(t, `{"type": "Sequence", "processors": [
	 {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true},
	 {"type": "TemplateProcessing",
	  "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
	  "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
	  "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}]}`)
	enc, err := tok.EncodePair("a", "cat", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 3, 2, 4}; !slices.Equal(enc.IDs, want) {
		t.Errorf("ids %v, want %v", enc.IDs, want)
	}
	if want := []int{0, 0, 1, 1}; !slices.Equal(enc.TypeIDs, want) {
		t.Errorf("type ids %v, want %v", enc.TypeIDs, want)
	}
	enc, err = tok.Encode("a cat", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 4}; !slices.Equal(enc.IDs, want) {
		t.Errorf("without specials %v, want %v", enc.IDs, want)
	}
}

func TestDecoders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, json string
		tokens     []string
		want       string
	}{
		{"BPEDecoder", `{"type": "BPEDecoder", "suffix": "</w>"}`, []string{"hel", "lo</w>", "world</w>"}, "hello world"},
		{"WordPiece without cleanup", `{"type": "WordPiece", "prefix": "##", "cleanup": false}`, []string{"it", "'", "s", "play", "##ing", "."}, "it ' s playing ."},
		{"WordPiece with cleanup", `{"type": "WordPiece", "prefix": "##", "cleanup": true}`, []string{"it", "'", "s", "play", "##ing", "."}, "it's playing."},
		{"Metaspace", `{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"}`, []string{"▁hello", "▁wor", "ld"}, "hello world"},
		{"Metaspace never", `{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never"}`, []string{"▁hello"}, " hello"},
		{"ByteFallback bad bytes", `{"type": "ByteFallback"}`, []string{"a", "<0xE2>", "<0x82>", "b"}, "a\uFFFD\uFFFDb"},
		{"Strip", `{"type": "Sequence", "decoders": [{"type": "Strip", "content": " ", "start": 1, "stop": 1}, {"type": "Fuse"}]}`, []string{"  a ", " b"}, " ab"},
		{"ByteLevel", `{"type": "ByteLevel"}`, []string{"Ġh", "Ã©", "<|x|>"}, " hé<|x|>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var comp component
			if err := comp.UnmarshalJSON([]byte(c.json)); err != nil {
				t.Fatal(err)
			}
			d, err := loader{name: "test.json"}.decoder(&comp)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(d.decode(c.tokens), ""); got != c.want {
				t.Errorf("decode(%q) = %q, want %q", c.tokens, got, c.want)
			}
		})
	}
}
