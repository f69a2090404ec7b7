package models

import (
	"os"
	"path/filepath"
	"slices"
)

// slowTokenizerHint says what to do when a folder lacks tokenizer.json but
// holds a SentencePiece model: google/siglip-* ships only spiece.model and
// tokenizer_config.json, for transformers' slow SiglipTokenizer, which
// removes ASCII punctuation, collapses whitespace, lowercases
// (do_lower_case) and appends </s> around the SentencePiece Unigram model.
// vidscreen reads tokenizer.json files only, the format transformers.js
// reads too; the converted exports of SigLIP that transformers.js loads
// (Xenova/siglip-*) carry one.
func slowTokenizerHint(dir string, missing []string) string {
	if !slices.Contains(missing, "tokenizer.json") {
		return ""
	}
	for _, f := range []string{"spiece.model", "sentencepiece.bpe.model", "tokenizer.model"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return "; the folder holds " + f + ", a slow (SentencePiece) tokenizer, which vidscreen does not read: " +
				"put beside it the tokenizer.json of a converted export of the same checkpoint (the SigLIP exports transformers.js loads, " +
				"Xenova/siglip-*, carry one), or name one with the entry's \"tokenizer\", and compare its ids " +
				"(vidscreen models tokenize) with those of the model's own processor (docs/models.md, image_text)"
		}
	}
	return ""
}
