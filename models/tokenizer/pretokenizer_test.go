package tokenizer

import (
	"slices"
	"testing"
)

func preTokenizeStrings(t *testing.T, json, text string) []string {
	t.Helper()
	var comp component
	if err := comp.UnmarshalJSON([]byte(json)); err != nil {
		t.Fatal(err)
	}
	p, err := loader{name: "test.json"}.preTokenizer(&comp)
	if err != nil {
		t.Fatal(err)
	}
	var nt normText
	nt.setOriginal(text, 0)
	var ar arena
	var out []string
	for _, pc := range p.preTokenize([]piece{{nt.s, nt.align}}, nil, &ar) {
		if len(pc.s) != len(pc.align) {
			t.Fatalf("piece %q has %d alignments", pc.s, len(pc.align))
		}
		out = append(out, string(pc.s))
	}
	return out
}

func TestSplitBehaviors(t *testing.T) {
	t.Parallel()
	// The example of the reference's documentation for
	// SplitDelimiterBehavior: "the-final--countdown" split on "-".
	const text = "the-final--countdown"
	cases := []struct {
		behavior string
		invert   string
		want     []string
	}{
		{"Removed", "false", []string{"the", "final", "countdown"}},
		{"Isolated", "false", []string{"the", "-", "final", "-", "-", "countdown"}},
		{"MergedWithPrevious", "false", []string{"the-", "final-", "-", "countdown"}},
		{"MergedWithNext", "false", []string{"the", "-final", "-", "-countdown"}},
		{"Contiguous", "false", []string{"the", "-", "final", "--", "countdown"}},
		// Inverted, the words are the matches: Removed keeps only dashes.
		{"Removed", "true", []string{"-", "-", "-"}},
	}
	for _, c := range cases {
		json := `{"type": "Split", "pattern": {"String": "-"}, "behavior": "` + c.behavior + `", "invert": ` + c.invert + `}`
		if got := preTokenizeStrings(t, json, text); !slices.Equal(got, c.want) {
			t.Errorf("%s (invert %s): %q, want %q", c.behavior, c.invert, got, c.want)
		}
	}
}

func TestPreTokenizers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, json, text string
		want             []string
	}{
		{"BertPreTokenizer", `{"type": "BertPreTokenizer"}`, "Hi, you  there!", []string{"Hi", ",", "you", "there", "!"}},
		{"Whitespace", `{"type": "Whitespace"}`, "Hi, you_2  there!?", []string{"Hi", ",", "you_2", "there", "!?"}},
		{"WhitespaceSplit", `{"type": "WhitespaceSplit"}`, " a,b \t c ", []string{"a,b", "c"}},
		{"CharDelimiterSplit", `{"type": "CharDelimiterSplit", "delimiter": "|"}`, "a|b||c", []string{"a", "b", "c"}},
		{"Punctuation", `{"type": "Punctuation", "behavior": "Isolated"}`, "a,.b", []string{"a", ",", ".", "b"}},
		{"Digits one by one", `{"type": "Digits", "individual_digits": true}`, "a12b", []string{"a", "1", "2", "b"}},
		{"Digits in runs", `{"type": "Digits", "individual_digits": false}`, "a12b", []string{"a", "12", "b"}},
		{"ByteLevel with prefix space", `{"type": "ByteLevel", "add_prefix_space": true, "use_regex": true}`, "Hi  you", []string{"ĠHi", "Ġ", "Ġyou"}},
		{"ByteLevel without regex", `{"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}`, "a b\n", []string{"aĠbĊ"}},
		{"Metaspace", `{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}`, "a  b", []string{"▁a", "▁", "▁b"}},
		{"Metaspace without split", `{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": false}`, "a b", []string{"a▁b"}},
		{"Metaspace old format", `{"type": "Metaspace", "replacement": "▁", "add_prefix_space": true}`, "a", []string{"▁a"}},
		{"Sequence", `{"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Digits", "individual_digits": true}]}`, "ab12 c3", []string{"ab", "1", "2", "c", "3"}},
		{"Split with a regex without scanner", `{"type": "Split", "pattern": {"Regex": "\\d+"}, "behavior": "Isolated", "invert": false}`, "a١٢b", []string{"a", "١٢", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := preTokenizeStrings(t, c.json, c.text); !slices.Equal(got, c.want) {
				t.Errorf("%q -> %q, want %q", c.text, got, c.want)
			}
		})
	}
}
