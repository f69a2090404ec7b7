package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// TestWhisperTranscript transcribes tone tracks with the built tone asr
// (onnxbuild.ToneASR) twice: through models.Transcriber, and through
// transformers.js's WhisperForConditionalGeneration.generate loading the
// same files in its own layout (onnx/encoder_model.onnx,
// onnx/decoder_model_merged.onnx beside config.json,
// generation_config.json, preprocessor_config.json, tokenizer.json and
// tokenizer_config.json): the prompt followed by the generated ids, and the
// texts of the generated ids, are equal. Besides the tone model's own generation config (the
// start token alone), a multilingual one whose language, task and
// no-timestamps tokens are colour words checks the prompt rules: with the
// language given to both, and with none, where transformers.js takes
// English and vidscreen detects it (the only language listed).
func TestWhisperTranscript(t *testing.T) {
	t.Parallel()
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		unavailable(t, "ONNX Runtime: "+err.Error())
	}
	tracks := [][]string{{"pink"}, {"blue", "white"}, onnxbuild.ColourNames, {"red", "red", "green"}, nil}
	track := func(ws []string) []float32 { return onnxbuild.ToneTrack(ws, 0.3, float64(3+len(ws)), 0.3) }
	var b64 []string
	for _, ws := range tracks {
		b64 = append(b64, encodeFloats(track(ws)))
	}
	// The colour vocabulary's ids of blue, white and pink (onnxbuild's
	// colour tokenizer: [PAD] [UNK] [CLS] [SEP] [MASK], then the colours).
	const blue, white, pink = 7, 11, 14
	multi := fmt.Sprintf(`{"decoder_start_token_id": 2, "eos_token_id": 3, "max_length": 17, "is_multilingual": true,
		"lang_to_id": {"<|en|>": %d}, "task_to_id": {"transcribe": %d}, "no_timestamps_token_id": %d,
		"forced_decoder_ids": [[1, null], [2, %d]]}`, blue, white, pink, white)
	cases := []struct {
		name, generation, language string
		prompt                     []int
	}{
		{"the tone model's own", "", "", []int{2}},
		{"multilingual, language given", multi, "en", []int{2, blue, white, pink}},
		{"multilingual, language detected", multi, "", []int{2, blue, white, pink}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := filepath.Join(root, "asr")
			if err := (onnxbuild.ToneASR{}).WriteDir(dir); err != nil {
				t.Fatal(err)
			}
			if c.generation != "" {
				if err := os.WriteFile(filepath.Join(dir, "generation_config.json"), []byte(c.generation), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"encoder_model.onnx", "decoder_model_merged.onnx"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "onnx", f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var ref []struct {
				IDs  []int  `json:"ids"`
				Text string `json:"text"`
			}
			runJS(t, "whisper_generate.cjs", map[string]any{"dir": dir, "tracks": b64, "language": c.language, "skip": len(c.prompt)}, &ref)
			if len(ref) != len(tracks) {
				t.Fatalf("transformers.js gave %d transcripts for %d tracks", len(ref), len(tracks))
			}
			entry, _ := json.Marshal(map[string]any{"roles": map[string]any{"asr": map[string]any{"dir": "asr", "language": c.language}}})
			if err := os.WriteFile(filepath.Join(root, models.ManifestFile), entry, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := models.LoadManifest(root)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := rt.OpenTranscriber(m, gpu.CPUDevice())
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			for i, ws := range tracks {
				got, err := tr.Transcribe(context.Background(), track(ws))
				if err != nil {
					t.Fatal(err)
				}
				want := ref[i]
				if !slices.Equal(want.IDs[:min(len(want.IDs), len(c.prompt))], c.prompt) {
					t.Errorf("%v: transformers.js's prompt %v, want %v", ws, want.IDs, c.prompt)
				}
				var seq []int
				if len(got.IDs) == 1 {
					seq = append(slices.Clone(c.prompt), got.IDs[0]...)
				}
				if !slices.Equal(seq, want.IDs) || got.Text != strings.TrimSpace(want.Text) {
					t.Errorf("%v: vidscreen %v %q (language %q); transformers.js %v %q", ws, seq, got.Text, got.Language, want.IDs, want.Text)
				}
			}
		})
	}
}
