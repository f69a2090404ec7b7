package tokenizer

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func scanStrings(sc scanner, s string) []string {
	var out []string
	for _, m := range sc([]byte(s), nil) {
		out = append(out, s[m[0]:m[1]])
	}
	return out
}

func TestScanners(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		scan scanner
		text string
		want []string
	}{
		{"clip: words, digits one by one, symbols in runs", scanCLIP, "it's 3:45pm!!", []string{"it", "'s", "3", ":", "4", "5", "pm", "!!"}},
		{"clip: special token strings whole", scanCLIP, "a<|endoftext|>b", []string{"a", "<|endoftext|>", "b"}},
		{"clip: whitespace dropped", scanCLIP, " \t a \u00a0 b ", []string{"a", "b"}},
		{"gpt2: space joins the next word", scanGPT2, "Hello world", []string{"Hello", " world"}},
		{"gpt2: last space of a run joins the word", scanGPT2, "a   b", []string{"a", "  ", " b"}},
		{"gpt2: a tab does not join", scanGPT2, "a\tb", []string{"a", "\t", "b"}},
		{"gpt2: trailing run kept whole", scanGPT2, "a  \n", []string{"a", "  \n"}},
		{"gpt2: contractions are case-sensitive", scanGPT2, "I'M it's", []string{"I", "'", "M", " it", "'s"}},
		{"gpt2: numbers in runs", scanGPT2, "abc 12345", []string{"abc", " 12345"}},
		{"qwen2: contractions fold case", scanQwen2Pattern, "I'M", []string{"I", "'M"}},
		// "(" prefixes "hello"; ` "` is a space and a symbol run, which
		// takes the space first, so "quoted" stands alone.
		{"qwen2: one non-letter prefixes a word", scanQwen2Pattern, "(hello) \"quoted\"", []string{"(hello", ")", " \"", "quoted", "\""}},
		{"qwen2: digits one by one", scanQwen2Pattern, "x 2024", []string{"x", " ", "2", "0", "2", "4"}},
		{"qwen2: newlines end a whitespace run", scanQwen2Pattern, "a  \n\n  b", []string{"a", "  \n\n", " ", " b"}},
		{"qwen2: punctuation takes trailing newlines", scanQwen2Pattern, "end.\n\nNext", []string{"end", ".\n\n", "Next"}},
		{"llama3: digits in threes", scanLlama3Pattern, "12345", []string{"123", "45"}},
		{"whitespace: words and symbol runs", scanWhitespaceWords, "Hey, you_2!?", []string{"Hey", ",", "you_2", "!?"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := scanStrings(c.scan, c.text); !slices.Equal(got, c.want) {
				t.Errorf("scan(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func scanQwen2Pattern(s []byte, dst [][2]int) [][2]int  { return scanners[qwen2Pattern](s, dst) }
func scanLlama3Pattern(s []byte, dst [][2]int) [][2]int { return scanners[llama3Pattern](s, dst) }

// TestCLIPScannerMatchesRegexp compares the CLIP scanner with Go's regexp
// engine on random text. The CLIP pattern needs no lookahead, so RE2 can
// run it once \s is spelled as Unicode White_Space (RE2's \s is ASCII).
func TestCLIPScannerMatchesRegexp(t *testing.T) {
	t.Parallel()
	ws := `\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
	pattern := strings.ReplaceAll(clipPattern, `\s`, ws)
	re := regexp.MustCompile(pattern)
	alphabet := []string{" ", "\t", "\n", "a", "Z", "1", "٣", "!", "'", "s", "re", "ll", "é", "中", "\u00a0", "\u2028", "_", "\u0301", ".", "<|endoftext|>", "<|", "🙂"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var sb strings.Builder
		for range 1 + rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := sb.String()
		var want []string
		for _, loc := range re.FindAllStringIndex(s, -1) {
			want = append(want, s[loc[0]:loc[1]])
		}
		if got := scanStrings(scanCLIP, s); !slices.Equal(got, want) {
			t.Fatalf("scanCLIP(%q) = %q, regexp gives %q", s, got, want)
		}
	}
}
