package models

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/audio"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// openToneASR writes the tone asr model and opens it as the asr role.
func openToneASR(t *testing.T) *Transcriber {
	rt, _ := tinyModels(t)
	dir := t.TempDir()
	if err := (onnxbuild.ToneASR{}).WriteDir(filepath.Join(dir, "asr")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"roles": {"asr": {"dir": "asr"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := rt.OpenTranscriber(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func TestTranscriberHearsTones(t *testing.T) {
	tr := openToneASR(t)
	ctx := context.Background()
	feats := audio.New()
	cases := []struct {
		name    string
		words   []string
		seconds float64
		want    string
	}{
		{"one word", []string{"pink"}, 2, "pink"},
		{"two words", []string{"blue", "white"}, 3, "blue white"},
		{"every colour", onnxbuild.ColourNames, 10, strings.Join(onnxbuild.ColourNames, " ")},
		{"a word repeated after a gap", []string{"red", "red", "green"}, 3, "red red green"},
		{"silence", nil, 2, ""},
		{"no samples at all", nil, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			track := onnxbuild.ToneTrack(c.words, 0.3, c.seconds, 0.3)
			got, err := tr.Transcribe(ctx, track)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != c.want {
				t.Errorf("heard %q, want %q", got.Text, c.want)
			}
			// The graphs and their Go twin agree token for token.
			f, err := feats.Features(track, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := (onnxbuild.ToneASR{}).Transcribe(f); len(got.IDs) != 1 || !slices.Equal(got.IDs[0], want) {
				t.Errorf("graph tokens %v, Go twin %v", got.IDs, want)
			}
		})
	}
	t.Run("a track longer than one window", func(t *testing.T) {
		a := onnxbuild.ToneTrack([]string{"cyan"}, 1, audio.ChunkSeconds, 0.3)
		b := onnxbuild.ToneTrack([]string{"brown", "grey"}, 1, 5, 0.3)
		got, err := tr.Transcribe(ctx, append(a, b...))
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != "cyan brown grey" || len(got.IDs) != 2 {
			t.Errorf("heard %q in %d windows, want \"cyan brown grey\" in 2", got.Text, len(got.IDs))
		}
	})
}

func TestASRPrompt(t *testing.T) {
	t.Parallel()
	n := func(v int) *int { return &v }
	cases := []struct {
		name string
		gc   *generationConfig
		want []int
	}{
		{"no generation config", nil, []int{7}},
		{"forced ids by position", &generationConfig{Forced: [][2]int{{2, 50359}, {1, 50259}, {3, 50363}}}, []int{7, 50259, 50359, 50363}},
		{"languages and tasks", &generationConfig{DecoderStart: n(50258), LangToID: map[string]int{"<|en|>": 50259, "<|de|>": 50261},
			TaskToID: map[string]int{"transcribe": 50360, "translate": 50359}, NoTimestamps: n(50364)}, []int{50258, 50259, 50360, 50364}},
	}
	for _, c := range cases {
		if got := asrPrompt(7, c.gc); !slices.Equal(got, c.want) {
			t.Errorf("%s: prompt %v, want %v", c.name, got, c.want)
		}
	}
}

func TestWhisperFeatureSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		name, json, err string
	}{
		{"whisper-small's", `{"feature_extractor_type": "WhisperFeatureExtractor", "feature_size": 80, "sampling_rate": 16000, "hop_length": 160, "n_fft": 400, "chunk_length": 30}`, ""},
		{"fields left out", `{}`, ""},
		{"large-v3's 128 bins", `{"feature_size": 128}`, "feature_size is 128"},
		{"another extractor", `{"feature_extractor_type": "Wav2Vec2FeatureExtractor"}`, "Wav2Vec2FeatureExtractor"},
		{"another rate", `{"sampling_rate": 8000}`, "sampling_rate is 8000"},
		{"not JSON", `{"feature_size": 80`, "preprocessor_config.json"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, "preprocessor_config.json")
		if err := os.WriteFile(p, []byte(c.json), 0o644); err != nil {
			t.Fatal(err)
		}
		err := checkWhisperFeatures(p)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}
