package onnxbuild

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/models/tokenizer"
)

// SiglipConfig sizes a two-tower SigLIP-like model.
type SiglipConfig struct {
	Vocab, TextHidden, TextHeads, TextLayers, TextFFN, MaxPos int
	Vision                                                    VisionConfig
	Seed                                                      uint64
}

// TinySiglip has SigLIP's text length (64 positions, google/siglip-*'s
// text_config.max_position_embeddings) and the vocabulary of
// SiglipTokenizerJSON, with tiny towers on 32 x 32 images. SigLIP's
// embedding is each tower's pooled output, so both towers are 32 wide.
var TinySiglip = SiglipConfig{
	Vocab: 0, TextHidden: 32, TextHeads: 4, TextLayers: 1, TextFFN: 64, MaxPos: 64,
	Vision: VisionConfig{Channels: 3, Image: 32, Patch: 8, Hidden: 32, Heads: 4, Layers: 1, FFN: 64},
	Seed:   11,
}

// siglipEps is SigLIP's layer_norm_eps (config.json of
// google/siglip-base-patch16-224).
const siglipEps = 1e-6

// Siglip holds both towers, in the shape of transformers' SigLIP and of
// its Optimum export. The text tower (onnx/text_model.onnx: input_ids ->
// last_hidden_state, pooler_output) is bidirectional, takes no
// attention_mask, and pools the last position through a linear head, as
// SiglipTextTransformer does (pooled = last_hidden_state[:, -1]): its
// texts must be padded to max_length, or the pooled row is another token's.
// The vision tower (onnx/vision_model.onnx: pixel_values ->
// last_hidden_state, pooler_output) averages its patch rows before a linear
// head, a stand-in for SigLIP's attention-pooling head that keeps the
// output's name and meaning (the image embedding). LogitScale and LogitBias
// are the zero-shot logit's sigmoid(scale * cos + bias).
type Siglip struct {
	Config     SiglipConfig
	Tok, Pos   []float32
	TextBlocks []Block
	TextLN     LayerNorm
	TextHead   Linear
	Vision     *VisionTower
	VisionHead Linear
	LogitScale float32
	LogitBias  float32
}

// NewSiglip draws a SigLIP-like model's weights from cfg.Seed; a zero
// cfg.Vocab takes SiglipTokenizerJSON's vocabulary size.
func NewSiglip(cfg SiglipConfig) *Siglip {
	if cfg.Vocab == 0 {
		cfg.Vocab = len(siglipVocab())
	}
	w := newWeightSource(cfg.Seed)
	m := &Siglip{Config: cfg}
	m.Tok = w.uniform(cfg.Vocab*cfg.TextHidden, 1)
	m.Pos = w.uniform(cfg.MaxPos*cfg.TextHidden, 0.5)
	for range cfg.TextLayers {
		m.TextBlocks = append(m.TextBlocks, w.block(cfg.TextHidden, cfg.TextHeads, cfg.TextFFN, false, false, siglipEps))
	}
	m.TextLN = w.layerNorm(cfg.TextHidden, siglipEps)
	m.TextHead = w.linear(cfg.TextHidden, cfg.TextHidden)
	m.Vision = w.visionTower(cfg.Vision)
	m.VisionHead = w.linear(cfg.Vision.Hidden, cfg.TextHidden)
	// SigLIP initialises logit_scale to log 10 and logit_bias to -10
	// (the SigLIP paper, section 3.2).
	m.LogitScale, m.LogitBias = float32(math.Exp(math.Log(10))), -10
	return m
}

// TextGraph returns onnx/text_model.onnx.
func (m *Siglip) TextGraph() *Graph {
	c := m.Config
	g := NewGraph("siglip_text")
	ids := g.Input("input_ids", Int64, "batch_size", "sequence_length")
	x := g.gather(m.Tok, c.Vocab, c.TextHidden, ids, "text.embed_tokens")
	pos := g.Floats("text.embed_positions", m.Pos, int64(c.MaxPos), int64(c.TextHidden))
	x = g.Op("Add", nil, x, g.positionRows(pos, ids, ""))
	for i, b := range m.TextBlocks {
		x = g.block(x, "", b, "text.layer"+itoa(i), nil, "")
	}
	x = g.layerNorm(x, m.TextLN, "text.final_layer_norm")
	g.Output(x, "last_hidden_state", Float, "batch_size", "sequence_length", c.TextHidden)
	// The last position: Gather index -1 on the sequence axis.
	last := g.Op("Gather", []Attr{AttrInt("axis", 1)}, x, g.Ints("last", []int64{-1}))
	g.Output(g.linear(last, m.TextHead, "text.head"), "pooler_output", Float, "batch_size", c.TextHidden)
	return g
}

// VisionGraph returns onnx/vision_model.onnx.
func (m *Siglip) VisionGraph() *Graph {
	c := m.Config
	g := NewGraph("siglip_vision")
	x := m.Vision.emit(g, m.Vision.pixelInput(g))
	g.Output(x, "last_hidden_state", Float, "batch_size", m.Vision.Patch.Patches(), c.Vision.Hidden)
	mean := g.Op("ReduceMean", []Attr{AttrInts("axes", 1), AttrInt("keepdims", 0)}, x)
	g.Output(g.linear(mean, m.VisionHead, "vision.head"), "pooler_output", Float, "batch_size", c.TextHidden)
	return g
}

// TextEmbed returns pooler_output (not normalised) for one sequence as the
// tower reads it (already padded to the length the caller wants).
func (m *Siglip) TextEmbed(ids []int) []float32 {
	c := m.Config
	x := embedRows(m.Tok, c.TextHidden, ids)
	for i := range x.V {
		x.V[i] += m.Pos[i]
	}
	for _, b := range m.TextBlocks {
		x = b.apply(x, nil, Mat{}, nil)
	}
	x = m.TextLN.apply(x)
	row := Mat{Rows: 1, Cols: c.TextHidden, V: x.Row(x.Rows - 1)}
	return m.TextHead.apply(row).V
}

// ImageEmbed returns pooler_output (not normalised) for one image.
func (m *Siglip) ImageEmbed(img []float32) []float32 {
	x := m.Vision.Forward(img)
	mean := NewMat(1, x.Cols)
	for r := range x.Rows {
		for k, v := range x.Row(r) {
			mean.V[k] += v
		}
	}
	for k := range mean.V {
		mean.V[k] /= float32(x.Rows)
	}
	return m.VisionHead.apply(mean).V
}

// WriteDir writes the model in the layout of an Optimum / transformers.js
// SigLIP export: onnx/text_model.onnx and onnx/vision_model.onnx (the
// files SiglipTextModel and SiglipVisionModel load), config.json
// (model_type siglip with text_config and vision_config),
// preprocessor_config.json (SiglipImageProcessor: a squash to the tower's
// size, no crop, bicubic, mean and std 0.5, as google/siglip-* ship it),
// tokenizer.json (SiglipTokenizerJSON, padding to max_length 64) and
// tokenizer_config.json.
func (m *Siglip) WriteDir(dir string) error {
	c := m.Config
	if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
		return err
	}
	err := writeAll(dir, map[string]*Graph{"onnx/text_model.onnx": m.TextGraph(), "onnx/vision_model.onnx": m.VisionGraph()}, map[string]any{
		"config.json": map[string]any{"model_type": "siglip", "architectures": []string{"SiglipModel"},
			"text_config": map[string]any{"model_type": "siglip_text_model", "vocab_size": c.Vocab, "hidden_size": c.TextHidden,
				"num_attention_heads": c.TextHeads, "num_hidden_layers": c.TextLayers, "intermediate_size": c.TextFFN,
				"max_position_embeddings": c.MaxPos, "layer_norm_eps": siglipEps,
				"pad_token_id": siglipEOS, "eos_token_id": siglipEOS, "bos_token_id": siglipEOS},
			"vision_config": map[string]any{"model_type": "siglip_vision_model", "image_size": c.Vision.Image, "patch_size": c.Vision.Patch,
				"hidden_size": c.Vision.Hidden, "num_attention_heads": c.Vision.Heads, "num_hidden_layers": c.Vision.Layers,
				"intermediate_size": c.Vision.FFN, "num_channels": c.Vision.Channels, "layer_norm_eps": siglipEps}},
		"preprocessor_config.json": map[string]any{
			"image_processor_type": "SiglipImageProcessor", "processor_class": "SiglipProcessor",
			"do_resize": true, "size": map[string]int{"height": c.Vision.Image, "width": c.Vision.Image}, "resample": 3,
			"do_rescale": true, "rescale_factor": 1.0 / 255,
			"do_normalize": true, "image_mean": []float64{0.5, 0.5, 0.5}, "image_std": []float64{0.5, 0.5, 0.5}},
		"tokenizer_config.json": map[string]any{
			"tokenizer_class": "SiglipTokenizer", "model_max_length": c.MaxPos,
			"eos_token": "</s>", "pad_token": "</s>", "unk_token": "<unk>", "padding_side": "right", "do_lower_case": true},
	})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tokenizer.json"), SiglipTokenizerJSON(c.MaxPos), 0o644)
}

// SigLIP's special tokens, at google/siglip-*'s ids (spiece.model: <pad>
// 0, </s> 1, <unk> 2; the tokenizer pads with </s>).
const (
	siglipPad = 0
	siglipEOS = 1
	siglipUNK = 2
)

// siglipVocab is the Unigram vocabulary of SiglipTokenizerJSON: the special
// tokens, "▁" alone, "▁" + each of tokenizerWords, and every lowercase
// letter, digit and capital with and without "▁", with log-probability
// scores that prefer whole words (the longer the piece, the less it costs
// per character), so words segment as SentencePiece would segment them.
func siglipVocab() [][2]any {
	v := [][2]any{{"<pad>", 0.0}, {"</s>", 0.0}, {"<unk>", 0.0}, {"▁", -2.0}}
	seen := map[string]bool{}
	add := func(piece string, score float64) {
		if !seen[piece] {
			seen[piece] = true
			v = append(v, [2]any{piece, score})
		}
	}
	for _, w := range strings.Fields(tokenizerWords) {
		add("▁"+w, -3.0-0.01*float64(len(v)))
	}
	chars := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for _, r := range chars {
		add(string(r), -8.0)
		add("▁"+string(r), -9.0)
	}
	return v
}

// SiglipTokenizerJSON returns a tokenizer.json that does what transformers'
// slow SiglipTokenizer does: lowercase (its do_lower_case, default true),
// remove ASCII punctuation, collapse whitespace and strip
// (canonicalize_text), then a SentencePiece Unigram model over "▁"-joined
// words (Metaspace) and "$A </s>" post-processing; padding with </s> to
// maxLen (Fixed) and truncation there, as SigLIP's text tower needs.
func SiglipTokenizerJSON(maxLen int) []byte {
	special := func(id int, s string) map[string]any {
		return map[string]any{"id": id, "content": s, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
	}
	punct := `[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_` + "`" + `{|}~]`
	tok := map[string]any{
		"version":    "1.0",
		"truncation": map[string]any{"direction": "Right", "max_length": maxLen, "strategy": "LongestFirst", "stride": 0},
		"padding": map[string]any{"strategy": map[string]any{"Fixed": maxLen}, "direction": "Right", "pad_to_multiple_of": nil,
			"pad_id": siglipEOS, "pad_type_id": 0, "pad_token": "</s>"},
		"added_tokens": []any{special(siglipPad, "<pad>"), special(siglipEOS, "</s>"), special(siglipUNK, "<unk>")},
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Lowercase"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": punct}, "content": ""},
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": `\s+`}, "content": " "},
			map[string]any{"type": "Strip", "strip_left": true, "strip_right": true},
		}},
		"pre_tokenizer": map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
		"post_processor": map[string]any{"type": "TemplateProcessing",
			"single": []any{map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}}},
			"pair": []any{map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "B", "type_id": 0}}, map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}}},
			"special_tokens": map[string]any{"</s>": map[string]any{"id": "</s>", "ids": []int{siglipEOS}, "tokens": []string{"</s>"}}}},
		"decoder": map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
		"model":   map[string]any{"type": "Unigram", "unk_id": siglipUNK, "vocab": siglipVocab(), "byte_fallback": false},
	}
	b, err := json.MarshalIndent(tok, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("onnxbuild: siglip tokenizer: %v", err)) // static data
	}
	return append(b, '\n')
}

// SiglipSentencePiece returns the spiece.model of SiglipTokenizerJSON's
// vocabulary, as google/siglip-* ship theirs (the only tokenizer file of
// SigLIP v1): the same pieces and scores, <pad> and </s> CONTROL, <unk>
// UNKNOWN, eos 1, pad 0, no bos, add_dummy_prefix on (SiglipTokenizer turns
// it off), and no charsmap (the identity normalizer) where the real model
// has nmt_nfkc's.
func SiglipSentencePiece() []byte {
	m := &tokenizer.SentencePieceModel{
		ModelType: tokenizer.SPMUnigram, UnkID: siglipUNK, BOSID: -1, EOSID: siglipEOS, PadID: siglipPad,
		NormalizerName: "identity", AddDummyPrefix: true, RemoveExtraWhitespaces: true, EscapeWhitespaces: true,
	}
	for i, v := range siglipVocab() {
		typ := tokenizer.PieceNormal
		switch i {
		case siglipPad, siglipEOS:
			typ = tokenizer.PieceControl
		case siglipUNK:
			typ = tokenizer.PieceUnknown
		}
		m.Pieces = append(m.Pieces, tokenizer.SentencePiece{Piece: v[0].(string), Score: float32(v[1].(float64)), Type: typ})
	}
	b, err := m.MarshalBinary()
	if err != nil {
		panic(fmt.Sprintf("onnxbuild: siglip spiece.model: %v", err)) // static data
	}
	return b
}
