package models

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/models/audio"
)

// checkWhisperFeatures checks an asr folder's preprocessor_config.json; see
// whisperFeatures.
func checkWhisperFeatures(path string) error {
	_, err := whisperFeatures(path)
	return err
}

// whisperFeatures checks an asr folder's preprocessor_config.json
// (WhisperFeatureExtractor) against the features models/audio computes:
// 400-sample windows every 160 samples at 16 kHz, 30 s per window, and
// returns its feature_size, the mel bins (80, or 128 for
// whisper-large-v3), 0 when the file leaves it out. A field the file leaves
// out is taken as Whisper's; one that is there must be a number the role
// computes, never a null read as 0.
func whisperFeatures(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		return 0, jsonError(path, data, err, "")
	}
	if t, ok := c["feature_extractor_type"]; ok && t != "WhisperFeatureExtractor" {
		return 0, fmt.Errorf("%s: feature_extractor_type %v: the asr role computes WhisperFeatureExtractor's features", path, t)
	}
	mels := 0
	for _, f := range []struct {
		key  string
		want int
	}{{"feature_size", 0}, {"sampling_rate", audio.SampleRate}, {"hop_length", audio.HopLength}, {"n_fft", audio.NFFT}, {"chunk_length", audio.ChunkSeconds}} {
		v, ok := c[f.key]
		if !ok {
			continue
		}
		n, ok := v.(float64)
		if !ok || n != float64(int(n)) {
			return 0, fmt.Errorf("%s: %s is %v; want an integer", path, f.key, v)
		}
		if f.key == "feature_size" {
			if n < 1 || n > audio.MaxMels {
				return 0, fmt.Errorf("%s: feature_size is %v; the asr role computes 1 to %d mel bins (Whisper 80, large-v3 128)", path, v, audio.MaxMels)
			}
			mels = int(n)
			continue
		}
		if int(n) != f.want {
			return 0, fmt.Errorf("%s: %s is %v; the asr role computes Whisper's features with %s %d", path, f.key, v, f.key, f.want)
		}
	}
	return mels, nil
}

// asrProblems is what models check finds wrong in an asr folder beyond
// its files' names: generation_config.json's prompt fields (with the
// entry's language), and preprocessor_config.json's feature_size against
// the rows of the encoder's input_features, as OpenTranscriber would
// refuse them.
func asrProblems(dir string, spec RoleSpec, sessions []SessionReport) []string {
	var out []string
	gpath := filepath.Join(dir, "generation_config.json")
	if data, err := os.ReadFile(gpath); err == nil {
		g, err := parseWhisperGeneration(gpath, data)
		if err == nil {
			_, _, err = g.prompt(0, spec.Language)
		}
		if err != nil {
			out = append(out, err.Error())
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		out = append(out, err.Error())
	}
	pp := filepath.Join(dir, "preprocessor_config.json")
	mels, err := whisperFeatures(pp)
	if err != nil || mels == 0 {
		return out // a broken file is reported with the folder's files
	}
	for _, s := range sessions {
		for _, in := range s.Inputs {
			if in.Name == "input_features" && len(in.Shape) == 3 && in.Shape[1] >= 0 && int(in.Shape[1]) != mels {
				out = append(out, fmt.Sprintf("%s: feature_size is %d, but %s's input_features has %d mel rows: the folder's files are of different models", pp, mels, s.File, in.Shape[1]))
			}
		}
	}
	return out
}
