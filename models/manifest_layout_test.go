package models

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveFilesAtRootOrUnderOnnx: a role's ONNX files are found at the
// folder's root (optimum-cli export onnx) or under onnx/ (the Hub's ONNX
// repositories, transformers.js, models init), the root first; the other
// files only at the root.
func TestResolveFilesAtRootOrUnderOnnx(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		files   []string
		want    map[string]string
		missing int
	}{
		{"root", []string{"model.onnx", "tokenizer.json"}, map[string]string{"model.onnx": "model.onnx", "tokenizer.json": "tokenizer.json"}, 0},
		{"onnx", []string{"onnx/model.onnx", "tokenizer.json"}, map[string]string{"model.onnx": "onnx/model.onnx", "tokenizer.json": "tokenizer.json"}, 0},
		{"both", []string{"model.onnx", "onnx/model.onnx", "tokenizer.json"}, map[string]string{"model.onnx": "model.onnx", "tokenizer.json": "tokenizer.json"}, 0},
		{"tokenizer under onnx", []string{"onnx/model.onnx", "onnx/tokenizer.json"}, map[string]string{"model.onnx": "onnx/model.onnx"}, 1},
		{"merged decoder under onnx", []string{"onnx/decoder_model_merged.onnx", "tokenizer.json"}, map[string]string{"model.onnx": "onnx/decoder_model_merged.onnx", "tokenizer.json": "tokenizer.json"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			found, missing := resolveFiles(RoleLMReader, RoleSpec{}, dir)
			if len(missing) != tc.missing {
				t.Errorf("missing %v, want %d", missing, tc.missing)
			}
			if len(found) != len(tc.want) {
				t.Errorf("found %v, want %v", found, tc.want)
			}
			for slot, rel := range tc.want {
				if found[slot] != filepath.Join(dir, rel) {
					t.Errorf("slot %s: %s, want %s", slot, found[slot], filepath.Join(dir, rel))
				}
			}
		})
	}
}
