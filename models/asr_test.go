package models

import (
	"context"
	"fmt"
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
	tr, err := openToneASRWith(t, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// openToneASRWith writes the tone asr model with the files of edit in
// place of its own (generation_config.json, ...) and the manifest's
// language, and opens it as the asr role.
func openToneASRWith(t *testing.T, edit map[string]string, language string) (*Transcriber, error) {
	t.Helper()
	rt, _ := tinyModels(t)
	dir := t.TempDir()
	if err := (onnxbuild.ToneASR{}).WriteDir(filepath.Join(dir, "asr")); err != nil {
		t.Fatal(err)
	}
	for name, body := range edit {
		if err := os.WriteFile(filepath.Join(dir, "asr", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lang := ""
	if language != "" {
		lang = fmt.Sprintf(`, "language": %q`, language)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"roles": {"asr": {"dir": "asr"`+lang+`}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := rt.OpenTranscriber(m, gpu.CPUDevice())
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { tr.Close() })
	return tr, nil
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

// Whisper's token ids (openai/whisper-small and whisper-large-v3's
// generation_config.json): the start, two languages, the tasks and
// <|notimestamps|>; large-v3 has one language more, so its tasks and
// no-timestamps come one later.
const (
	sot, en, de        = 50258, 50259, 50261
	translate, transc  = 50358, 50359
	noTS               = 50363
	v3Transc, v3NoTS   = 50360, 50364
	enOnlySOT, enOnlyT = 50257, 50362
)

func TestASRPrompt(t *testing.T) {
	t.Parallel()
	small := `"decoder_start_token_id": 50258, "lang_to_id": {"<|en|>": 50259, "<|de|>": 50261}, "task_to_id": {"translate": 50358, "transcribe": 50359}, "no_timestamps_token_id": 50363, "is_multilingual": true, "return_timestamps": false, "max_length": 448, "suppress_tokens": [1, 2], "begin_suppress_tokens": [220, 50257]`
	cases := []struct {
		name, json, language string
		want                 []int
		slot                 int
	}{
		{"whisper-small: the null language slot is detected, notimestamps added", `{` + small + `, "forced_decoder_ids": [[1, null], [2, 50359]]}`, "", []int{sot, noLanguage, transc, noTS}, 1},
		{"whisper-small with a language", `{` + small + `, "forced_decoder_ids": [[1, null], [2, 50359]]}`, "de", []int{sot, de, transc, noTS}, 1},
		{"the language as lang_to_id spells it", `{` + small + `, "forced_decoder_ids": [[1, null], [2, 50359]]}`, "<|EN|>", []int{sot, en, transc, noTS}, 1},
		{"the file's own language", `{` + small + `, "language": "de", "forced_decoder_ids": [[1, null], [2, 50359]]}`, "", []int{sot, de, transc, noTS}, 1},
		{"the manifest's language wins", `{` + small + `, "language": "de"}`, "en", []int{sot, en, transc, noTS}, 1},
		{"the file's task replaces forced_decoder_ids", `{` + small + `, "task": "translate", "forced_decoder_ids": [[1, null], [2, 50359]]}`, "", []int{sot, noLanguage, translate, noTS}, 1},
		{"a fixed language in forced_decoder_ids", `{` + small + `, "forced_decoder_ids": [[2, 50359], [1, 50261]]}`, "", []int{sot, de, transc, noTS}, 1},
		{"forced ids ending with notimestamps", `{` + small + `, "forced_decoder_ids": [[1, 50259], [2, 50359], [3, 50363]]}`, "", []int{sot, en, transc, noTS}, 1},
		{"no forced ids: detect, transcribe", `{` + small + `}`, "", []int{sot, noLanguage, transc, noTS}, 1},
		{"large-v3", `{"decoder_start_token_id": 50258, "lang_to_id": {"<|en|>": 50259, "<|yue|>": 50358}, "task_to_id": {"translate": 50359, "transcribe": 50360}, "no_timestamps_token_id": 50364, "forced_decoder_ids": [[1, null], [2, 50360]]}`, "yue", []int{sot, 50358, v3Transc, v3NoTS}, 1},
		{"English-only (tiny.en)", `{"decoder_start_token_id": 50257, "forced_decoder_ids": [[1, 50362]], "no_timestamps_token_id": 50362, "is_multilingual": false}`, "", []int{enOnlySOT, enOnlyT}, -1},
		{"no languages, no notimestamps (the tone model)", `{"decoder_start_token_id": 101, "max_length": 17}`, "", []int{101}, -1},
		{"nulls the role does not need", `{"forced_decoder_ids": null, "lang_to_id": null, "task": null, "language": null, "no_timestamps_token_id": null, "suppress_tokens": null, "num_beams": null, "return_timestamps": null}`, "", []int{7}, -1},
	}
	for _, c := range cases {
		g, err := parseWhisperGeneration("generation_config.json", []byte(c.json))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got, slot, err := g.prompt(7, c.language)
		if err != nil || !slices.Equal(got, c.want) || slot != c.slot {
			t.Errorf("%s: prompt %v slot %d (%v), want %v slot %d", c.name, got, slot, err, c.want, c.slot)
		}
	}
	if p, slot, err := (*whisperGeneration)(nil).prompt(7, ""); err != nil || !slices.Equal(p, []int{7}) || slot != -1 {
		t.Errorf("no generation_config.json: %v %d %v", p, slot, err)
	}
	if g, _ := parseWhisperGeneration("g.json", []byte(`{`+small+`}`)); !slices.Equal(g.suppress, []int{1, 2}) || !slices.Equal(g.begin, []int{220, 50257}) {
		t.Errorf("suppressed tokens %v, %v", g.suppress, g.begin)
	}
}

// TestASRGenerationRefused checks that what the role cannot honour, and a
// null where a token belongs, are errors naming the file and the field.
func TestASRGenerationRefused(t *testing.T) {
	t.Parallel()
	langs := `"lang_to_id": {"<|en|>": 50259}, "task_to_id": {"transcribe": 50359}`
	cases := []struct {
		name, json, language, err string
	}{
		{"a null start", `{"decoder_start_token_id": null}`, "", "field decoder_start_token_id: want a token id"},
		{"a null token after the language slot", `{` + langs + `, "forced_decoder_ids": [[1, 50259], [2, null]]}`, "", "forced_decoder_ids[1][1]: null at position 2"},
		{"a null position", `{"forced_decoder_ids": [[null, 50259]]}`, "", "forced_decoder_ids[0][0]"},
		{"a pair of three", `{"forced_decoder_ids": [[1, 2, 3]]}`, "", "forced_decoder_ids[0]: want [position, token]"},
		{"a gap in the positions", `{"forced_decoder_ids": [[1, 50259], [3, 50359]]}`, "", "do not run 1, 2"},
		{"a null language slot and no lang_to_id", `{"forced_decoder_ids": [[1, null], [2, 50359]]}`, "", "no lang_to_id to detect it from"},
		{"a null in suppress_tokens", `{"suppress_tokens": [1, null]}`, "", "suppress_tokens[1]"},
		{"a null in lang_to_id", `{"lang_to_id": {"<|en|>": null}}`, "", "lang_to_id.<|en|>"},
		{"timestamps", `{"return_timestamps": true}`, "", "return_timestamps is true"},
		{"beams", `{"num_beams": 5}`, "", "num_beams is 5"},
		{"sampling", `{"do_sample": true}`, "", "do_sample is true"},
		{"a task it does not list", `{` + langs + `, "task": "summarise"}`, "", `task: "summarise" is not in task_to_id`},
		{"a language it does not list", `{` + langs + `}`, "fr", `language "fr" (the manifest's language) is not in lang_to_id`},
		{"a language for an English-only model", `{"forced_decoder_ids": [[1, 50362]]}`, "de", "has no lang_to_id"},
		{"not JSON", `{"forced_decoder_ids": [[1, null]`, "", "generation_config.json"},
	}
	for _, c := range cases {
		g, err := parseWhisperGeneration("generation_config.json", []byte(c.json))
		if err == nil {
			_, _, err = g.prompt(7, c.language)
		}
		if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "generation_config.json") {
			t.Errorf("%s: %v, want an error naming generation_config.json with %q", c.name, err, c.err)
		}
	}
}

// TestTranscriberLanguage runs the tone model with a generation config
// whose languages are colour words: the model's first plan row (the
// decoder's answer to the start token alone) is the first word heard, so
// detection must pick it among lang_to_id's tokens, and the transcript
// starts after the prompt's three tokens. A language in the manifest takes
// the slot instead, without detection.
func TestTranscriberLanguage(t *testing.T) {
	feats := audio.New()
	words := []string{"blue", "white", "pink", "red"}
	track := onnxbuild.ToneTrack(words, 0.3, 4, 0.3)
	f, err := feats.Features(track, 0)
	if err != nil {
		t.Fatal(err)
	}
	plan := (onnxbuild.ToneASR{}).Transcribe(f) // blue white pink red [SEP]
	blue, white, pink := plan[0], plan[1], plan[2]
	gen := fmt.Sprintf(`{"decoder_start_token_id": 101, "lang_to_id": {"<|bl|>": %d, "<|wh|>": %d}, "task_to_id": {"transcribe": %d}, "forced_decoder_ids": [[1, null], [2, %d]]}`, blue, white, pink, pink)
	cases := []struct {
		name, language, want string
		prompt               []int
	}{
		{"detected", "", "bl", []int{101, noLanguage, pink}},
		{"given", "wh", "wh", []int{101, white, pink}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := openToneASRWith(t, map[string]string{"generation_config.json": gen}, c.language)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tr.Prompt(), c.prompt) {
				t.Errorf("prompt %v, want %v", tr.Prompt(), c.prompt)
			}
			got, err := tr.Transcribe(context.Background(), track)
			if err != nil {
				t.Fatal(err)
			}
			if got.Language != c.want || len(got.IDs) != 1 || !slices.Equal(got.IDs[0], plan[2:]) || got.Text != "pink red" {
				t.Errorf("language %q, ids %v, text %q; want %q, %v, \"pink red\"", got.Language, got.IDs, got.Text, c.want, plan[2:])
			}
		})
	}
	if _, err := openToneASRWith(t, nil, "en"); err == nil || !strings.Contains(err.Error(), "has no lang_to_id") {
		t.Errorf("a language for the tone model, which has none: %v", err)
	}
}

// TestTranscriberMels checks that the mel bins come from
// preprocessor_config.json and the encoder together: the tone encoder
// reads 80 rows, so a feature_size of 128 beside it is refused by name.
func TestTranscriberMels(t *testing.T) {
	tr := openToneASR(t)
	if tr.Mels() != 80 {
		t.Errorf("mels %d, want 80", tr.Mels())
	}
	_, err := openToneASRWith(t, map[string]string{"preprocessor_config.json": `{"feature_extractor_type": "WhisperFeatureExtractor", "feature_size": 128}`}, "")
	if err == nil || !strings.Contains(err.Error(), "feature_size is 128") || !strings.Contains(err.Error(), "80 mel rows") {
		t.Errorf("128 bins beside an 80-row encoder: %v", err)
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
		{"large-v3's 128 bins", `{"feature_size": 128}`, ""},
		{"a null feature_size", `{"feature_size": null}`, "feature_size is <nil>"},
		{"too many bins", `{"feature_size": 1000}`, "feature_size is 1000"},
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

// TestCheckASR checks that models check reports what OpenTranscriber
// would refuse in an asr folder: a null language slot with no lang_to_id
// and a feature_size the encoder does not read; the tone model's own
// folder has no problem.
func TestCheckASR(t *testing.T) {
	tinyModels(t) // ONNX Runtime loaded, or skipped
	cases := []struct {
		name string
		edit map[string]string
		want []string
	}{
		{"the tone model's own", nil, nil},
		{"a null language slot, 128 bins", map[string]string{
			"generation_config.json":   `{"decoder_start_token_id": 2, "forced_decoder_ids": [[1, null]]}`,
			"preprocessor_config.json": `{"feature_size": 128}`,
		}, []string{"no lang_to_id to detect it from", "feature_size is 128, but encoder_model.onnx's input_features has 80 mel rows"}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := (onnxbuild.ToneASR{}).WriteDir(filepath.Join(dir, "asr")); err != nil {
			t.Fatal(err)
		}
		for name, body := range c.edit {
			if err := os.WriteFile(filepath.Join(dir, "asr", name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"roles": {"asr": {"dir": "asr"}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, _ := CheckRoles(context.Background(), dir, RuntimeOptions{Threads: 1}, []Role{RoleASR})
		if rep == nil || len(rep.Roles) != 1 {
			t.Fatalf("%s: report %+v", c.name, rep)
		}
		got := rep.Roles[0].Problems
		if len(got) != len(c.want) {
			t.Errorf("%s: problems %q, want %d", c.name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %q, want %q", c.name, got[i], w)
			}
		}
	}
}

// TestASRConfigNull checks that a null start or end token in config.json
// is no token 0: the next key is read (bos_token_id), and without one the
// file is refused naming the fields.
func TestASRConfigNull(t *testing.T) {
	cases := []struct {
		name, config, err string
	}{
		{"a null start falls to bos_token_id", `{"model_type": "whisper", "decoder_start_token_id": null, "bos_token_id": 2, "eos_token_id": 3, "num_mel_bins": 80}`, ""},
		{"a null start and no bos", `{"model_type": "whisper", "decoder_start_token_id": null, "eos_token_id": 3}`, "no decoder_start_token_id or bos_token_id"},
		{"a null end", `{"model_type": "whisper", "decoder_start_token_id": 2, "eos_token_id": null}`, "no eos_token_id"},
	}
	for _, c := range cases {
		tr, err := openToneASRWith(t, map[string]string{"config.json": c.config}, "")
		switch {
		case c.err == "" && (err != nil || !slices.Equal(tr.Prompt(), []int{2})):
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "config.json")):
			t.Errorf("%s: %v, want %q naming config.json", c.name, err, c.err)
		}
	}
}
