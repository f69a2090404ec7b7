package tokenizer

import (
	"testing"
)

func TestNormalizers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		json string
		in   string
		want string
	}{
		{"NFKC folds compatibility forms", `{"type": "NFKC"}`, "ﬁ①Ａ", "fi1A"},
		{"NFD then StripAccents", `{"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}]}`, "Ça ñ", "Ca n"},
		{"NFC composes", `{"type": "NFC"}`, "e\u0301", "é"},
		{"Strip both ends", `{"type": "Strip", "strip_left": true, "strip_right": true}`, " \t a b \u3000", "a b"},
		{"Strip right only", `{"type": "Strip", "strip_left": false, "strip_right": true}`, "  a  ", "  a"},
		{"Replace a literal", `{"type": "Replace", "pattern": {"String": "''"}, "content": "\""}`, "''a''", `"a"`},
		{"Replace whitespace runs", `{"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "}`, "a\t\n b\u00a0c", "a b c"},
		// RE2 alone would read \s as ASCII; the reference's engine does not.
		{"Replace regex with Unicode \\s in a class", `{"type": "Replace", "pattern": {"Regex": "[\\s,]+"}, "content": "_"}`, "a,\u2003b", "a_b"},
		{"Replace regex with \\d", `{"type": "Replace", "pattern": {"Regex": "\\d"}, "content": "0"}`, "a٣7", "a00"},
		{"Prepend", `{"type": "Prepend", "prepend": "▁"}`, "ab", "▁ab"},
		{"Prepend leaves empty text", `{"type": "Prepend", "prepend": "▁"}`, "", ""},
		{"Lowercase", `{"type": "Lowercase"}`, "ÀB", "àb"},
		{"Nmt drops and maps controls", `{"type": "Nmt"}`, "a\x01b\tc\u200bd", "ab c d"},
		{"BertNormalizer cased keeps accents", `{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": false}`, "Héllo\x00中", "Héllo 中 "},
		{"BertNormalizer strip without lowercase", `{"type": "BertNormalizer", "strip_accents": true, "lowercase": false}`, "Héllo", "Hello"},
		// The reference's CJK ranges (bert.rs is_chinese_char): U+2B81D and
		// U+2B920 are padded, U+2B820..U+2B91F are not (Google's BERT pads
		// them; Python transformers' fast tokenizers do not).
		{"BertNormalizer pads astral CJK by the reference's ranges", `{"type": "BertNormalizer", "lowercase": false}`, "a\U0002B81Db\U0002B820c\U0002B91Fd\U0002B920e", "a \U0002B81D b\U0002B820c\U0002B91Fd \U0002B920 e"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var comp component
			if err := comp.UnmarshalJSON([]byte(c.json)); err != nil {
				t.Fatal(err)
			}
			n, err := loader{name: "test.json"}.normalizer(&comp)
			if err != nil {
				t.Fatal(err)
			}
			var text, tmp normText
			text.setOriginal(c.in, 0)
			n.normalize(&text, &tmp)
			if got := string(text.s); got != c.want {
				t.Errorf("normalize(%q) = %q, want %q", c.in, got, c.want)
			}
			if len(text.align) != len(text.s) {
				t.Fatalf("%d alignments for %d bytes", len(text.align), len(text.s))
			}
			for i, sp := range text.align {
				if sp.start < 0 || sp.end > int32(len(c.in)) || sp.start > sp.end {
					t.Fatalf("byte %d aligned to %v, outside the input", i, sp)
				}
			}
		})
	}
}

func TestUnicodeClasses(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`\s+`, `[\s\v\x{85}\p{Z}]+`},
		{`[^\s\d]`, `[^\s\v\x{85}\p{Z}\p{Nd}]`},
		{`\S`, `[^\s\v\x{85}\p{Z}]`},
		{`[]\w]`, `[]\p{L}\p{M}\p{N}\p{Pc}]`},
		{`\.\\s`, `\.\\s`},
	}
	for _, c := range cases {
		if got := unicodeClasses(c.in); got != c.want {
			t.Errorf("unicodeClasses(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalizeExported(t *testing.T) {
	t.Parallel()
	tok, err := FromJSON([]byte(`{"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]},
		"model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tok.Normalize("ＡﬁΣ"), "afiσ"; got != want {
		t.Errorf("Normalize = %q, want %q", got, want)
	}
	bare, err := FromJSON([]byte(`{"model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := bare.Normalize("ＡB"); got != "ＡB" {
		t.Errorf("Normalize without a normalizer = %q", got)
	}
}
