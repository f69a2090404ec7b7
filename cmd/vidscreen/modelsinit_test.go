package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models"
)

// TestModelsInitRoles: models init writes every role of models.Roles and
// neither optional one, in the Hub's ONNX layout; it says on stdout that the asr role, and so the
// audio transcript test, is left out and why, and the manifest it wrote
// reads back without one. A second init of the same directory is refused
// (exit 2) unless --force is given.
func TestModelsInitRoles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "models")
	code, out, stderr := runModels("", "init", dir)
	if code != 0 {
		t.Fatalf("models init: exit %d\n%s", code, stderr)
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		role models.Role
		want bool
	}{
		{models.RoleImageText, true}, {models.RoleTextEmbed, true}, {models.RoleDupConfirm, true},
		{models.RoleCaptioner, true}, {models.RoleLMReader, true}, {models.RoleVLMReader, true},
		{models.RoleScreenReader, false}, {models.RoleASR, false},
	} {
		if _, ok := m.Roles[tt.role]; ok != tt.want {
			t.Errorf("role %s in the manifest: %v, want %v", tt.role, ok, tt.want)
		}
	}
	for _, want := range []string{"wrote the small models for 6 roles", "no asr role written (the audio transcript test is off)", "hears only the world's tones"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// Each role's folder is in the Hub's ONNX layout (transformers.js
	// loads it): ONNX files under onnx/, configs and tokenizer files at the
	// root.
	for _, f := range []string{"image_text/onnx/text_model.onnx", "image_text/onnx/vision_model.onnx", "text_embed/onnx/model.onnx",
		"dup_confirm/onnx/model.onnx", "captioner/onnx/encoder_model.onnx", "captioner/onnx/decoder_model_merged.onnx",
		"captioner/generation_config.json", "lm_reader/onnx/model.onnx", "lm_reader/tokenizer_config.json",
		"vlm_reader/onnx/vision_encoder.onnx", "vlm_reader/config.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("models init did not write %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "asr")); err == nil {
		t.Error("models init wrote an asr folder its manifest does not name")
	}
	for _, tt := range []struct {
		args []string
		code int
	}{{[]string{"init", dir}, 2}, {[]string{"init", "--force", dir}, 0}} {
		if code, _, stderr := runModels("", tt.args...); code != tt.code {
			t.Errorf("models %v: exit %d, want %d\n%s", tt.args, code, tt.code, stderr)
		}
	}
}
