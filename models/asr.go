package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/audio"
)

// A Transcript is what the asr role heard in one audio track.
type Transcript struct {
	// Text is the decoded text of every 30 s window, joined by spaces,
	// special tokens left out.
	Text string `json:"text"`
	// IDs are the tokens generated per window, end token included when
	// reached.
	IDs [][]int `json:"ids"`
}

// Transcriber is the asr role: a Whisper-style encoder-decoder export
// (Optimum's names: encoder_model.onnx takes input_features [batch, 80,
// 3000] and gives last_hidden_state; the decoder takes input_ids and
// encoder_hidden_states, with past_key_values.* when merged, and gives
// logits and present.*). Each 30 s window of the track is turned into
// log-mel features (models/audio), encoded once, and decoded greedily from
// the prompt (the start token and the forced language, task and
// no-timestamps tokens of generation_config.json) until the end token or
// MaxNewTokens.
type Transcriber struct {
	enc, dec *Session
	// first, when not nil, runs the first step (decoder_model.onnx of a
	// decoder_model + decoder_with_past_model pair).
	first    *Session
	tok      Tokenizer
	prompt   []int
	eos      int
	suppress []int // never generated (generation_config suppress_tokens)
	begin    []int // not generated first (begin_suppress_tokens)
	feats    *audio.Extractor
	// MaxNewTokens bounds each window's tokens (default 224, half of
	// Whisper's 448 decoder positions, as its generate does).
	MaxNewTokens int
}

// NewTranscriber wraps the sessions (first may be nil); prompt starts every
// window's decoding and eos ends it.
func NewTranscriber(enc, dec, first *Session, tok Tokenizer, prompt []int, eos int) (*Transcriber, error) {
	sigs := signatures[RoleASR]
	if err := sigs["encoder_model.onnx"].err(enc); err != nil {
		return nil, err
	}
	for _, d := range []*Session{dec, first} {
		if d == nil {
			continue
		}
		if err := sigs["decoder_model_merged.onnx"].err(d); err != nil {
			return nil, err
		}
	}
	x, _ := enc.Input("input_features")
	if len(x.Shape) != 3 || (x.Shape[1] >= 0 && x.Shape[1] != audio.NMels) || (x.Shape[2] >= 0 && x.Shape[2] != audio.Frames) {
		return nil, fmt.Errorf("%s: input_features has shape %v; want (batch, %d, %d), Whisper's log-mel window", enc.Path(), x.Shape, audio.NMels, audio.Frames)
	}
	if len(prompt) == 0 {
		return nil, errors.New("asr: empty decoder prompt")
	}
	return &Transcriber{enc: enc, dec: dec, first: first, tok: tok, prompt: prompt, eos: eos, feats: audio.New(), MaxNewTokens: 224}, nil
}

// Close releases the sessions.
func (t *Transcriber) Close() error {
	if t.first != nil {
		t.first.Close()
	}
	t.enc.Close()
	return t.dec.Close()
}

// Transcribe transcribes a 16 kHz mono track. An empty track is one window
// of silence, which a model may still transcribe (Whisper sometimes hears
// words in silence); callers that know a file has no audio stream should
// not ask.
func (t *Transcriber) Transcribe(ctx context.Context, samples []float32) (Transcript, error) {
	var out Transcript
	var texts []string
	for w := range audio.Chunks(len(samples)) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		f, err := t.feats.Features(samples, w)
		if err != nil {
			return out, err
		}
		ids, err := t.window(ctx, f)
		if err != nil {
			return out, fmt.Errorf("asr window %d: %w", w, err)
		}
		out.IDs = append(out.IDs, ids)
		if t.tok != nil {
			if s := strings.TrimSpace(t.tok.Decode(ids)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	out.Text = strings.Join(texts, " ")
	return out, nil
}

// window decodes one window of features greedily.
func (t *Transcriber) window(ctx context.Context, feats []float32) ([]int, error) {
	in, err := floatTensor(feats, 1, audio.NMels, audio.Frames)
	if err != nil {
		return nil, err
	}
	defer in.Destroy()
	encOut, hidden, err := encode(ctx, t.enc, "input_features", in)
	if err != nil {
		return nil, err
	}
	defer destroyMap(encOut)
	cache := map[string]ort.Value{}
	defer func() { destroyMap(cache) }()
	if t.first == nil {
		past := inputSet{}
		if err := emptyPast(t.dec, 1, past); err != nil {
			return nil, err
		}
		for k, v := range past {
			if strings.HasPrefix(k, "past_key_values.") {
				cache[k] = v
			} else {
				v.Destroy()
			}
		}
	}
	var seq []int
	next := append([]int64(nil), toInt64(t.prompt)...)
	seen := 0 // tokens the decoder has read
	for step := 0; step < t.MaxNewTokens; step++ {
		sess := t.dec
		if step == 0 && t.first != nil {
			sess = t.first
		}
		feed := map[string]ort.Value{"encoder_hidden_states": hidden}
		owned := inputSet{}
		ids, err := int64Tensor(next, 1, int64(len(next)))
		if err != nil {
			return nil, err
		}
		owned["input_ids"] = ids
		for _, x := range sess.Inputs() {
			var v ort.Value
			var err error
			switch {
			case x.Name == "input_ids" || x.Name == "encoder_hidden_states":
				continue
			case strings.HasPrefix(x.Name, "past_key_values."):
				c, ok := cache[x.Name]
				if !ok {
					owned.destroy()
					return nil, fmt.Errorf("%s: no cache value for %s", sess.Path(), x.Name)
				}
				feed[x.Name] = c
				continue
			case x.Name == "use_cache_branch":
				v, err = ort.NewTensor(ort.NewShape(1), []bool{step > 0})
			case x.Name == "attention_mask" || x.Name == "decoder_attention_mask":
				v, err = int64Tensor(ones(seen+len(next)), 1, int64(seen+len(next)))
			case x.Name == "encoder_attention_mask":
				n := hidden.GetShape()[1]
				v, err = int64Tensor(ones(int(n)), 1, n)
			case x.Name == "cache_position":
				pos := make([]int64, len(next))
				for k := range pos {
					pos[k] = int64(seen + k)
				}
				v, err = int64Tensor(pos, int64(len(next)))
			default:
				err = fmt.Errorf("%s: input %s is not one an asr decoder is fed", sess.Path(), x.Name)
			}
			if err != nil {
				owned.destroy()
				return nil, err
			}
			owned[x.Name] = v
		}
		for k, v := range owned {
			feed[k] = v
		}
		outs, err := sess.Run(ctx, feed)
		owned.destroy()
		if err != nil {
			return nil, err
		}
		logits, shape, err := floats(outs, "logits")
		if err != nil || len(shape) != 3 || shape[0] != 1 {
			destroyMap(outs)
			return nil, fmt.Errorf("%s: logits %v: %v", sess.Path(), shape, err)
		}
		vocab, T := int(shape[2]), int(shape[1])
		row := logits[(T-1)*vocab : T*vocab]
		t.mask(row, step == 0)
		tok := argmaxFloat32(row)
		seen += len(next)
		next = []int64{int64(tok)}
		seq = append(seq, tok)
		for name, v := range outs {
			if rest, ok := strings.CutPrefix(name, "present."); ok {
				key := "past_key_values." + rest
				if old, ok := cache[key]; ok {
					old.Destroy()
				}
				cache[key] = v
				delete(outs, name)
			}
		}
		destroyMap(outs)
		if tok == t.eos {
			break
		}
	}
	return seq, nil
}

// mask removes the suppressed tokens from a row of logits.
func (t *Transcriber) mask(row []float32, first bool) {
	for _, set := range [][]int{t.suppress, map[bool][]int{true: t.begin}[first]} {
		for _, id := range set {
			if id >= 0 && id < len(row) {
				row[id] = float32(math.Inf(-1))
			}
		}
	}
}

func toInt64(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// generationConfig holds the fields of generation_config.json the asr role
// reads: Whisper's forced prompt and suppressed tokens.
type generationConfig struct {
	DecoderStart  *int           `json:"decoder_start_token_id"`
	Forced        [][2]int       `json:"forced_decoder_ids"`
	LangToID      map[string]int `json:"lang_to_id"`
	TaskToID      map[string]int `json:"task_to_id"`
	NoTimestamps  *int           `json:"no_timestamps_token_id"`
	Suppress      []int          `json:"suppress_tokens"`
	BeginSuppress []int          `json:"begin_suppress_tokens"`
}

// asrPrompt builds the decoder prompt: the start token, then the forced
// tokens by position (forced_decoder_ids), or, where the file lists
// languages and tasks instead, <|en|>, transcribe and no-timestamps, what
// Whisper's generate forces for English transcription.
func asrPrompt(start int, gc *generationConfig) []int {
	prompt := []int{start}
	if gc == nil {
		return prompt
	}
	if gc.DecoderStart != nil {
		prompt[0] = *gc.DecoderStart
	}
	if len(gc.Forced) > 0 {
		f := append([][2]int(nil), gc.Forced...)
		sort.Slice(f, func(i, j int) bool { return f[i][0] < f[j][0] })
		for _, p := range f {
			prompt = append(prompt, p[1])
		}
		return prompt
	}
	if id, ok := gc.LangToID["<|en|>"]; ok {
		prompt = append(prompt, id)
	}
	if id, ok := gc.TaskToID["transcribe"]; ok {
		prompt = append(prompt, id)
	}
	if gc.NoTimestamps != nil {
		prompt = append(prompt, *gc.NoTimestamps)
	}
	return prompt
}

// OpenTranscriber opens the asr role on dev. The start and end tokens come
// from config.json (decoder_start_token_id; eos_token_id), the forced
// prompt and suppressed tokens from generation_config.json when the folder
// has one.
func (r *Runtime) OpenTranscriber(m *Manifest, dev gpu.Device) (*Transcriber, error) {
	files, spec, err := m.roleFiles(RoleASR)
	if err != nil {
		return nil, err
	}
	start, eos, err := decoderTokens(files["config.json"])
	if err != nil {
		return nil, err
	}
	var gc *generationConfig
	gpath := filepath.Join(filepath.Dir(files["config.json"]), "generation_config.json")
	if data, err := os.ReadFile(gpath); err == nil {
		gc = &generationConfig{}
		if err := json.Unmarshal(data, gc); err != nil {
			return nil, jsonError(gpath, data, err, "")
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if pp := filepath.Join(filepath.Dir(files["config.json"]), "preprocessor_config.json"); fileExists(pp) {
		if err := checkWhisperFeatures(pp); err != nil {
			return nil, err
		}
	}
	tok, err := LoadTokenizer(files["tokenizer.json"])
	if err != nil {
		return nil, err
	}
	slots := map[string]ShapeProfile{"encoder_model.onnx": FixedShapes, "decoder_model_merged.onnx": DynamicShapes}
	first := filepath.Join(filepath.Dir(files["encoder_model.onnx"]), "decoder_model.onnx")
	if filepath.Base(files["decoder_model_merged.onnx"]) == "decoder_with_past_model.onnx" {
		if _, err := os.Stat(first); err == nil {
			files["first"] = first
			slots["first"] = DynamicShapes
		}
	}
	ss, err := r.openSessions(files, dev, slots)
	if err != nil {
		return nil, err
	}
	t, err := NewTranscriber(ss["encoder_model.onnx"], ss["decoder_model_merged.onnx"], ss["first"], tok, asrPrompt(start, gc), eos)
	if err != nil {
		closeAll(ss)
		return nil, err
	}
	if gc != nil {
		t.suppress, t.begin = gc.Suppress, gc.BeginSuppress
	}
	if spec.MaxNewTokens > 0 {
		t.MaxNewTokens = spec.MaxNewTokens
	}
	return t, nil
}
