package onnxbuild

import (
	"fmt"
	"os"
	"path/filepath"
)

// manifestFile is the models directory's manifest (models.ManifestFile; not
// imported, since package models imports this one in its tests).
const manifestFile = "models.json"

// smallManifest lists every role of the small models, in the layout and
// with the options `vidscreen models check` expects of real exports.
const smallManifest = `{
  "roles": {
    "image_text": {"dir": "image_text", "max_length": 77},
    "text_embed": {"dir": "text_embed", "pooling": "cls"},
    "dup_confirm": {"dir": "dup_confirm", "pooling": "mean", "max_length": 128},
    "captioner": {"dir": "captioner", "max_new_tokens": 12},
    "lm_reader": {"dir": "lm_reader", "max_length": 120},
    "vlm_reader": {"dir": "vlm_reader", "max_length": 120}
  }
}
`

// WriteModelsDir writes the project's small models for every role into dir:
// one folder per role with its ONNX files, config.json,
// preprocessor_config.json where the role reads images, a tokenizer.json
// and models.json naming them. The captioner is ColourCaptioner, which says
// what a frame shows ("a red square on a blue background") with the colour
// models' own vocabulary, so that captions mean something on any video and
// in any clone; the other roles' weights are drawn from fixed seeds and
// read the generated WordPiece tokenizer. Two calls write the same bytes.
// dir may exist; files of the same names are replaced.
func WriteModelsDir(dir string) error {
	dup := TinyBERT
	dup.TypeVocab, dup.Seed = 0, 7 // MPNet exports have no token_type_ids
	steps := []struct {
		role  string
		write func(string) error
		// ownTokenizer marks a role whose WriteDir writes its own
		// tokenizer.json, which the WordPiece file must not replace.
		ownTokenizer bool
	}{
		{"image_text", NewCLIP(TinyCLIP).WriteDir, false},
		{"text_embed", NewEncoder(TinyBERT).WriteDir, false},
		{"dup_confirm", NewEncoder(dup).WriteDir, false},
		{"captioner", (&ColourCaptioner{Model: NewColourModel(ColourImageSize)}).WriteDir, true},
		{"lm_reader", func(d string) error { return NewLM(TinyLM, 3).WriteLMDir(d, true) }, false},
		{"vlm_reader", NewVLM(TinyVLMVision, TinyVLMText, 5).WriteDir, false},
	}
	tok := WordPieceTokenizer()
	for _, s := range steps {
		sub := filepath.Join(dir, s.role)
		if err := s.write(sub); err != nil {
			return fmt.Errorf("onnxbuild: %s: %w", s.role, err)
		}
		if s.ownTokenizer {
			continue
		}
		if err := os.WriteFile(filepath.Join(sub, "tokenizer.json"), tok, 0o644); err != nil {
			return fmt.Errorf("onnxbuild: %s: %w", s.role, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, manifestFile), []byte(smallManifest), 0o644); err != nil {
		return fmt.Errorf("onnxbuild: %w", err)
	}
	return nil
}
