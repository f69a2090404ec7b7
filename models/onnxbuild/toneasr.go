package onnxbuild

import (
	"math"
	"path/filepath"

	"github.com/vidscreen/vidscreen/models/audio"
)

// ToneASR is the small asr model the world's audio is heard with: a
// Whisper-shaped encoder-decoder that hears a sequence of pure tones, each
// the pitch of one colour word (ToneFrequency), and writes the words, "pink
// white". Like ColourCaptioner it is a fixed function written twice, as ONNX
// graphs and in Go (Transcribe), so the tests compare the two.
//
// It has the asr role's files and Whisper's names: encoder_model.onnx
// (input_features [batch, 80, 3000] -> last_hidden_state) and
// decoder_model_merged.onnx (input_ids, encoder_hidden_states,
// past_key_values.0.{decoder,encoder}.{key,value}, use_cache_branch ->
// logits, present.0.*). The encoder reads each frame's loudest mel filter;
// a frame is a word's when that filter is the word's, it is loud (log10
// energy above toneLoudness), and the next two frames agree (AAC's edges
// smear a frame or two); each run of a word's frames is one token. It
// writes the tokens as a plan, one row of logits per step, and the decoder
// returns the row of its step, counted by the length of the cache it is
// handed plus the tokens it is given, as ColourCaptioner's does.
type ToneASR struct{}

// toneSteps bounds the words of one 30 s window; the plan ends with [SEP].
const toneSteps = 16

// toneLoudness is the feature value a tone's filter must exceed: log10
// energy -2 scaled, (x+4)/4 = 0.5. A tone at amplitude 0.3 reads about 1.4;
// silence reads the floor (-1.5), AAC's noise between tones far below 0.5.
const toneLoudness = 0.5

// toneBin returns the mel filter of colour c: filters 8 to 63, five apart,
// so that AAC's leakage into neighbouring filters never wins.
func toneBin(c int) int { return 8 + 5*c }

// ToneFrequency returns the pitch (Hz) that names word, the centre of its
// mel filter; false for a word that is not a colour.
func ToneFrequency(word string) (float64, bool) {
	for c, n := range ColourNames {
		if n == word {
			return audio.MelCentre(audio.SampleRate, audio.NMels, toneBin(c)), true
		}
	}
	return 0, false
}

// binTokens maps each mel filter to the token of the colour whose filter
// it is, 0 ([PAD], no word) for the others.
func binTokens() []int64 {
	w := wordIndex()
	out := make([]int64, audio.NMels)
	for c, n := range ColourNames {
		out[toneBin(c)] = int64(w[n])
	}
	return out
}

// Transcribe returns the token ids the graphs write for one window of
// features (audio.NMels x audio.Frames, row major), [SEP] included.
func (ToneASR) Transcribe(f []float32) []int {
	T := audio.Frames
	bins := binTokens()
	label := make([]int64, T)
	for t := range T {
		best := 0
		for b := range audio.NMels {
			if f[b*T+t] > f[best*T+t] {
				best = b
			}
		}
		if f[best*T+t] > toneLoudness {
			label[t] = bins[best]
		}
	}
	at := func(t int) int64 {
		if t < T {
			return label[t]
		}
		return 0
	}
	stable := make([]int64, T)
	for t := range T {
		if label[t] == at(t+1) && label[t] == at(t+2) {
			stable[t] = label[t]
		}
	}
	var ids []int
	prev := int64(0)
	for _, s := range stable {
		if s != 0 && s != prev && len(ids) < toneSteps-1 {
			ids = append(ids, int(s))
		}
		prev = s
	}
	return append(ids, tokSEP)
}

// EncoderGraph returns encoder_model.onnx.
func (ToneASR) EncoderGraph() *Graph {
	T, M, S := int64(audio.Frames), int64(audio.NMels), int64(toneSteps-1)
	V := int64(len(colourVocab()))
	g := NewGraph("tone_asr_encoder")
	x := g.Input("input_features", Float, "batch_size", int(M), int(T))
	peak := g.Op("ReduceMax", []Attr{AttrInts("axes", 1), AttrInt("keepdims", 0)}, x) // (B, T)
	arg := g.Op("ArgMax", []Attr{AttrInt("axis", 1), AttrInt("keepdims", 0)}, x)      // (B, T)
	loud := g.Op("Greater", nil, peak, g.Scalar("loudness", toneLoudness))
	zero := g.Op("Mul", nil, arg, g.Ints("zero", []int64{0}, 1)) // (B, T) of zeros
	label := g.Op("Where", nil, loud, g.Op("Gather", []Attr{AttrInt("axis", 0)}, g.Ints("bin_tokens", binTokens(), M), arg), zero)
	// shift returns v moved k frames earlier (k > 0) or later (k < 0),
	// zeros entering.
	zcol := func(n int64) string {
		return g.Op("Slice", nil, zero, g.Ints("s", []int64{0}, 1), g.Ints("e", []int64{n}, 1), g.Ints("ax", []int64{1}, 1))
	}
	slice := func(v string, lo, hi int64) string {
		return g.Op("Slice", nil, v, g.Ints("s", []int64{lo}, 1), g.Ints("e", []int64{hi}, 1), g.Ints("ax", []int64{1}, 1))
	}
	cat := func(a, b string) string { return g.Op("Concat", []Attr{AttrInt("axis", 1)}, a, b) }
	l1 := cat(slice(label, 1, T), zcol(1))
	l2 := cat(slice(label, 2, T), zcol(2))
	stable := g.Op("And", nil, g.Op("Equal", nil, label, l1), g.Op("Equal", nil, label, l2))
	s := g.Op("Where", nil, stable, label, zero)
	prev := cat(zcol(1), slice(s, 0, T-1))
	start := g.Op("And", nil, g.Op("Not", nil, g.Op("Equal", nil, s, zero)), g.Op("Not", nil, g.Op("Equal", nil, s, prev)))
	count := g.Op("CumSum", nil, g.Op("Cast", []Attr{AttrInt("to", int64(Int64))}, start), g.Ints("axis", []int64{1}, 1)) // (B, T)
	ks := make([]int64, S)
	for k := range ks {
		ks[k] = int64(k + 1)
	}
	un := func(v string) string { return g.Op("Unsqueeze", nil, v, g.Ints("a1", []int64{1}, 1)) }      // (B, T) -> (B, 1, T)
	nth := g.Op("And", nil, g.Op("Equal", nil, un(count), g.Ints("ordinals", ks, 1, S, 1)), un(start)) // (B, S, T)
	nthI := g.Op("Cast", []Attr{AttrInt("to", int64(Int64))}, nth)
	tok := g.Op("ReduceSum", []Attr{AttrInt("keepdims", 0)}, g.Op("Mul", nil, nthI, un(s)), g.Ints("a2", []int64{2}, 1)) // (B, S)
	has := g.Op("Greater", nil, g.Op("ReduceSum", []Attr{AttrInt("keepdims", 0)}, nthI, g.Ints("a2", []int64{2}, 1)), g.Ints("zero", []int64{0}, 1))
	sepS := g.Op("Add", nil, g.Op("Mul", nil, tok, g.Ints("zero", []int64{0}, 1)), g.Ints("sep", []int64{tokSEP}, 1))
	ids := g.Op("Where", nil, has, tok, sepS)
	ids = cat(ids, slice(sepS, 0, 1)) // (B, S+1): a last [SEP]
	eye := make([]float32, V*V)
	for i := range V {
		eye[i*V+i] = planLogit
	}
	plan := g.gather(eye, int(V), int(V), ids, "token_logits")
	g.Output(plan, "last_hidden_state", Float, "batch_size", toneSteps, int(V))
	return g
}

// DecoderGraph returns decoder_model_merged.onnx: the logits of the last
// input token are row past + tokens - 1 of the plan.
func (ToneASR) DecoderGraph() *Graph {
	V := len(colourVocab())
	g := NewGraph("tone_asr_decoder")
	ids := g.Input("input_ids", Int64, "batch_size", "decoder_sequence_length")
	enc := g.Input("encoder_hidden_states", Float, "batch_size", "encoder_sequence_length", V)
	pk := g.Input("past_key_values.0.decoder.key", Float, "batch_size", 1, "past_decoder_sequence_length", 1)
	pv := g.Input("past_key_values.0.decoder.value", Float, "batch_size", 1, "past_decoder_sequence_length", 1)
	g.Input("past_key_values.0.encoder.key", Float, "batch_size", 1, "encoder_sequence_length_out", 1)
	g.Input("past_key_values.0.encoder.value", Float, "batch_size", 1, "encoder_sequence_length_out", 1)
	g.Input("use_cache_branch", Bool, 1)
	dim := func(v string, d int64) string {
		return g.Op("Gather", []Attr{AttrInt("axis", 0)}, g.Op("Shape", nil, v), g.Ints("dim", []int64{d}, 1))
	}
	step := g.Op("Sub", nil, g.Op("Add", nil, dim(pk, 2), dim(ids, 1)), g.Ints("one", []int64{1}, 1))
	step = g.Op("Min", nil, step, g.Ints("last_step", []int64{toneSteps - 1}, 1))
	g.Output(g.Op("Gather", []Attr{AttrInt("axis", 1)}, enc, step), "logits", Float, "batch_size", 1, V)
	z := g.Op("Mul", nil, g.Op("Cast", []Attr{AttrInt("to", int64(Float))}, ids), g.Scalar("zero", 0)) // (B, T)
	z = g.Op("Unsqueeze", nil, z, g.Ints("a13", []int64{1, 3}, 2))                                     // (B, 1, T, 1)
	g.Output(g.Op("Concat", []Attr{AttrInt("axis", 2)}, pk, z), "present.0.decoder.key", Float, "batch_size", 1, "present_decoder_sequence_length", 1)
	g.Output(g.Op("Concat", []Attr{AttrInt("axis", 2)}, pv, z), "present.0.decoder.value", Float, "batch_size", 1, "present_decoder_sequence_length", 1)
	one := g.Op("ReduceSum", []Attr{AttrInt("keepdims", 1)}, z, g.Ints("a2", []int64{2}, 1)) // (B, 1, 1, 1)
	g.Output(g.Op("Identity", nil, one), "present.0.encoder.key", Float, "batch_size", 1, 1, 1)
	g.Output(g.Op("Identity", nil, one), "present.0.encoder.value", Float, "batch_size", 1, 1, 1)
	return g
}

// WriteDir writes the asr folder: encoder_model.onnx,
// decoder_model_merged.onnx, config.json ([CLS] starts, [SEP] ends, as
// Whisper's config names them), generation_config.json, a
// preprocessor_config.json with Whisper's feature settings, and the colour
// vocabulary's tokenizer.json and tokenizer_config.json (a BERT tokenizer's,
// which transformers.js's AutoTokenizer needs).
func (a ToneASR) WriteDir(dir string) error {
	err := writeAll(dir, map[string]*Graph{"encoder_model.onnx": a.EncoderGraph(), "decoder_model_merged.onnx": a.DecoderGraph()}, map[string]any{
		// Whisper's config.json fields, with the sizes of these graphs (one
		// layer, one head of width 1, toneSteps encoder positions), so that
		// transformers.js's WhisperForConditionalGeneration loads the folder.
		"config.json": map[string]any{"model_type": "whisper", "architectures": []string{"WhisperForConditionalGeneration"},
			"is_encoder_decoder": true, "decoder_start_token_id": tokCLS, "eos_token_id": tokSEP, "bos_token_id": tokCLS,
			"pad_token_id": tokPad, "num_mel_bins": audio.NMels, "vocab_size": len(colourVocab()),
			"d_model": 1, "encoder_layers": 1, "encoder_attention_heads": 1, "decoder_layers": 1, "decoder_attention_heads": 1,
			"max_source_positions": toneSteps, "max_target_positions": toneSteps + 1, "use_cache": true},
		"tokenizer_config.json": map[string]any{"tokenizer_class": "BertTokenizer", "do_lower_case": true,
			"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]"},
		"generation_config.json": map[string]any{"decoder_start_token_id": tokCLS, "eos_token_id": tokSEP, "max_length": toneSteps + 1},
		"preprocessor_config.json": map[string]any{"feature_extractor_type": "WhisperFeatureExtractor", "feature_size": audio.NMels,
			"sampling_rate": audio.SampleRate, "hop_length": audio.HopLength, "n_fft": audio.NFFT, "chunk_length": audio.ChunkSeconds,
			"n_samples": audio.ChunkSamples, "nb_max_frames": audio.Frames, "padding_value": 0.0},
	})
	if err != nil {
		return err
	}
	return WriteColourTokenizer(filepath.Join(dir, "tokenizer.json"))
}

// ToneTrack renders words as the tones ToneASR hears: each word a sine at
// its pitch for toneSeconds with 10 ms raised-cosine edges, toneGap of
// silence after it, starting after lead seconds; samples at 16 kHz,
// amplitude amp. Words that are not colours are left out.
func ToneTrack(words []string, lead, total, amp float64) []float32 {
	out := make([]float32, int(total*audio.SampleRate))
	t0 := lead
	for _, w := range words {
		f, ok := ToneFrequency(w)
		if !ok {
			continue
		}
		lo := int(t0 * audio.SampleRate)
		n := int(ToneSeconds * audio.SampleRate)
		ramp := int(0.01 * audio.SampleRate)
		for i := 0; i < n && lo+i < len(out); i++ {
			env := 1.0
			if i < ramp {
				env = 0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(ramp))
			} else if n-1-i < ramp {
				env = 0.5 - 0.5*math.Cos(math.Pi*float64(n-1-i)/float64(ramp))
			}
			out[lo+i] = float32(amp * env * math.Sin(2*math.Pi*f*float64(i)/audio.SampleRate))
		}
		t0 += ToneSeconds + ToneGap
	}
	return out
}

// ToneSeconds and ToneGap are the length of one word's tone and the
// silence after it.
const (
	ToneSeconds = 0.4
	ToneGap     = 0.25
)
