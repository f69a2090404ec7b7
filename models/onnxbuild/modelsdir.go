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
    "lm_reader": {"dir": "lm_reader", "max_length": 128},
    "vlm_reader": {"dir": "vlm_reader", "max_length": 128}
  }
}
`

// WriteModelsDir writes the project's small models for every role into dir,
// one folder per role in the layout of the Hugging Face Hub's ONNX
// repositories, so that transformers.js loads each folder as it is
// (hflayout.go): config.json with the model_type of the class that runs it,
// the ONNX files under onnx/, preprocessor_config.json where the role reads
// images, generation_config.json for the generating roles, tokenizer.json
// and tokenizer_config.json (with a pad token, and a ChatML chat template
// for the readers), and models.json naming the folders. The captioner is
// ColourCaptioner, which says what a frame shows ("a red square on a blue
// background") with the colour models' own vocabulary, so that captions
// mean something on any video and in any clone; the other roles' weights
// are drawn from fixed seeds and read the generated WordPiece tokenizer.
// Two calls write the same bytes. dir may exist; files of the same names
// are replaced.
func WriteModelsDir(dir string) error {
	dup := TinyBERT
	dup.TypeVocab, dup.Seed = 0, 7 // MPNet exports have no token_type_ids
	colour := &ColourCaptioner{Model: NewColourModel(ColourImageSize)}
	steps := []struct {
		role  string
		write func(string) error
		// maxLength is the tokenizer's model_max_length (models.json's
		// max_length, or the model's positions).
		maxLength int
		// chat gives the role's tokenizer_config.json a chat template.
		chat bool
		// colour marks the captioner, whose tokenizer is the colour
		// vocabulary its WriteDir writes, not the WordPiece file.
		colour bool
	}{
		{"image_text", func(d string) error { return writeHFCLIP(d, NewCLIP(TinyCLIP)) }, TinyCLIP.MaxPos, false, false},
		{"text_embed", func(d string) error { return writeHFEncoder(d, NewEncoder(TinyBERT)) }, TinyBERT.MaxPos, false, false},
		{"dup_confirm", func(d string) error { return writeHFEncoder(d, NewEncoder(dup)) }, 128, false, false},
		{"captioner", func(d string) error { return writeHFCaptioner(d, colour) }, captionSteps + 1, false, true},
		{"lm_reader", func(d string) error { return writeHFLM(d, NewLM(TinyLM, 3)) }, TinyLM.MaxPos, true, false},
		{"vlm_reader", func(d string) error { return writeHFVLM(d, NewVLM(TinyVLMVision, TinyVLMText, 5)) }, TinyVLMText.MaxPos, true, false},
	}
	tok := WordPieceTokenizer()
	for _, s := range steps {
		sub := filepath.Join(dir, s.role)
		if err := s.write(sub); err != nil {
			return fmt.Errorf("onnxbuild: %s: %w", s.role, err)
		}
		template := ""
		if s.chat {
			template = chatMLTemplate
		}
		if err := writeJSON(filepath.Join(sub, "tokenizer_config.json"), wordPieceTokenizerConfig(s.maxLength, template)); err != nil {
			return fmt.Errorf("onnxbuild: %s: %w", s.role, err)
		}
		if s.colour {
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
