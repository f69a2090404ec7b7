package models

import (
	"os"
	"path/filepath"
	"slices"
)

// slowTokenizerHint says how to make the tokenizer.json a folder lacks when
// it holds a SentencePiece model instead (google/siglip-* ships only
// spiece.model and tokenizer_config.json, for transformers' slow
// SiglipTokenizer). vidscreen reads tokenizer.json files only: a
// SentencePiece model and SiglipTokenizer's text canonicalisation
// (punctuation stripped, whitespace collapsed) are converted by
// transformers' own converter, whose output transformers.js loads too.
func slowTokenizerHint(dir string, missing []string) string {
	if !slices.Contains(missing, "tokenizer.json") {
		return ""
	}
	for _, f := range []string{"spiece.model", "sentencepiece.bpe.model", "tokenizer.model"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return "; the folder holds " + f + ", a slow tokenizer: make tokenizer.json with transformers " +
				"(python -c 'from transformers import AutoTokenizer; AutoTokenizer.from_pretrained(\"" + dir + "\", use_fast=True).save_pretrained(\"" + dir + "\")'), " +
				"which converts it (convert_slow_tokenizer) as the Hub's converted SigLIP exports (Xenova/siglip-*) carry it"
		}
	}
	return ""
}
