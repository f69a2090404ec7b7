package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// handTexts are the hard cases for a tokenizer: each line names a thing a
// normalizer, pre-tokenizer or model step treats specially.
var handTexts = []string{
	"",
	" ",
	"a",
	"a photo of a cat",
	"Hello, world!",
	"HELLO World hElLo",
	"What did the man do after he picked up the ball?",
	// accents, composed and decomposed
	"Héllo naïve café résumé",
	"He\u0301llo nai\u0308ve cafe\u0301", // NFD
	"Å vs \u212b vs A\u030a",             // precomposed, angstrom sign, combining ring
	"Ǆemal ǅemal ǆemal",                  // titlecase digraphs
	"ﬁnance ﬂour ﬀ",                      // ligatures (NFKC splits them)
	"ＡＢＣ１２３ｶﾀｶﾅ",                         // full- and half-width
	"Straße STRASSE ẞ",                   // sharp s, capital sharp s
	"İstanbul ıi IJ",                     // Turkish dotted and dotless i
	"ΟΔΟΣ Οδός σοφός ΣΟΦΟΣ",              // Greek, final sigma
	"Ⅻ ⅻ ² ³ ½ ¼ ⁴⁄₅ ①②",                 // number forms
	"x\u0300\u0301\u0302\u0303\u0304 stacked marks",
	// scripts
	"你好，世界！今天天气很好。",
	"日本語のテキストとカタカナ、ひらがな。",
	"한국어 텍스트입니다. 안녕하세요",
	"\u1100\u1161\u11a8 decomposed hangul jamo",
	"مرحبا بالعالم ١٢٣",
	"שלום עולם",
	"नमस्ते दुनिया क्षत्रिय",
	"สวัสดีชาวโลก",
	"Привет, мир! ЁЖИК",
	"Γειά σου Κόσμε",
	"ሰላም ዓለም",
	"𝐇𝐞𝐥𝐥𝐨 𝕎𝕠𝕣𝕝𝕕", // mathematical alphanumerics (astral)
	"𠀀𠀁 𪚥 astral CJK",
	"ext E \U0002B820\U0002B91F then \U0002B920\U0002B921 and 丽 \U0002F800",
	"next\u0085line and c1\u0085\u0080 controls",
	"mid\ufeffword bom",
	"mongolian\u180evowel separator",
	// emoji
	"👍 👍🏽 👍🏿",
	"👨‍👩‍👧‍👦 family",
	"👩🏽‍💻 coder",
	"🏳️‍🌈 🏴‍☠️",
	"🇯🇵🇫🇷🇺🇸 flags",
	"1️⃣ #️⃣ keycaps",
	"❤️ ❤ ☺️ ✔︎",
	"😀😃😄😁😆😅😂🤣🥲☺️😊😇",
	"I love it 😍😍😍!!!",
	// control and invisible characters
	"tab\there",
	"cr\rlf\nboth\r\n",
	"nul\x00byte",
	"bell\x07 esc\x1b[0m",
	"del\x7f c1\u0085\u0080",
	"zero\u200bwidth\u200cnon\u200djoiner",
	"nbsp\u00a0here\u202fnarrow",
	"ideographic\u3000space",
	"\ufeffbom at start",
	"line\u2028sep\u2029para",
	"soft\u00adhyphen",
	"private \ue000\uf8ff use",
	"\ufffd replacement",
	"variation\ufe0f selector\ufe0e",
	// whitespace
	"  leading spaces",
	"trailing spaces   ",
	"many     inner      spaces",
	"\n\nnewlines\n\n\nbetween\n",
	"\t\t tabs \t and spaces \t",
	"   \n   \n   ",
	"a\n\n\n\n\n\n\n\n\n\nb",
	"word \n word",
	// numbers
	"1234567890",
	"3.14159 -2.5e10 1,000,000 10%",
	"12345678901234567890123456789",
	"2024-01-15 12:30:45",
	"$100.00 €50 £20 ¥1000",
	"Route 66, 007, 0x1F",
	"٠١٢٣٤٥٦٧٨٩ ০১২ ๑๒๓",
	// punctuation
	"Hello!!! What??? Yes... No---",
	"«quoted» „German“ ‘single’ “double”",
	"em—dash en–dash … ellipsis",
	"¿Qué? ¡Sí!",
	"(a) [b] {c} <d>",
	"a.b,c;d:e!f?g",
	"@user #hashtag $var %p ^ & * _under_ ~tilde~ `tick`",
	"C++ C# F# .NET node.js",
	"https://example.com/path?q=1&r=two#frag",
	"user@example.com",
	"def f(x): return x ** 2  # comment",
	"if (a != b && c <= d) { return; }",
	// contractions and case
	"I'm you're he's we've they'll she'd don't",
	"I'M YOU'RE HE'S WE'VE THEY'LL SHE'D DON'T",
	"it’s curly ’s",
	"rock 'n' roll 'quoted'",
	// special tokens written in the text
	"[CLS] hello [SEP] [MASK] [PAD] [UNK]",
	"<|endoftext|> after end",
	"<|startoftext|>start",
	"<s> </s> <pad> <unk> <mask>",
	"<bos><eos><start_of_turn>user\nhi<end_of_turn>",
	"<|im_start|>system\nYou are helpful.<|im_end|>",
	"<extra_id_0> fill <extra_id_1>",
	"<|startoftranscript|><|en|><|transcribe|><|notimestamps|>",
	"<|startoftranscript|><|yue|><|translate|><|0.00|> hello<|1.50|>",
	"<think>\nreasoning\n</think>",
	"<|vision_start|><|image_pad|><|vision_end|>",
	"<image> <video>",
	"not<|endoftext|>spaced",
	"<|endoftext",
	// long words
	strings.Repeat("a", 99),
	strings.Repeat("a", 100),
	strings.Repeat("a", 101),
	strings.Repeat("b", 250),
	"pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
	"supercalifragilisticexpialidocious" + strings.Repeat("x", 80),
	strings.Repeat("ab", 60),
	strings.Repeat("🙂", 40),
	strings.Repeat("你", 120),
	strings.Repeat(" ", 300),
	strings.Repeat("\n", 120),
	strings.Repeat(".", 200),
	strings.Repeat("-", 150),
	strings.Repeat("=", 90) + " rule",
}

// longTexts are well past every model's max_length (77 for CLIP, 512 for
// BERT, 64 for SigLIP): the ids are compared untruncated.
func longTexts() []string {
	sentence := "The quick brown fox jumps over the lazy dog while the man in the red shirt picks up the ball. "
	mixed := "Café naïve 東京 🎉 the 2nd of 3 items, isn't it? "
	return []string{
		strings.Repeat(sentence, 40),
		strings.Repeat(mixed, 60),
		strings.Repeat("word ", 1500),
		strings.Repeat("0123456789", 300),
		strings.Repeat("Question: what happens next?\nOptions:\nA. one\nB. two\n\n", 50),
	}
}

// mixedAlphabet is what seededTexts draws from: pieces that each stage of
// a tokenizer treats specially, so that random neighbours meet.
var mixedAlphabet = []string{
	"a", "Z", "é", "e\u0301", "ß", "İ", "Σ", "ǅ", "ﬁ", "Ａ", "ｶ", "0", "7", "٣", "½", "²",
	" ", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2009",
	".", ",", "!", "?", "'", "'s", "'LL", "\"", "-", "_", "(", ")", "…", "—", "¿", "«",
	"你", "好", "東京", "カ", "한", "\u1100\u1161", "ก", "ि", "ا", "\U00020000",
	"👍", "🏽", "\u200d", "👩\u200d💻", "\ufe0f", "🇯🇵", "😀",
	"\x00", "\x01", "\x7f", "\u0085", "\u200b", "\ufeff", "\u00ad", "\ufffd",
	"<s>", "</s>", "<|endoftext|>", "[SEP]", "<bos>", "<|im_start|>", "▁",
	"the", "The", "man", "ing", "question", "Answer:", "http://",
}

// seededTexts are n random texts of up to 24 pieces of mixedAlphabet,
// from a fixed seed: the same texts on every run.
func seededTexts(n int) []string {
	r := rand.New(rand.NewPCG(30, 2026))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + r.IntN(24) {
			b.WriteString(mixedAlphabet[r.IntN(len(mixedAlphabet))])
		}
		out[i] = b.String()
	}
	return out
}

// item is one line of the benchmarks' item files (the fields this test
// reads).
type item struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// readItems reads every stride-th item of a JSON-lines file, up to limit.
func readItems(r io.Reader, name string, stride, limit int) ([]item, error) {
	var out []item
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 0; sc.Scan() && len(out) < limit; n++ {
		if n%stride != 0 {
			continue
		}
		var it item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n+1, err)
		}
		out = append(out, it)
	}
	return out, sc.Err()
}

// itemTexts turns items into the texts a screening run tokenizes: the
// question, each option, and the whole multiple-choice prompt.
func itemTexts(items []item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Question)
		var b strings.Builder
		b.WriteString("Question: " + it.Question + "\nOptions:\n")
		for i, o := range it.Options {
			out = append(out, o)
			fmt.Fprintf(&b, "%c. %s\n", 'A'+i, o)
		}
		b.WriteString("Answer with the option letter only.")
		out = append(out, b.String())
	}
	return out
}

// tokenizerTexts is the conformance corpus: the hand-written cases, the
// long texts, 300 seeded random mixtures, and questions, options and prompts of the embedded benchmark
// items (every 50th of each file) and, where ../shared/data is present, of
// the full item files (every 500th). The list is the same on every run.
func tokenizerTexts(t *testing.T) []string {
	t.Helper()
	texts := append(append(append([]string{}, handTexts...), longTexts()...), seededTexts(300)...)
	fsys := demo.FS()
	for _, name := range demo.Items() {
		f, err := fsys.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		items, err := readItems(f, name, 50, 10)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, itemTexts(items)...)
	}
	for _, name := range []string{"nextqa.jsonl", "socialiq2.jsonl", "star.jsonl", "videohallucer.jsonl"} {
		p, err := shareddata.Lookup(name)
		if err != nil {
			t.Logf("shared items not used: %v", err)
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		items, err := readItems(f, p, 500, 6)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, itemTexts(items)...)
	}
	return texts
}
