package models

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/vidscreen/vidscreen/models/tokenizer"
)

// spieceFile is the SentencePiece model SigLIP v1 (google/siglip-*) ships
// in place of tokenizer.json, for transformers' slow SiglipTokenizer.
const spieceFile = "spiece.model"

// sentencePieceInstead lets image_text's folder hold spiece.model where
// tokenizer.json is missing (and the manifest names no tokenizer): found's
// tokenizer slot then points at it, and it is no longer missing.
func sentencePieceInstead(role Role, spec RoleSpec, dir string, found map[string]string, missing []string) []string {
	if role != RoleImageText || spec.Tokenizer != "" {
		return missing
	}
	i := slices.Index(missing, "tokenizer.json")
	if i < 0 {
		return missing
	}
	p := filepath.Join(dir, spieceFile)
	if st, err := os.Stat(p); err != nil || st.IsDir() {
		return missing
	}
	found["tokenizer.json"] = p
	return slices.Delete(missing, i, i+1)
}

// loadImageTextTokenizer loads image_text's tokenizer: a tokenizer.json,
// or a SentencePiece model (a ".model" file) read as SiglipTokenizer.
func loadImageTextTokenizer(path, dir string) (Tokenizer, error) {
	if filepath.Ext(path) != ".model" {
		return LoadTokenizer(path)
	}
	return loadSiglipSentencePiece(path, dir)
}

// loadSiglipSentencePiece reads spiece.model as transformers' slow
// SiglipTokenizer uses it: SentencePiece with add_dummy_prefix turned off
// (get_spm_processor), "</s>" appended (build_inputs_with_special_tokens);
// each text canonicalized first (siglipCanonical) and, with do_lower_case,
// lowercased (imageTextSpec does that, as for a tokenizer.json). Padding
// to 64 with "</s>" comes from config.json and tokenizer_config.json
// (imageTextSpec). Only a folder whose tokenizer_config.json names
// SiglipTokenizer, or that has none and a config.json of model_type
// siglip, is read this way: another class's spiece.model (T5's, with
// other special tokens and no canonicalization) would be tokenized wrong.
func loadSiglipSentencePiece(path, dir string) (Tokenizer, error) {
	fc, err := readFolderConfig(dir)
	if err != nil {
		return nil, err
	}
	switch {
	case fc.tokenizerClass == "SiglipTokenizer":
	case fc.tokenizerClass == "" && fc.modelType == "siglip":
	default:
		class := fc.tokenizerClass
		if class == "" {
			class = "(none)"
		}
		return nil, fmt.Errorf("%s: tokenizer_class %s: a %s is read as SiglipTokenizer (SigLIP v1) only; give the folder a tokenizer.json for another tokenizer",
			filepath.Join(dir, "tokenizer_config.json"), class, spieceFile)
	}
	t, err := tokenizer.LoadSentencePiece(path, tokenizer.SentencePieceOptions{AddEOS: true, NoDummyPrefix: true})
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	return &hfTokenizer{t: t, path: path, siglip: true}, nil
}

// pyPunctuation is Python's string.punctuation, what SiglipTokenizer's
// canonicalize_text removes.
const pyPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// pySpace is Python's str.isspace (what re's \s and str.strip match):
// Go's unicode.IsSpace plus the separators U+001C to U+001F.
func pySpace(r rune) bool {
	return (r >= 0x1c && r <= 0x1f) || unicode.IsSpace(r)
}

// siglipCanonical is the text SiglipTokenizer hands SentencePiece:
// tokenize replaces "▁" by a space and puts "▁" in front, then
// canonicalize_text removes ASCII punctuation, turns each run of
// whitespace into one space and strips the ends (the "▁" in front is not
// whitespace, so a leading space after it stays). SentencePiece then runs
// without its dummy prefix: the "▁" in front is the word boundary.
func siglipCanonical(text string) string {
	var b strings.Builder
	b.Grow(len(text) + 3)
	b.WriteString("▁")
	space := false
	for _, r := range strings.ReplaceAll(text, "▁", " ") {
		switch {
		case r < 0x80 && strings.ContainsRune(pyPunctuation, r):
		case pySpace(r):
			space = true
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// slowTokenizerHint says what to do when a folder lacks tokenizer.json but
// holds a SentencePiece model that vidscreen does not read there: only
// image_text reads spiece.model (SigLIP v1, sentencePieceInstead).
func slowTokenizerHint(dir string, missing []string) string {
	if !slices.Contains(missing, "tokenizer.json") {
		return ""
	}
	for _, f := range []string{spieceFile, "sentencepiece.bpe.model", "tokenizer.model"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return "; the folder holds " + f + ", a slow (SentencePiece) tokenizer, which vidscreen reads only as image_text's spiece.model (SigLIP v1): " +
				"put beside it the tokenizer.json of a converted export of the same checkpoint, or name one with the entry's \"tokenizer\", and compare its ids " +
				"(vidscreen models tokenize) with those of the model's own processor (docs/models.md)"
		}
	}
	return ""
}
