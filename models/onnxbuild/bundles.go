package onnxbuild

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// TinyLM is a small causal LM over BERT's uncased vocabulary (30,522 tokens),
// so that the shared WordPiece tokenizer file gives it real ids.
var TinyLM = DecoderConfig{Vocab: 30522, Hidden: 32, Heads: 4, Layers: 2, FFN: 64, MaxPos: 512}

// NewLM draws a causal LM's weights from seed.
func NewLM(cfg DecoderConfig, seed uint64) *Decoder {
	cfg.Cross = false
	return newWeightSource(seed).decoder(cfg)
}

// Captioner is an image-to-text model: a ViT encoder and a decoder with
// cross-attention and a key-value cache.
type Captioner struct {
	Encoder  *VisionTower
	Decoder  *Decoder
	BOS, EOS int
}

// TinyCaptionerVision and TinyCaptionerText size the tiny captioner, which
// uses BERT's ids with [CLS] (101) to start and [SEP] (102) to end, as
// BLIP's text decoder does. Its vocabulary is BERT's first 2,100 ids, the
// ones models/testdata/bert_wordpiece_small.json keeps, so that every id it
// writes decodes to the same text with that file and with the full BERT
// tokenizer: with all 30,522 most of its ids were missing from the cut
// file and its captions decoded to "" in a clone without the full one.
var (
	TinyCaptionerVision = VisionConfig{Channels: 3, Image: 32, Patch: 8, Hidden: 32, Heads: 4, Layers: 1, FFN: 64}
	TinyCaptionerText   = DecoderConfig{Vocab: 2100, Hidden: 32, Heads: 4, Layers: 2, FFN: 64, MaxPos: 64, Cross: true}
)

// NewCaptioner draws a captioner's weights from seed.
func NewCaptioner(v VisionConfig, d DecoderConfig, seed uint64) *Captioner {
	w := newWeightSource(seed)
	d.Cross = true
	return &Captioner{Encoder: w.visionTower(v), Decoder: w.decoder(d), BOS: 101, EOS: 102}
}

// Generate decodes greedily from BOS until EOS or maxTokens new tokens,
// recomputing the whole sequence at each step (no cache). The result holds
// the new tokens, EOS included when reached.
func (c *Captioner) Generate(img []float32, maxTokens int) []int {
	enc := c.Encoder.Forward(img)
	seq := []int{c.BOS}
	var out []int
	for len(out) < maxTokens {
		logits := c.Decoder.Logits(c.Decoder.Embed(seq), enc)
		next := argmax(logits.Row(logits.Rows - 1))
		out = append(out, next)
		if next == c.EOS {
			break
		}
		seq = append(seq, next)
	}
	return out
}

func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// VLM is a vision-language model split the way ONNX exports of SmolVLM are:
// vision_encoder.onnx (pixel_values -> image_features, already projected to
// the decoder's width), embed_tokens.onnx (input_ids -> inputs_embeds) and
// a decoder taking inputs_embeds.
type VLM struct {
	Vision  *VisionTower
	Decoder *Decoder
}

// TinyVLMVision and TinyVLMText size the tiny VLM.
var (
	TinyVLMVision = VisionConfig{Channels: 3, Image: 32, Patch: 16, Hidden: 32, Heads: 4, Layers: 1, FFN: 64, Out: 32}
	TinyVLMText   = DecoderConfig{Vocab: 30522, Hidden: 32, Heads: 4, Layers: 2, FFN: 64, MaxPos: 512}
)

// NewVLM draws a VLM's weights from seed.
func NewVLM(v VisionConfig, d DecoderConfig, seed uint64) *VLM {
	w := newWeightSource(seed)
	v.Out = d.Hidden
	d.Cross = false
	return &VLM{Vision: w.visionTower(v), Decoder: w.decoder(d)}
}

// Logits returns the logits of one unpadded sequence whose pieces are, in
// order, token ids ([]int) and images ([]float32, C x H x W each).
func (m *VLM) Logits(pieces ...any) Mat {
	var x Mat
	for _, p := range pieces {
		switch p := p.(type) {
		case []int:
			x = concatRows(x, m.Decoder.Embed(p))
		case []float32:
			x = concatRows(x, m.Vision.Forward(p))
		default:
			panic(fmt.Sprintf("onnxbuild: VLM piece of type %T", p))
		}
	}
	return m.Decoder.Logits(x, Mat{})
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func writeAll(dir string, files map[string]*Graph, jsons map[string]any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, g := range files {
		if err := g.WriteFile(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	for name, v := range jsons {
		if err := writeJSON(filepath.Join(dir, name), v); err != nil {
			return fmt.Errorf("onnxbuild: write %s: %w", name, err)
		}
	}
	return nil
}

// clipPreprocessor is CLIP's preprocessor_config.json at image size n: the
// mean and std are openai/CLIP's (clip/clip.py, _transform); resample 3 is
// PIL's bicubic.
func clipPreprocessor(n int) map[string]any {
	return map[string]any{
		"image_processor_type": "CLIPImageProcessor",
		"do_resize":            true, "size": map[string]int{"shortest_edge": n},
		"do_center_crop": true, "crop_size": map[string]int{"height": n, "width": n},
		"do_rescale": true, "rescale_factor": 1.0 / 255,
		"do_normalize": true,
		"image_mean":   []float64{0.48145466, 0.4578275, 0.40821073},
		"image_std":    []float64{0.26862954, 0.26130258, 0.27577711},
		"resample":     3, "do_convert_rgb": true,
	}
}

// WriteDir writes model.onnx and config.json.
func (m *Encoder) WriteDir(dir string) error {
	c := m.Config
	return writeAll(dir, map[string]*Graph{"model.onnx": m.Graph()}, map[string]any{
		"config.json": map[string]any{"model_type": "bert", "vocab_size": c.Vocab, "hidden_size": c.Hidden,
			"num_attention_heads": c.Heads, "num_hidden_layers": c.Layers, "intermediate_size": c.FFN,
			"max_position_embeddings": c.MaxPos, "type_vocab_size": c.TypeVocab, "layer_norm_eps": bertEps},
	})
}

// WriteDir writes text_model.onnx, vision_model.onnx, config.json and
// preprocessor_config.json.
func (m *CLIP) WriteDir(dir string) error {
	c := m.Config
	return writeAll(dir, map[string]*Graph{"text_model.onnx": m.TextGraph(), "vision_model.onnx": m.VisionGraph()}, map[string]any{
		"config.json": map[string]any{"model_type": "clip", "projection_dim": c.Embed,
			"logit_scale_init_value": 4.6052,
			"text_config":            map[string]any{"vocab_size": c.Vocab, "hidden_size": c.TextHidden, "max_position_embeddings": c.MaxPos, "eos_token_id": 49407},
			"vision_config":          map[string]any{"image_size": c.Vision.Image, "patch_size": c.Vision.Patch, "hidden_size": c.Vision.Hidden}},
		"preprocessor_config.json": clipPreprocessor(c.Vision.Image),
	})
}

// WriteLMDir writes a causal LM's model.onnx (with or without cache inputs)
// and config.json.
func (d *Decoder) WriteLMDir(dir string, withPast bool) error {
	c := d.Config
	return writeAll(dir, map[string]*Graph{"model.onnx": d.LMGraph(withPast)}, map[string]any{
		"config.json": map[string]any{"model_type": "gpt2", "vocab_size": c.Vocab, "n_embd": c.Hidden, "n_head": c.Heads,
			"n_layer": c.Layers, "n_positions": c.MaxPos, "bos_token_id": 101, "eos_token_id": 102, "pad_token_id": 0},
	})
}

// WriteDir writes encoder_model.onnx, decoder_with_past_model.onnx (which
// also takes an empty past on the first step), config.json and
// preprocessor_config.json.
func (c *Captioner) WriteDir(dir string) error { return c.writeDir(dir, false) }

// WriteDirWithFirst is WriteDir plus decoder_model.onnx, a first-step
// decoder without past inputs, the pair HF Optimum exports.
func (c *Captioner) WriteDirWithFirst(dir string) error { return c.writeDir(dir, true) }

func (c *Captioner) writeDir(dir string, first bool) error {
	enc := NewGraph("encoder")
	x := c.Encoder.emit(enc, c.Encoder.pixelInput(enc))
	vc := c.Encoder.Config
	enc.Output(x, "last_hidden_state", Float, "batch_size", c.Encoder.Patch.Patches(), vc.Hidden)
	graphs := map[string]*Graph{"encoder_model.onnx": enc, "decoder_with_past_model.onnx": c.Decoder.CrossGraph(vc.Hidden)}
	if first {
		graphs["decoder_model.onnx"] = c.Decoder.FirstCrossGraph(vc.Hidden)
	}
	return writeAll(dir, graphs, map[string]any{
		"config.json": map[string]any{"model_type": "vision-encoder-decoder", "decoder_start_token_id": c.BOS,
			"eos_token_id": c.EOS, "pad_token_id": 0, "decoder": map[string]any{"vocab_size": c.Decoder.Config.Vocab}},
		"preprocessor_config.json": clipPreprocessor(vc.Image),
	})
}

// WriteDir writes vision_encoder.onnx, embed_tokens.onnx, decoder_model.onnx,
// config.json and preprocessor_config.json.
func (m *VLM) WriteDir(dir string) error {
	vis := NewGraph("vision_encoder")
	x := m.Vision.emit(vis, m.Vision.pixelInput(vis))
	vis.Output(x, "image_features", Float, "batch_size", m.Vision.Patch.Patches(), m.Decoder.Config.Hidden)
	return writeAll(dir, map[string]*Graph{"vision_encoder.onnx": vis, "embed_tokens.onnx": m.Decoder.EmbedGraph(), "decoder_model.onnx": m.Decoder.EmbedsGraph()}, map[string]any{
		"config.json": map[string]any{"model_type": "vlm", "bos_token_id": 101, "eos_token_id": 102, "pad_token_id": 0,
			"image_seq_len": m.Vision.Patch.Patches(), "text_config": map[string]any{"vocab_size": m.Decoder.Config.Vocab}},
		"preprocessor_config.json": clipPreprocessor(m.Vision.Config.Image),
	})
}
