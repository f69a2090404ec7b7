package conformance

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/models/audio"
)

// logMelTolerance is the largest difference allowed between a log-mel
// value of models/audio and transformers.js's WhisperFeatureExtractor's
// (issue 30): the features are (log10 + 4) / 4, so 1e-4 is a quarter of a
// thousandth of a decade of energy.
const logMelTolerance = 1e-4

// TestWhisperLogMel compares models/audio's log-mel features with
// transformers.js's WhisperFeatureExtractor (loaded by AutoFeatureExtractor
// from a preprocessor_config.json with Whisper's settings) at 80 and 128
// bins, on speech-like audio (voiced syllables with formants and pauses,
// unvoiced bursts), silence, and the first audio track of a real video
// when ../shared/data has one, for tracks shorter than, as long as and
// longer than one 30 s window. A track longer than a window is compared
// window by window: the extractor is handed each 30 s slice, as a chunked
// pipeline does (on a whole track it keeps the first 30 s only).
func TestWhisperLogMel(t *testing.T) {
	t.Parallel()
	type track struct {
		name    string
		samples []float32
	}
	tracks := []track{
		{"speech 7.3 s", speechLike(7.3, 1)},
		{"speech 30 s", speechLike(audio.ChunkSeconds, 2)},
		{"speech 47.5 s", speechLike(47.5, 3)},
		{"silence 5 s", make([]float32, 5*audio.SampleRate)},
		{"silence 30 s", make([]float32, audio.ChunkSamples)},
		{"a click in silence", click()},
	}
	if p, err := shareddata.Lookup("videos", "big_buck_bunny_0_30_h264_640.mp4"); err == nil {
		a, err := decode.DecodeAudio(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !a.NoStream {
			tracks = append(tracks, track{"big_buck_bunny_0_30 " + fmt.Sprintf("%.1f s", a.Seconds()), a.Samples})
		}
	} else {
		t.Logf("no real audio track: %v", err)
	}

	dirs := map[string]string{}
	for _, mels := range []int{80, 128} {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("whisper-%d", mels))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg, err := json.Marshal(map[string]any{
			"feature_extractor_type": "WhisperFeatureExtractor", "feature_size": mels, "sampling_rate": audio.SampleRate,
			"hop_length": audio.HopLength, "chunk_length": audio.ChunkSeconds, "n_fft": audio.NFFT,
			"n_samples": audio.ChunkSamples, "nb_max_frames": audio.Frames, "padding_side": "right",
			"padding_value": 0.0, "return_attention_mask": false, "processor_class": "WhisperProcessor",
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "preprocessor_config.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs[fmt.Sprint(mels)] = dir
	}

	type jsCase struct {
		Mels    int    `json:"mels"`
		Samples string `json:"samples"`
	}
	type comparison struct {
		name   string
		mels   int
		window int
		go_    []float32
	}
	var cases []jsCase
	var cmps []comparison
	for _, mels := range []int{80, 128} {
		e, err := audio.NewMels(mels)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range tracks {
			for w := range audio.Chunks(len(tr.samples)) {
				f, err := e.Features(tr.samples, w)
				if err != nil {
					t.Fatal(err)
				}
				lo := w * audio.ChunkSamples
				hi := min(len(tr.samples), lo+audio.ChunkSamples)
				cases = append(cases, jsCase{mels, encodeFloats(tr.samples[lo:hi])})
				cmps = append(cmps, comparison{tr.name, mels, w, f})
			}
		}
	}
	var ref []struct {
		Dims     []int  `json:"dims"`
		Features string `json:"features"`
	}
	runJS(t, "whisper.cjs", map[string]any{"dirs": dirs, "cases": cases}, &ref)
	if len(ref) != len(cmps) {
		t.Fatalf("transformers.js gave %d results for %d cases", len(ref), len(cmps))
	}
	worst := 0.0
	for i, c := range cmps {
		want, err := decodeFloats(ref[i].Features)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s/%d bins/window %d", c.name, c.mels, c.window)
		if !slices.Equal(ref[i].Dims, []int{1, c.mels, audio.Frames}) || len(want) != len(c.go_) {
			t.Errorf("%s: transformers.js dims %v (%d values), models/audio %d values", name, ref[i].Dims, len(want), len(c.go_))
			continue
		}
		d, at := 0.0, 0
		for k := range want {
			if x := math.Abs(float64(want[k]) - float64(c.go_[k])); x > d {
				d, at = x, k
			}
		}
		worst = max(worst, d)
		t.Logf("%s: max |difference| %.3g (bin %d, frame %d)", name, d, at/audio.Frames, at%audio.Frames)
		if d > logMelTolerance {
			t.Errorf("%s: max |difference| %.3g at bin %d frame %d (transformers.js %v, models/audio %v); tolerance %g",
				name, d, at/audio.Frames, at%audio.Frames, want[at], c.go_[at], logMelTolerance)
		}
	}
	t.Logf("Whisper log-mel, 80 and 128 bins: %d windows, max |difference| %.3g, tolerance %g", len(cmps), worst, logMelTolerance)
}

// speechLike synthesises seconds of speech-like audio at 16 kHz: voiced
// syllables (a pitch of 100 to 220 Hz gliding within each, its harmonics
// shaped by three formants of a vowel) between pauses, with unvoiced noise
// bursts and a faint noise floor. It is the same for the same seed.
func speechLike(seconds float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 30))
	out := make([]float32, int(seconds*audio.SampleRate))
	vowels := [][3]float64{{730, 1090, 2440}, {270, 2290, 3010}, {300, 870, 2240}, {530, 1840, 2480}, {570, 840, 2410}}
	const sr = float64(audio.SampleRate)
	for i := 0; i < len(out); {
		// A pause, then an unvoiced burst or a voiced syllable.
		i += int((0.06 + 0.2*rng.Float64()) * sr)
		if rng.IntN(4) == 0 {
			n := int((0.04 + 0.08*rng.Float64()) * sr)
			for k := 0; k < n && i+k < len(out); k++ {
				out[i+k] += float32(0.05 * rng.NormFloat64() * math.Sin(math.Pi*float64(k)/float64(n)))
			}
			i += n
			continue
		}
		n := int((0.15 + 0.2*rng.Float64()) * sr)
		f := vowels[rng.IntN(len(vowels))]
		f0a, f0b := 100+120*rng.Float64(), 100+120*rng.Float64()
		amp := 0.1 + 0.3*rng.Float64()
		phase := 0.0
		for k := 0; k < n && i+k < len(out); k++ {
			x := float64(k) / float64(n)
			f0 := f0a + (f0b-f0a)*x
			phase += 2 * math.Pi * f0 / sr
			var s float64
			for h := 1; float64(h)*f0 < 7500; h++ {
				hz := float64(h) * f0
				var g float64
				for j, fm := range f {
					bw := 80.0 * float64(j+1)
					g += 1 / (1 + ((hz-fm)/bw)*((hz-fm)/bw))
				}
				s += g / float64(h) * math.Sin(float64(h)*phase)
			}
			env := math.Sin(math.Pi * x)
			out[i+k] += float32(amp * env * s / 3)
		}
		i += n
	}
	for i := range out {
		out[i] += float32(1e-4 * rng.NormFloat64())
	}
	return out
}

// click is 3 s of silence with one loud sample: the window's maximum in
// one frame, every other frame clamped to it minus 8.
func click() []float32 {
	s := make([]float32, 3*audio.SampleRate)
	s[len(s)/2] = 0.9
	return s
}

func encodeFloats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func decodeFloats(s string) ([]float32, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%4 != 0 {
		return nil, fmt.Errorf("features: not base64 float32 (%d bytes): %v", len(b), err)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}
