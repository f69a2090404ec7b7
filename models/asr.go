package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	// Language is the language code the prompt carried ("en"), detected
	// from the first window or given; empty for a model without languages
	// (English-only Whisper).
	Language string `json:"language,omitempty"`
}

// Transcriber is the asr role: a Whisper-style encoder-decoder export
// (Optimum's names: encoder_model.onnx takes input_features [batch, mels,
// 3000], mels 80 or large-v3's 128, and gives last_hidden_state; the
// decoder takes input_ids and encoder_hidden_states, with
// past_key_values.* when merged, and gives logits and present.*). Each 30 s
// window of the track is turned into log-mel features (models/audio),
// encoded once, and decoded greedily from the prompt (the start token and
// the language, task and no-timestamps tokens of generation_config.json,
// asrgen.go) until the end token or MaxNewTokens. A language left to
// detection is detected once per track, from its first window, as
// Whisper's generate does: one decoder step after the start token, the
// most likely of lang_to_id's tokens.
type Transcriber struct {
	enc, dec *Session
	// first, when not nil, runs the first step (decoder_model.onnx of a
	// decoder_model + decoder_with_past_model pair).
	first *Session
	tok   Tokenizer
	// prompt starts every window; langSlot is the index of its language
	// token (-1: none), noLanguage there until detected.
	prompt   []int
	langSlot int
	// langs maps the language tokens to their codes ("en"), sorted ids in
	// langIDs: what detection chooses among.
	langs    map[int]string
	langIDs  []int
	eos      int
	suppress []int // never generated (generation_config suppress_tokens)
	begin    []int // not generated first (begin_suppress_tokens)
	feats    *audio.Extractor
	// MaxNewTokens bounds each window's tokens (default 224, half of
	// Whisper's 448 decoder positions, as its generate does).
	MaxNewTokens int
}

// NewTranscriber wraps the sessions (first may be nil); prompt starts every
// window's decoding and eos ends it. The mel bins are the encoder's
// input_features rows (80 when that dimension is dynamic).
func NewTranscriber(enc, dec, first *Session, tok Tokenizer, prompt []int, eos int) (*Transcriber, error) {
	return newTranscriber(enc, dec, first, tok, prompt, eos, 0)
}

// newTranscriber is NewTranscriber with the mel bins of
// preprocessor_config.json's feature_size (0: the encoder's).
func newTranscriber(enc, dec, first *Session, tok Tokenizer, prompt []int, eos, mels int) (*Transcriber, error) {
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
	if len(x.Shape) != 3 || (x.Shape[2] >= 0 && x.Shape[2] != audio.Frames) {
		return nil, fmt.Errorf("%s: input_features has shape %v; want (batch, mel bins, %d), Whisper's log-mel window", enc.Path(), x.Shape, audio.Frames)
	}
	switch rows := int(x.Shape[1]); {
	case mels > 0 && rows >= 0 && rows != mels:
		return nil, fmt.Errorf("%s: input_features has %d mel rows, but preprocessor_config.json's feature_size is %d: the folder's files are of different models", enc.Path(), rows, mels)
	case mels == 0 && rows >= 0:
		mels = rows
	case mels == 0:
		mels = audio.NMels
	}
	feats, err := audio.NewMels(mels)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", enc.Path(), err)
	}
	if len(prompt) == 0 {
		return nil, errors.New("asr: empty decoder prompt")
	}
	return &Transcriber{enc: enc, dec: dec, first: first, tok: tok, prompt: prompt, langSlot: -1, eos: eos, feats: feats, MaxNewTokens: 224}, nil
}

// Close releases the sessions.
func (t *Transcriber) Close() error {
	if t.first != nil {
		t.first.Close()
	}
	t.enc.Close()
	return t.dec.Close()
}

// Mels is the mel bins of the features the encoder reads.
func (t *Transcriber) Mels() int { return t.feats.Mels() }

// Prompt is the decoder prompt every window starts from; a language to be
// detected is -1 in it.
func (t *Transcriber) Prompt() []int { return slices.Clone(t.prompt) }

// Transcribe transcribes a 16 kHz mono track. An empty track is one window
// of silence, which a model may still transcribe (Whisper sometimes hears
// words in silence); callers that know a file has no audio stream should
// not ask.
func (t *Transcriber) Transcribe(ctx context.Context, samples []float32) (Transcript, error) {
	var out Transcript
	var texts []string
	prompt := slices.Clone(t.prompt)
	for w := range audio.Chunks(len(samples)) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		f, err := t.feats.Features(samples, w)
		if err != nil {
			return out, err
		}
		ids, err := t.window(ctx, f, prompt)
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
	if t.langSlot >= 0 {
		out.Language = t.langs[prompt[t.langSlot]]
	}
	out.Text = strings.Join(texts, " ")
	return out, nil
}

// window decodes one window of features greedily from prompt; a language
// slot still to detect is detected here and written into prompt, for the
// windows after.
func (t *Transcriber) window(ctx context.Context, feats []float32, prompt []int) ([]int, error) {
	in, err := floatTensor(feats, 1, int64(t.feats.Mels()), audio.Frames)
	if err != nil {
		return nil, err
	}
	defer in.Destroy()
	encOut, hidden, err := encode(ctx, t.enc, "input_features", in)
	if err != nil {
		return nil, err
	}
	defer destroyMap(encOut)
	if t.langSlot >= 0 && prompt[t.langSlot] == noLanguage {
		lang, err := t.decode(ctx, hidden, prompt[:t.langSlot], 1, t.onlyLanguages)
		if err != nil {
			return nil, fmt.Errorf("language detection: %w", err)
		}
		prompt[t.langSlot] = lang[0]
	}
	return t.decode(ctx, hidden, prompt, t.MaxNewTokens, t.mask)
}

// onlyLanguages leaves the language tokens alone in a row of logits:
// detection's choice (transformers' detect_language masks every other
// token to -inf and takes the argmax).
func (t *Transcriber) onlyLanguages(row []float32, _ bool) {
	keep := make([]float32, len(t.langIDs))
	for i, id := range t.langIDs {
		if id < len(row) {
			keep[i] = row[id]
		}
	}
	inf := float32(math.Inf(-1))
	for k := range row {
		row[k] = inf
	}
	for i, id := range t.langIDs {
		if id < len(row) {
			row[id] = keep[i]
		}
	}
}

// decode runs the decoder greedily on the encoder's hidden states from
// prompt for at most steps tokens, stopping at the end token; mask edits
// each row of logits before the argmax (first: the first token generated).
func (t *Transcriber) decode(ctx context.Context, hidden ort.Value, prompt []int, steps int, mask func(row []float32, first bool)) ([]int, error) {
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
	next := toInt64(prompt)
	seen := 0 // tokens the decoder has read
	for step := 0; step < steps; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
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
		mask(row, step == 0)
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

// OpenTranscriber opens the asr role on dev. The start and end tokens come
// from config.json (decoder_start_token_id; eos_token_id), the prompt and
// suppressed tokens from generation_config.json when the folder has one
// (asrgen.go; the manifest's language fills the language slot, else it is
// detected), the mel bins from preprocessor_config.json's feature_size,
// which must agree with the encoder's input.
func (r *Runtime) OpenTranscriber(m *Manifest, dev gpu.Device) (*Transcriber, error) {
	files, spec, err := m.roleFiles(RoleASR)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(files["config.json"])
	start, eos, err := decoderTokens(files["config.json"])
	if err != nil {
		return nil, err
	}
	var gen *whisperGeneration
	gpath := filepath.Join(dir, "generation_config.json")
	if data, err := os.ReadFile(gpath); err == nil {
		if gen, err = parseWhisperGeneration(gpath, data); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	} else if spec.Language != "" {
		return nil, fmt.Errorf("%s: the manifest gives language %q, but the folder has no generation_config.json with the lang_to_id to find it in", dir, spec.Language)
	}
	prompt, slot, err := gen.prompt(start, spec.Language)
	if err != nil {
		return nil, err
	}
	mels := 0
	if pp := filepath.Join(dir, "preprocessor_config.json"); fileExists(pp) {
		if mels, err = whisperFeatures(pp); err != nil {
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
	t, err := newTranscriber(ss["encoder_model.onnx"], ss["decoder_model_merged.onnx"], ss["first"], tok, prompt, eos, mels)
	if err != nil {
		closeAll(ss)
		return nil, err
	}
	if gen != nil {
		t.suppress, t.begin = gen.suppress, gen.begin
		if slot >= 0 {
			t.langSlot, t.langs = slot, map[int]string{}
			for name, id := range gen.langToID {
				t.langs[id] = strings.TrimSuffix(strings.TrimPrefix(name, "<|"), "|>")
				t.langIDs = append(t.langIDs, id)
			}
			slices.Sort(t.langIDs)
		}
	}
	if spec.MaxNewTokens > 0 {
		t.MaxNewTokens = spec.MaxNewTokens
	}
	return t, nil
}
