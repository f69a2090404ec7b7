package models

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/vidscreen/vidscreen/models/audio"
)

// checkWhisperFeatures checks an asr folder's preprocessor_config.json
// (WhisperFeatureExtractor) against the features models/audio computes:
// 80 mel bins of 400-sample windows every 160 samples at 16 kHz. A field
// the file leaves out is taken as Whisper's; whisper-large-v3's 128 bins
// are refused here, by name, rather than fed 80.
func checkWhisperFeatures(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		return jsonError(path, data, err, "")
	}
	if t, ok := c["feature_extractor_type"].(string); ok && t != "WhisperFeatureExtractor" {
		return fmt.Errorf("%s: feature_extractor_type %q: the asr role computes WhisperFeatureExtractor's features", path, t)
	}
	for _, f := range []struct {
		key  string
		want int
	}{{"feature_size", audio.NMels}, {"sampling_rate", audio.SampleRate}, {"hop_length", audio.HopLength}, {"n_fft", audio.NFFT}, {"chunk_length", audio.ChunkSeconds}} {
		v, ok := c[f.key]
		if !ok {
			continue
		}
		if n, ok := v.(float64); !ok || int(n) != f.want || n != float64(int(n)) {
			return fmt.Errorf("%s: %s is %v; the asr role computes Whisper's features with %s %d", path, f.key, v, f.key, f.want)
		}
	}
	return nil
}
