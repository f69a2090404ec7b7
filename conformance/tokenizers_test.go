package conformance

import (
	"compress/bzip2"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/tokenizer"
)

// tokenizerCase names one real tokenizer folder of testdata/tokenizers
// (README.md there gives each file's source and licence).
type tokenizerCase struct {
	dir string
	// class is the tokenizer class transformers.js picks from the folder's
	// tokenizer_config.json: a different class can mean different options.
	class string
}

var tokenizerCases = []tokenizerCase{
	{dir: "bert-base-uncased", class: "PreTrainedTokenizer"},
	{dir: "clip-vit-base-patch32", class: "CLIPTokenizer"},
	{dir: "t5-small", class: "T5Tokenizer"},
	{dir: "gemma3", class: "GemmaTokenizer"},
	{dir: "qwen3", class: "Qwen2Tokenizer"},
	{dir: "whisper-tiny", class: "WhisperTokenizer"},
	{dir: "whisper-large-v3", class: "WhisperTokenizer"},
}

// referenceRewrite works around a known defect of transformers.js, where
// it differs from Hugging Face's tokenizers (the Rust library behind
// Python transformers' fast tokenizers, which the Go package follows): the
// reference is given rewrite(text), a text on which the defect does not
// show and which the Rust library tokenizes exactly as it does text, and
// the Go ids for text must equal the reference's for rewrite(text).
type referenceRewrite struct {
	why     string
	rewrite func(string) string
}

// lowerSigma: the Rust library lowercases per character
// (tokenizers/src/tokenizer/normalizer.rs, NormalizedString::lowercase:
// char::to_lowercase of each char), so Σ is always σ; transformers.js
// calls String.prototype.toLowerCase, which gives ς at the end of a word.
// Σ written as σ lowercases to σ in both.
var lowerSigma = referenceRewrite{
	why:     "transformers.js lowercases a word-final Σ to ς (String.toLowerCase); the Rust library to σ (char::to_lowercase per character)",
	rewrite: func(s string) string { return strings.ReplaceAll(s, "Σ", "σ") },
}

// astralCJK: BertNormalizer pads CJK ideographs with spaces; transformers.js
// tests UTF-16 code units (tokenize_chinese_chars, charCodeAt) and so never
// pads those beyond U+FFFF. The spaces written into the text are what the
// Rust library inserts (bert.rs, is_chinese_char ranges).
var astralCJK = referenceRewrite{
	why: "transformers.js's BertNormalizer does not pad CJK ideographs beyond U+FFFF with spaces (it reads UTF-16 code units); the Rust library does",
	rewrite: func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r > 0xFFFF && (r >= 0x20000 && r <= 0x2A6DF || r >= 0x2A700 && r <= 0x2B81F || r >= 0x2B920 && r <= 0x2CEAF || r >= 0x2F800 && r <= 0x2FA1F) {
				b.WriteString(" " + string(r) + " ")
				continue
			}
			b.WriteRune(r)
		}
		return b.String()
	},
}

// nextLine: the Rust library's WhitespaceSplit splits at char::is_whitespace,
// which includes U+0085 (NEL); transformers.js's at the JavaScript regexp
// \s, which does not. T5's charsmap keeps U+0085, so the split differs; a
// space in its place splits the same in both.
var nextLine = referenceRewrite{
	why:     "transformers.js's WhitespaceSplit (JavaScript \\s) does not split at U+0085; the Rust library's (char::is_whitespace) does",
	rewrite: func(s string) string { return strings.ReplaceAll(s, "\u0085", " ") },
}

// referenceDefect explains a difference of ids where no rewrite can: a
// text for which applies is true may give transformers.js ids that differ
// from the Rust library's for the reason why. Such a difference is counted
// and logged, not failed; every other difference fails.
type referenceDefect struct {
	why     string
	applies func(text string) bool
}

// jsBOM and jsNextLine: the pre-tokenizer regexps of CLIP, Whisper
// (GPT-2's) and Qwen use \s. The Rust library runs them with Oniguruma,
// whose \s is Unicode White_Space (U+0085 yes, U+FEFF no); transformers.js
// runs them as JavaScript regexps, whose \s matches U+FEFF and not U+0085.
// A text with either character can split into other words.
var (
	jsBOM = referenceDefect{
		why:     "JavaScript's \\s matches U+FEFF; Oniguruma's (the Rust library's) does not",
		applies: func(text string) bool { return strings.ContainsRune(text, '\ufeff') },
	}
	jsNextLine = referenceDefect{
		why:     "JavaScript's \\s does not match U+0085; Oniguruma's (the Rust library's) does",
		applies: func(text string) bool { return strings.ContainsRune(text, '\u0085') },
	}
)

// jsPrecompiled is what transformers.js's Precompiled normalizer does in
// place of the file's precompiled_charsmap, which it does not read:
// controls removed, some spaces mapped to " ", then NFKC (except around
// U+FF5E). The Rust library looks the charsmap up per grapheme cluster,
// then per character (as models/tokenizer does).
func jsPrecompiled(text string) string {
	text = jsControls.ReplaceAllString(text, "")
	text = jsSpaces.ReplaceAllString(text, " ")
	parts := strings.Split(text, "\uff5e")
	for i, p := range parts {
		parts[i] = norm.NFKC.String(p)
	}
	return strings.Join(parts, "\uff5e")
}

var (
	jsControls = regexp.MustCompile(`[\x{1}-\x{8}\x{B}\x{E}-\x{1F}\x{7F}\x{8F}\x{9F}]`)
	jsSpaces   = regexp.MustCompile(`[\x{9}\x{A}\x{C}\x{D}\x{A0}\x{1680}\x{2000}-\x{200F}\x{2028}\x{2029}\x{202F}\x{205F}\x{2581}\x{3000}\x{FEFF}\x{FFFD}]`)
)

// charsmapApprox: a difference is explained where the charsmap (Go's
// Normalize) and transformers.js's approximation of it normalize the text
// differently.
func charsmapApprox(tok *tokenizer.Tokenizer) referenceDefect {
	return referenceDefect{
		why: "transformers.js approximates T5's precompiled_charsmap with NFKC, and normalizes this text differently from the charsmap",
		applies: func(text string) bool {
			return tok.Normalize(text) != jsPrecompiled(text)
		},
	}
}

// trimsBOM: for CLIP's files transformers trims the decoded text
// (CLIPTokenizerFast in Python with str.strip, transformers.js with
// String.prototype.trim); JavaScript's trim also strips U+FEFF, Python's
// strip does not (U+FEFF is not whitespace to Python, nor to Go's
// strings.TrimSpace). A decoded text that differs only by U+FEFF at its
// ends is counted as equal, saying so.
func trimsBOM(goText, jsText string) bool {
	return goText != jsText && strings.Trim(goText, "\ufeff \t\n\r") == jsText
}

// spaceForNextLine: CLIP's normalizer replaces every run of \s with one
// space; the Rust library's \s (Oniguruma's, Unicode White_Space) matches
// U+0085, JavaScript's does not. A space in its place is replaced the same
// in both.
var spaceForNextLine = referenceRewrite{
	why:     "transformers.js's Replace \\s+ (JavaScript \\s) does not match U+0085; the Rust library's (Oniguruma) does",
	rewrite: func(s string) string { return strings.ReplaceAll(s, "\u0085", " ") },
}

// knownReferenceErrors lists, by tokenizer folder, the rewrites the
// reference is given.
var knownReferenceErrors = map[string][]referenceRewrite{
	"bert-base-uncased":     {lowerSigma, astralCJK},
	"clip-vit-base-patch32": {lowerSigma, spaceForNextLine},
	"t5-small":              {nextLine},
}

// referenceText is the text transformers.js is given for text, and the
// reasons it was rewritten (none when it is text itself).
func referenceText(dir, text string) (string, []string) {
	var why []string
	for _, rw := range knownReferenceErrors[dir] {
		if r := rw.rewrite(text); r != text {
			text = r
			why = append(why, rw.why)
		}
	}
	return text, why
}

// tokenizerFolder writes the folder's files into a temporary folder, the
// bzip2-compressed tokenizer.json uncompressed (the real files are up to
// 33 MB; compressed they keep the repository small).
func tokenizerFolder(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", "tokenizers", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "README.md" {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, strings.TrimSuffix(e.Name(), ".bz2"))); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// copyFile copies src to dst, uncompressing a ".bz2" source.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	var r io.Reader = in
	if strings.HasSuffix(src, ".bz2") {
		r = bzip2.NewReader(in)
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", src, err)
	}
	return out.Close()
}

// tokenizerReference is tokenizers.cjs's answer.
type tokenizerReference struct {
	Class   string   `json:"class"`
	Special [][]int  `json:"special"`
	Plain   [][]int  `json:"plain"`
	Decoded []string `json:"decoded"`
}

// TestTokenizersMatchTransformersJS encodes the corpus with each real
// tokenizer as the audit loads it (models.LoadTokenizer: the file's own
// padding and truncation removed) and with transformers.js's AutoTokenizer
// on the same folder, with and without special tokens, and requires equal
// ids; and it decodes the reference's ids with special tokens skipped, as
// the captioner's and Whisper's text is decoded, and requires equal text.
func TestTokenizersMatchTransformersJS(t *testing.T) {
	texts := tokenizerTexts(t)
	for _, tc := range tokenizerCases {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			dir := tokenizerFolder(t, tc.dir)
			refTexts := make([]string, len(texts))
			for i, text := range texts {
				var why []string
				refTexts[i], why = referenceText(tc.dir, text)
				if len(why) > 0 {
					t.Logf("reference given %q for %q: %s", clip(refTexts[i]), clip(text), strings.Join(why, "; "))
				}
			}
			var ref tokenizerReference
			runJS(t, "tokenizers.cjs", map[string]any{"dir": dir, "texts": refTexts}, &ref)
			if ref.Class != tc.class {
				t.Errorf("transformers.js picked %s, want %s", ref.Class, tc.class)
			}
			if len(ref.Special) != len(texts) || len(ref.Plain) != len(texts) || len(ref.Decoded) != len(texts) {
				t.Fatalf("reference gave %d, %d and %d answers for %d texts", len(ref.Special), len(ref.Plain), len(ref.Decoded), len(texts))
			}
			tok, err := models.LoadTokenizer(filepath.Join(dir, "tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			var defects []referenceDefect
			switch tc.dir {
			case "clip-vit-base-patch32": // U+0085 is rewritten (spaceForNextLine)
				defects = append(defects, jsBOM)
			case "whisper-tiny", "whisper-large-v3", "qwen3":
				defects = append(defects, jsBOM, jsNextLine)
			case "t5-small":
				raw, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
				if err != nil {
					t.Fatal(err)
				}
				defects = append(defects, charsmapApprox(raw))
			}
			explained := map[string]int{}
			cases, mismatches, rewritten, decodes, decodeMismatches, bomTrims := 0, 0, 0, 0, 0, 0
			for i, text := range texts {
				if refTexts[i] == text {
					// The decoded text of the reference's own ids (a
					// rewritten text decodes to itself).
					decodes++
					got, want := tok.Decode(ref.Special[i]), ref.Decoded[i]
					switch {
					case got == want:
					case tc.dir == "clip-vit-base-patch32" && trimsBOM(got, want):
						bomTrims++
						t.Logf("decode of %q: %q where transformers.js has %q: its String.trim strips U+FEFF, Python's str.strip does not", clip(text), clip(got), clip(want))
					default:
						decodeMismatches++
						if decodeMismatches <= 10 {
							t.Errorf("decode of %q differs:\n go: %q\n js: %q", clip(text), clip(got), clip(want))
						}
					}
				}
				for _, special := range []bool{true, false} {
					want := ref.Plain[i]
					if special {
						want = ref.Special[i]
					}
					got, err := tok.Encode(text, special)
					if err != nil {
						t.Fatalf("encode %q: %v", text, err)
					}
					cases++
					if slices.Equal(got, want) && refTexts[i] != text {
						rewritten++
					}
					if !slices.Equal(got, want) {
						if why := explain(defects, text); why != "" {
							explained[why]++
							t.Logf("%q special=%v: ids differ at %d, explained: %s", clip(text), special, firstDiff(got, want), why)
							continue
						}
						mismatches++
						if mismatches <= 10 {
							at := firstDiff(got, want)
							t.Errorf("%q special=%v: ids differ at %d of %d and %d\n go: %s\n js: %s", clip(text), special, at, len(got), len(want), around(got, at), around(want, at))
						}
					}
				}
			}
			nExplained := 0
			for _, why := range slices.Sorted(maps.Keys(explained)) {
				nExplained += explained[why]
				t.Logf("%s: %d cases differ, explained: %s", tc.dir, explained[why], why)
			}
			t.Logf("%s: %d cases (%d texts with and without special tokens): %d equal (%d of them on a rewritten reference text), %d differ for an explained reference defect, %d differ unexplained",
				tc.dir, cases, len(texts), cases-nExplained-mismatches, rewritten, nExplained, mismatches)
			t.Logf("%s: %d decodes, %d mismatches, %d equal but for U+FEFF trimmed by transformers.js", tc.dir, decodes, decodeMismatches, bomTrims)
		})
	}
}

// explain returns the reason of the first defect that applies to text, or
// "".
func explain(defects []referenceDefect, text string) string {
	for _, d := range defects {
		if d.applies(text) {
			return d.why
		}
	}
	return ""
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "..."
	}
	return s
}

// around shows the ids from a few before at to some after it.
func around(ids []int, at int) string {
	lo, hi := max(0, at-5), min(len(ids), at+20)
	return fmt.Sprintf("[%d:%d] %v", lo, hi, ids[lo:hi])
}
