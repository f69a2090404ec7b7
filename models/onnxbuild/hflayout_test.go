package onnxbuild

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestModelsDirHubLayout checks the folders WriteModelsDir writes against
// what transformers.js loads (hflayout.go): per role, config.json's
// model_type, the ONNX files under onnx/ and none at the root, a
// tokenizer_config.json with [PAD], a chat template for the readers only,
// and generation_config.json for the generating roles.
func TestModelsDirHubLayout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		role, modelType string
		onnx            []string
		chat, gen       bool
	}{
		{"image_text", "clip", []string{"text_model.onnx", "vision_model.onnx"}, false, false},
		{"text_embed", "bert", []string{"model.onnx"}, false, false},
		{"dup_confirm", "bert", []string{"model.onnx"}, false, false},
		{"captioner", "vision-encoder-decoder", []string{"decoder_model_merged.onnx", "encoder_model.onnx"}, false, true},
		{"lm_reader", "qwen2", []string{"model.onnx"}, true, true},
		{"vlm_reader", "llava", []string{"decoder_model_merged.onnx", "embed_tokens.onnx", "vision_encoder.onnx"}, true, true},
	} {
		sub := filepath.Join(dir, tc.role)
		var cfg struct {
			ModelType string `json:"model_type"`
		}
		readJSON(t, filepath.Join(sub, "config.json"), &cfg)
		if cfg.ModelType != tc.modelType {
			t.Errorf("%s: model_type %q, want %q", tc.role, cfg.ModelType, tc.modelType)
		}
		got, _ := filepath.Glob(filepath.Join(sub, hfOnnxDir, "*.onnx"))
		for i := range got {
			got[i] = filepath.Base(got[i])
		}
		if len(got) != len(tc.onnx) {
			t.Errorf("%s: onnx/ holds %v, want %v", tc.role, got, tc.onnx)
		}
		for i := range got {
			if i < len(tc.onnx) && got[i] != tc.onnx[i] {
				t.Errorf("%s: onnx/ holds %v, want %v", tc.role, got, tc.onnx)
				break
			}
		}
		if root, _ := filepath.Glob(filepath.Join(sub, "*.onnx")); len(root) != 0 {
			t.Errorf("%s: ONNX files at the root as well: %v", tc.role, root)
		}
		var tc2 struct {
			Class        string  `json:"tokenizer_class"`
			Pad          string  `json:"pad_token"`
			ChatTemplate *string `json:"chat_template"`
		}
		readJSON(t, filepath.Join(sub, "tokenizer_config.json"), &tc2)
		if tc2.Class != "BertTokenizer" || tc2.Pad != "[PAD]" || (tc2.ChatTemplate != nil) != tc.chat {
			t.Errorf("%s: tokenizer_config.json class %q pad %q chat template %v, want BertTokenizer [PAD] %v", tc.role, tc2.Class, tc2.Pad, tc2.ChatTemplate != nil, tc.chat)
		}
		if _, err := os.Stat(filepath.Join(sub, "generation_config.json")); (err == nil) != tc.gen {
			t.Errorf("%s: generation_config.json present %v, want %v", tc.role, err == nil, tc.gen)
		}
	}
}

// TestModelsDirIsDeterministic: two calls write the same files with the
// same bytes.
func TestModelsDirIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := WriteModelsDir(d); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	err := filepath.WalkDir(a, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil {
			return err
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two calls", rel)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Errorf("%d files written; want every role's", n)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
