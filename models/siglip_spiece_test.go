package models

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// TestSiglipCanonical: the text SiglipTokenizer hands SentencePiece, worked
// by hand from transformers' tokenize and canonicalize_text.
func TestSiglipCanonical(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"A photo of a cat.", "▁A photo of a cat"},
		{"What is the dog doing?", "▁What is the dog doing"},
		{"  two\t\tspaces \n", "▁ two spaces"},
		{"don't-stop (now)!", "▁dontstop now"},
		{"a . b", "▁a b"},
		{"x▁y", "▁x y"},
		{"", "▁"},
		{"!!!", "▁"},
		{"a\u00a0b\u3000c\x1fd\u200be", "▁a b c d\u200be"}, // Python's \s has U+001F, not U+200B
		{"¿qué? «sí»", "▁¿qué «sí»"},                       // only ASCII punctuation goes
	} {
		if got := siglipCanonical(c.in); got != c.want {
			t.Errorf("siglipCanonical(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// writeSiglipSpieceDir is writeSiglipDir with spiece.model in place of
// tokenizer.json, as google/siglip-* ship their tokenizer.
func writeSiglipSpieceDir(t *testing.T) string {
	t.Helper()
	dir, _ := writeSiglipDir(t, `{"dir": "siglip", "logit_scale": 10, "logit_bias": -10}`)
	folder := filepath.Join(dir, "siglip")
	if err := os.Remove(filepath.Join(folder, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "spiece.model"), onnxbuild.SiglipSentencePiece(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSiglipSpieceModelLoads: image_text opens a SigLIP v1 folder with
// spiece.model and no tokenizer.json; its texts reach the tower as the
// slow SiglipTokenizer makes them (lowercased, punctuation removed,
// whitespace collapsed, "</s>" appended, padded with "</s>" to 64), the
// same ids as the fixture's tokenizer.json (written to do what
// SiglipTokenizer does) gives, and the same embeddings.
func TestSiglipSpieceModelLoads(t *testing.T) {
	t.Parallel()
	ref, err := openSiglip(t, func() string {
		d, _ := writeSiglipDir(t, `{"dir": "siglip", "logit_scale": 10, "logit_bias": -10}`)
		return d
	}())
	if err != nil {
		t.Fatal(err)
	}
	it, err := openSiglip(t, writeSiglipSpieceDir(t))
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a man playing the guitar", "What is the dog doing?", "The CAT, the dog & the bird!!", "two  spaces\tand\na tab",
		strings.Repeat("the boy runs ", 40), "xyz 123"}
	got, err := it.TextInputs(texts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.TextInputs(texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("%q: spiece.model ids %v, tokenizer.json ids %v", texts[i], got[i], want[i])
		}
		if len(got[i]) != 64 {
			t.Errorf("%q: %d ids, want 64", texts[i], len(got[i]))
		}
	}
	// Hand-worked: "▁what ▁is ▁the ▁dog ▁doing </s>" then </s> to 64.
	id := func(s string) int {
		v, ok := it.tok.TokenID(s)
		if !ok {
			t.Fatalf("%q not in the vocabulary", s)
		}
		return v
	}
	hand := []int{id("▁what"), id("▁is"), id("▁the"), id("▁dog"), id("▁doing"), 1}
	if !slices.Equal(got[1][:6], hand) || slices.ContainsFunc(got[1][6:], func(v int) bool { return v != 1 }) {
		t.Errorf("%q: ids %v, want %v then </s> (1) to 64", texts[1], got[1], hand)
	}
	// A leading space stays after SiglipTokenizer's "▁": "▁" + "▁a".
	lead, err := it.TextInputs([]string{" a dog"})
	if err != nil {
		t.Fatal(err)
	}
	if w := []int{id("▁"), id("▁a"), id("▁dog"), 1}; !slices.Equal(lead[0][:4], w) {
		t.Errorf("\" a dog\": ids %v, want %v then padding", lead[0][:8], w)
	}
	a, err := it.EmbedTexts(context.Background(), texts[:2])
	if err != nil {
		t.Fatal(err)
	}
	b, err := ref.EmbedTexts(context.Background(), texts[:2])
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("%q: embeddings differ between spiece.model and tokenizer.json", texts[i])
		}
	}
	if got := it.tok.Decode(got[0]); got != "a man playing the guitar" {
		t.Errorf("decoded %q, want %q", got, "a man playing the guitar")
	}
}

// TestSiglipSpieceModelRefused: a spiece.model that is not SiglipTokenizer's
// (another tokenizer_class) or is corrupt is an error naming the file.
func TestSiglipSpieceModelRefused(t *testing.T) {
	t.Parallel()
	dir := writeSiglipSpieceDir(t)
	folder := filepath.Join(dir, "siglip")
	writeFile(t, filepath.Join(folder, "tokenizer_config.json"), `{"tokenizer_class": "T5Tokenizer"}`)
	if _, err := openSiglip(t, dir); err == nil || !strings.Contains(err.Error(), "tokenizer_config.json: tokenizer_class T5Tokenizer") {
		t.Errorf("T5Tokenizer's spiece.model: error %v; want one naming tokenizer_class", err)
	}
	dir = writeSiglipSpieceDir(t)
	folder = filepath.Join(dir, "siglip")
	writeFile(t, filepath.Join(folder, "spiece.model"), "\x0a\x40not a model")
	if _, err := openSiglip(t, dir); err == nil || !strings.Contains(err.Error(), filepath.Join(folder, "spiece.model")) || !strings.Contains(err.Error(), "pieces[0]") {
		t.Errorf("corrupt spiece.model: error %v; want one naming the file and the field", err)
	}
}

// TestCheckSiglipSpieceFolder: models check takes a SigLIP v1 folder's
// spiece.model as its tokenizer, loads it and reports the probe's ids.
func TestCheckSiglipSpieceFolder(t *testing.T) {
	t.Parallel()
	tinyModels(t) // skips without ONNX Runtime, as the other SigLIP tests do
	dir := writeSiglipSpieceDir(t)
	rep, err := CheckRoles(context.Background(), dir, RuntimeOptions{}, []Role{RoleImageText})
	if err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
	if len(rep.Roles) != 1 {
		t.Fatalf("%d roles reported", len(rep.Roles))
	}
	rr := rep.Roles[0]
	if len(rr.Problems) > 0 || !rr.TokenizerLoaded || filepath.Base(rr.Tokenizer) != "spiece.model" || len(rr.ProbeIDs) < 2 || rr.ProbeIDs[len(rr.ProbeIDs)-1] != 1 {
		t.Fatalf("report: problems %v, tokenizer %s loaded %v, probe ids %v (want spiece.model, ending in </s> = 1)", rr.Problems, rr.Tokenizer, rr.TokenizerLoaded, rr.ProbeIDs)
	}
}
