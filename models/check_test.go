package models

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckDirReportsEveryRole(t *testing.T) {
	_, dir := tinyModels(t)
	rep, err := CheckDir(context.Background(), dir, RuntimeOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
	if !rep.OK() || len(rep.Roles) != len(Roles) {
		t.Fatalf("report not OK or %d roles:\n%s", len(rep.Roles), rep)
	}
	wantIO := map[Role][]string{
		RoleImageText:  {"text_model.onnx", "input_ids", "text_embeds", "vision_model.onnx", "pixel_values", "image_embeds"},
		RoleTextEmbed:  {"model.onnx", "token_type_ids", "last_hidden_state"},
		RoleDupConfirm: {"model.onnx", "attention_mask", "last_hidden_state"},
		RoleCaptioner:  {"encoder_model.onnx", "decoder_with_past_model.onnx", "encoder_hidden_states", "past_key_values.1.value", "present.0.key"},
		RoleLMReader:   {"model.onnx", "position_ids", "logits", "past_key_values.0.key"},
		RoleVLMReader:  {"vision_encoder.onnx", "image_features", "embed_tokens.onnx", "inputs_embeds", "decoder_model.onnx"},
	}
	text := rep.String()
	for _, rr := range rep.Roles {
		if !rr.TokenizerLoaded || len(rr.ProbeIDs) < 3 {
			t.Errorf("%s: tokenizer loaded %v, probe ids %v", rr.Role, rr.TokenizerLoaded, rr.ProbeIDs)
		}
		b, _ := json.Marshal(rr)
		for _, name := range wantIO[rr.Role] {
			if !bytes.Contains(b, []byte(`"`+name+`"`)) {
				t.Errorf("%s: report lacks %s: %s", rr.Role, name, b)
			}
		}
		if !strings.Contains(text, string(rr.Role)+": ok") {
			t.Errorf("text report lacks %q", string(rr.Role)+": ok")
		}
	}
	if !strings.Contains(text, "in  input_ids int64[?,?]") || !strings.Contains(text, "out last_hidden_state float32[?,?,32]") {
		t.Errorf("text report lacks session shapes:\n%s", text)
	}
	var back CheckReport
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &back); err != nil || len(back.Roles) != len(Roles) {
		t.Fatalf("JSON round trip: %v, %d roles", err, len(back.Roles))
	}
}

// copyDir copies the tiny models directory so a test can break it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestCheckDirNamesWhatIsWrong(t *testing.T) {
	_, src := tinyModels(t)
	for _, tc := range []struct {
		name   string
		break_ func(dir string) error
		want   []string
	}{
		{
			name: "a role missing from the manifest names its files",
			break_: func(dir string) error {
				return rewriteManifest(dir, `"vlm_reader": {"dir": "vlm", "max_length": 120}`, "")
			},
			want: []string{"no vlm_reader role", "vision_encoder.onnx, embed_tokens.onnx, decoder_model_merged.onnx or decoder_model.onnx, tokenizer.json, preprocessor_config.json"},
		},
		{
			name:   "a missing model file",
			break_: func(dir string) error { return os.Remove(filepath.Join(dir, "clip", "vision_model.onnx")) },
			want:   []string{"missing vision_model.onnx", "image_text: 1 problem(s)"},
		},
		{
			name: "a model with the wrong output names",
			break_: func(dir string) error {
				// An LM where the text encoder should be: no last_hidden_state.
				data, err := os.ReadFile(filepath.Join(dir, "lm", "model.onnx"))
				if err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dir, "bge", "model.onnx"), data, 0o644)
			},
			want: []string{"model.onnx: no output named last_hidden_state or token_embeddings"},
		},
		{
			name: "a preprocessor config without its processor type",
			break_: func(dir string) error {
				return os.WriteFile(filepath.Join(dir, "clip", "preprocessor_config.json"), []byte(`{"do_resize": true}`), 0o644)
			},
			want: []string{"image_text: 1 problem(s)", "image_processor_type"},
		},
		{
			name: "a corrupt tokenizer",
			break_: func(dir string) error {
				return os.WriteFile(filepath.Join(dir, "mpnet", "tokenizer.json"), []byte("{"), 0o644)
			},
			want: []string{"dup_confirm: 1 problem(s)", "tokenizer.json did not load"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, src)
			if err := tc.break_(dir); err != nil {
				t.Fatal(err)
			}
			rep, err := CheckDir(context.Background(), dir, RuntimeOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			text := rep.String()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("report lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

func rewriteManifest(dir, old, new string) error {
	p := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	s := strings.Replace(string(data), old, new, 1)
	s = strings.Replace(s, "120},\n  \n", "120}\n", 1)
	s = strings.Replace(s, ",\n    \n", "\n", 1)
	return os.WriteFile(p, []byte(s), 0o644)
}
