package onnxbuild

import "math"

// CLIPConfig sizes a two-tower CLIP-like model.
type CLIPConfig struct {
	Vocab, TextHidden, TextHeads, TextLayers, TextFFN, MaxPos int
	Vision                                                    VisionConfig
	Embed                                                     int
	Seed                                                      uint64
}

// TinyCLIP uses CLIP's vocabulary (49,408 tokens, the size of CLIP's BPE
// tokenizer.json) and context length 77
// (openai/CLIP), with tiny towers on 32 x 32 images.
var TinyCLIP = CLIPConfig{
	Vocab: 49408, TextHidden: 32, TextHeads: 4, TextLayers: 1, TextFFN: 64, MaxPos: 77,
	Vision: VisionConfig{Channels: 3, Image: 32, Patch: 8, Hidden: 32, Heads: 4, Layers: 1, FFN: 64},
	Embed:  16, Seed: 2,
}

// CLIP holds both towers. The text tower (text_model.onnx: input_ids,
// attention_mask -> text_embeds, last_hidden_state) is causal and pools the
// row of the highest token id (CLIP's end-of-text token, 49407, is the
// largest id), as HF's CLIPTextModelWithProjection does; the vision tower
// (vision_model.onnx: pixel_values -> image_embeds, last_hidden_state)
// averages its patch rows before the projection.
type CLIP struct {
	Config     CLIPConfig
	Tok, Pos   []float32
	TextBlocks []Block
	TextLN     LayerNorm
	TextProj   Linear
	Vision     *VisionTower
	VisionProj Linear
	LogitScale float32
}

// NewCLIP draws a CLIP-like model's weights from cfg.Seed.
func NewCLIP(cfg CLIPConfig) *CLIP {
	w := newWeightSource(cfg.Seed)
	m := &CLIP{Config: cfg}
	m.Tok = w.uniform(cfg.Vocab*cfg.TextHidden, 1)
	m.Pos = w.uniform(cfg.MaxPos*cfg.TextHidden, 0.5)
	for range cfg.TextLayers {
		m.TextBlocks = append(m.TextBlocks, w.block(cfg.TextHidden, cfg.TextHeads, cfg.TextFFN, false, false, clipEps))
	}
	m.TextLN = w.layerNorm(cfg.TextHidden, clipEps)
	m.TextProj = w.linear(cfg.TextHidden, cfg.Embed)
	m.Vision = w.visionTower(cfg.Vision)
	m.VisionProj = w.linear(cfg.Vision.Hidden, cfg.Embed)
	// CLIP's trained logit scale is exp(4.6052) = 100 (the clamp of the
	// CLIP paper, section 2.5).
	m.LogitScale = float32(math.Exp(4.6052))
	return m
}

// TextGraph returns text_model.onnx.
func (m *CLIP) TextGraph() *Graph {
	c := m.Config
	g := NewGraph("clip_text")
	ids := g.Input("input_ids", Int64, "batch_size", "sequence_length")
	mask := g.Input("attention_mask", Int64, "batch_size", "sequence_length")
	x := g.gather(m.Tok, c.Vocab, c.TextHidden, ids, "text.embed_tokens")
	pos := g.Floats("text.embed_positions", m.Pos, int64(c.MaxPos), int64(c.TextHidden))
	x = g.Op("Add", nil, x, g.positionRows(pos, ids, ""))
	bias := g.Op("Add", nil, g.causalBias(ids, "", c.MaxPos), g.paddingBias(mask))
	for i, b := range m.TextBlocks {
		x = g.block(x, bias, b, "text.layer"+itoa(i), nil, "")
	}
	x = g.layerNorm(x, m.TextLN, "text.ln_final")
	g.Output(x, "last_hidden_state", Float, "batch_size", "sequence_length", c.TextHidden)
	// Pool the row of the largest id: ArgMax over the ids (as floats; ids
	// below 2^24 are exact) picks the first end-of-text token.
	idsf := g.Op("Cast", []Attr{AttrInt("to", int64(Float))}, ids)
	am := g.Op("ArgMax", []Attr{AttrInt("axis", 1), AttrInt("keepdims", 1)}, idsf)
	idx := g.Op("Unsqueeze", nil, am, g.Ints("axes", []int64{2}, 1))
	idx = g.Op("Expand", nil, idx, g.Ints("pool_shape", []int64{1, 1, int64(c.TextHidden)}, 3))
	pooled := g.Op("GatherElements", []Attr{AttrInt("axis", 1)}, x, idx)
	pooled = g.Op("Squeeze", nil, pooled, g.Ints("axes", []int64{1}, 1))
	g.Output(g.linear(pooled, m.TextProj, "text_projection"), "text_embeds", Float, "batch_size", c.Embed)
	return g
}

// VisionGraph returns vision_model.onnx.
func (m *CLIP) VisionGraph() *Graph {
	c := m.Config
	g := NewGraph("clip_vision")
	x := m.Vision.emit(g, m.Vision.pixelInput(g))
	g.Output(x, "last_hidden_state", Float, "batch_size", m.Vision.Patch.Patches(), c.Vision.Hidden)
	mean := g.Op("ReduceMean", []Attr{AttrInts("axes", 1), AttrInt("keepdims", 0)}, x)
	g.Output(g.linear(mean, m.VisionProj, "visual_projection"), "image_embeds", Float, "batch_size", c.Embed)
	return g
}

// TextEmbed returns text_embeds (not normalised) for one unpadded sequence.
func (m *CLIP) TextEmbed(ids []int) []float32 {
	c := m.Config
	x := embedRows(m.Tok, c.TextHidden, ids)
	for i := range x.V {
		x.V[i] += m.Pos[i]
	}
	for _, b := range m.TextBlocks {
		x = b.apply(x, causal(0), Mat{}, nil)
	}
	x = m.TextLN.apply(x)
	best := 0
	for i, id := range ids {
		if id > ids[best] {
			best = i
		}
	}
	row := Mat{Rows: 1, Cols: c.TextHidden, V: x.Row(best)}
	return m.TextProj.apply(row).V
}

// ImageEmbed returns image_embeds (not normalised) for one image.
func (m *CLIP) ImageEmbed(img []float32) []float32 {
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
	return m.VisionProj.apply(mean).V
}
