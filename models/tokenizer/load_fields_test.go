package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesFieldsItDoesNotUnderstand: a field the loader does not
// read, or a null where a value is needed, is an error naming the file and
// the field, in every part of the file.
func TestLoadRefusesFieldsItDoesNotUnderstand(t *testing.T) {
	t.Parallel()
	const wl = `"model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0, "b": 1}}`
	with := func(part string) string { return `{` + part + `, ` + wl + `}` }
	cases := []struct {
		name, json, want string
	}{
		{"top level", with(`"extra": 1`), `tok.json: top level: field "extra" is not one the loader understands`},
		{"added token field", with(`"added_tokens": [{"id": 1, "content": "b", "special": true, "weight": 2}]`), `tok.json: added_tokens[0]: field "weight"`},
		{"added token null id", with(`"added_tokens": [{"id": null, "content": "b"}]`), `tok.json: added_tokens[0]: field "id" is null`},
		{"normalizer field", with(`"normalizer": {"type": "Lowercase", "locale": "tr"}`), `tok.json: normalizer "Lowercase": field "locale"`},
		{"nested normalizer null", with(`"normalizer": {"type": "Sequence", "normalizers": [{"type": "BertNormalizer", "lowercase": null}]}`), `tok.json: normalizer "BertNormalizer": field "lowercase" is null`},
		{"strip null", with(`"normalizer": {"type": "Strip", "strip_left": null, "strip_right": true}`), `field "strip_left" is null`},
		{"replace pattern field", with(`"normalizer": {"type": "Replace", "pattern": {"Regexp": "a"}, "content": "b"}`), `tok.json: normalizer "Replace": pattern: field "Regexp"`},
		{"replace pattern both", with(`"normalizer": {"type": "Replace", "pattern": {"String": "a", "Regex": "a"}, "content": "b"}`), `pattern has 2 of String and Regex`},
		{"pre-tokenizer field", with(`"pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated", "invert": false, "limit": 3}`), `tok.json: pre_tokenizer "Split": field "limit"`},
		{"byte-level null", with(`"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": null}`), `tok.json: pre_tokenizer "ByteLevel": field "add_prefix_space" is null`},
		{"metaspace null", with(`"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": null}`), `tok.json: Metaspace "Metaspace": field "prepend_scheme" is null`},
		{"post-processor field", with(`"post_processor": {"type": "BertProcessing", "sep": ["b", 1], "cls": ["a", 0], "trim_offsets": true}`), `tok.json: post_processor "BertProcessing": field "trim_offsets"`},
		{"template item field", with(`"post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0, "repeat": 2}}], "pair": [], "special_tokens": {}}`), `template item 0 Sequence: field "repeat"`},
		{"template item two kinds", with(`"post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A"}, "SpecialToken": {"id": "b"}}], "pair": [], "special_tokens": {}}`), `template item 0 has 2 fields`},
		{"special token entry field", with(`"post_processor": {"type": "TemplateProcessing", "single": [], "pair": [], "special_tokens": {"b": {"id": "b", "ids": [1], "tokens": ["b"], "types": [0]}}}`), `special_tokens "b": field "types"`},
		{"decoder field", with(`"decoder": {"type": "ByteLevel", "add_prefix_space": true, "errors": "replace"}`), `tok.json: decoder "ByteLevel": field "errors"`},
		{"decoder null", with(`"decoder": {"type": "Strip", "content": " ", "start": null, "stop": 0}`), `tok.json: decoder "Strip": field "start" is null`},
		{"truncation field", with(`"truncation": {"max_length": 8, "strategy": "LongestFirst", "stride": 0, "direction": "Right", "side": "left"}`), `tok.json: truncation: field "side"`},
		{"padding null", with(`"padding": {"strategy": "BatchLongest", "pad_id": null}`), `tok.json: padding: field "pad_id" is null`},
		{"BPE field", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "vocab_size": 1}}`, `tok.json: model "BPE": field "vocab_size"`},
		{"BPE null flag", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "byte_fallback": null}}`, `tok.json: model "BPE": field "byte_fallback" is null`},
		{"WordPiece null", `{"model": {"type": "WordPiece", "unk_token": "a", "vocab": {"a": 0}, "max_input_chars_per_word": null}}`, `tok.json: model "WordPiece": field "max_input_chars_per_word" is null`},
		{"WordPiece without type", `{"model": {"unk_token": "a", "continuing_subword_prefix": "##", "vocab": {"a": 0}, "lowercase": true}}`, `tok.json: model "WordPiece": field "lowercase"`},
		{"Unigram field", `{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a", 0.0]], "alpha": 0.1}}`, `tok.json: model "Unigram": field "alpha"`},
		{"vocab null", `{"model": {"type": "WordLevel", "unk_token": "a", "vocab": null}}`, `tok.json: model "WordLevel": field "vocab" is null`},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sub := filepath.Join(dir, string(rune('a'+i)))
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(sub, "tok.json")
			if err := os.WriteFile(path, []byte(c.json), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load error %v, want it to name %s and contain %q", err, path, c.want)
			}
		})
	}
}

// TestLoadAcceptsNullWhereTheFormatAllows: the fields the reference
// declares optional may be null, as real files write them.
func TestLoadAcceptsNullWhereTheFormatAllows(t *testing.T) {
	t.Parallel()
	const doc = `{"version": "1.0", "truncation": null, "padding": {"strategy": "BatchLongest", "direction": "Right",
		"pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "a"},
		"added_tokens": [], "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
		"strip_accents": null, "lowercase": true}, "pre_tokenizer": null, "post_processor": null, "decoder": null,
		"model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
		"end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
		"vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}}`
	tok, err := FromJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	e, err := tok.Encode("AB", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.IDs) != 1 || e.IDs[0] != 2 {
		t.Errorf("ids %v, want [2]", e.IDs)
	}
}
