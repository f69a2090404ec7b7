package onnxbuild

import (
	"path/filepath"
)

// ColourCaptioner writes what a frame shows, "a pink square and a green
// circle on a red background", from the measurements of a ColourModel: the
// two colours that are most an object (area x presence x not border) and,
// for each, its likeliest shape; the background is the colour covering most
// of the frame's border. With one object or none the caption says less ("a
// red background").
//
// It has the captioner role's files and names: encoder_model.onnx
// (pixel_values -> last_hidden_state) and decoder_model_merged.onnx
// (input_ids, encoder_hidden_states, past_key_values.0.key/value ->
// logits, present.0.key/value). The encoder writes the caption as a plan,
// one row of token logits per step; the decoder reads the row of its step,
// which it counts by the length of the cache it is handed, one slot longer
// each step. Greedy decoding with the cache therefore writes the plan.
type ColourCaptioner struct {
	Model *ColourModel
}

// captionSteps is the longest caption, [SEP] included: "a C S and a C S on
// a C background [SEP]".
const captionSteps = 12

// objectThreshold is the object weight x share above which a colour counts
// as an object worth naming (about 25 pixels of 112 x 112).
const objectThreshold = 0.002

// planLogit is the logit of the planned token; every other token gets 0.
const planLogit = 10

// Plan returns the caption's token ids for one preprocessed image, ending
// with [SEP]; the first of equal candidates wins, as in ONNX's ArgMax and
// TopK.
func (c *ColourCaptioner) Plan(img []float32) []int {
	m := c.Model
	f := m.regions(img)
	P := len(ColourNames)
	g := make([]float32, P)
	for p := range P {
		g[p] = m.objectWeight(f, p) * f.share[p]
	}
	order := make([]int, 0, 2)
	for range 2 {
		best := -1
		for p := range P {
			if (len(order) == 0 || order[0] != p) && (best < 0 || g[p] > g[best]) {
				best = p
			}
		}
		order = append(order, best)
	}
	bg := 0
	for p := range P {
		if f.border[p] > f.border[bg] {
			bg = p
		}
	}
	w := wordIndex()
	shapeOf := func(p int) int {
		best := 0
		for k, v := range f.shape[p] {
			if v > f.shape[p][best] {
				best = k
			}
		}
		return w[ShapeNames[best]]
	}
	col := func(p int) int { return w[ColourNames[p]] }
	tail := []int{w["on"], w["a"], col(bg), w["background"], tokSEP}
	var ids []int
	switch {
	case g[order[1]] > objectThreshold:
		ids = append([]int{w["a"], col(order[0]), shapeOf(order[0]), w["and"], w["a"], col(order[1]), shapeOf(order[1])}, tail...)
	case g[order[0]] > objectThreshold:
		ids = append([]int{w["a"], col(order[0]), shapeOf(order[0])}, tail...)
	default:
		ids = []int{w["a"], col(bg), w["background"], tokSEP}
	}
	return ids
}

// EncoderGraph returns encoder_model.onnx.
func (c *ColourCaptioner) EncoderGraph() *Graph {
	m := c.Model
	P, K := int64(len(ColourNames)), int64(len(ShapeNames))
	V := int64(m.vocab)
	g := NewGraph("colour_caption_encoder")
	v := m.emit(g)
	share, border, shape, weight := v.share, v.border, v.shape, v.weight
	gw := g.Op("Mul", nil, weight, share) // (B, P)
	vals := g.unique("top_values")
	idx := g.unique("top_indices")
	g.Node("TopK", []string{gw, g.Ints("k", []int64{2}, 1)}, []string{vals, idx}, AttrInt("axis", 1), AttrInt("largest", 1), AttrInt("sorted", 1))
	bg := g.Op("ArgMax", []Attr{AttrInt("axis", 1), AttrInt("keepdims", 0)}, border) // (B)
	// The shapes of the two objects: gather their rows of shape (B, P, K).
	ie := g.Op("Expand", nil, g.Op("Unsqueeze", nil, idx, g.Ints("a2", []int64{2}, 1)), g.Ints("ek", []int64{1, 2, K}, 3))
	objShape := g.Op("ArgMax", []Attr{AttrInt("axis", 2), AttrInt("keepdims", 0)}, g.Op("GatherElements", []Attr{AttrInt("axis", 1)}, shape, ie)) // (B, 2)
	w := wordIndex()
	colTok := make([]int64, P)
	for p, n := range ColourNames {
		colTok[p] = int64(w[n])
	}
	shpTok := make([]int64, K)
	for k, n := range ShapeNames {
		shpTok[k] = int64(w[n])
	}
	ct := g.Ints("colour_tokens", colTok, P)
	st := g.Ints("shape_tokens", shpTok, K)
	objCol := g.Op("Gather", []Attr{AttrInt("axis", 0)}, ct, idx)      // (B, 2)
	objShp := g.Op("Gather", []Attr{AttrInt("axis", 0)}, st, objShape) // (B, 2)
	bgTok := g.Op("Gather", []Attr{AttrInt("axis", 0)}, ct, bg)        // (B)
	column := func(x string, j int64) string {                         // (B, 2) -> (B, 1)
		return g.Op("Gather", []Attr{AttrInt("axis", 1)}, x, g.Ints("col", []int64{j}, 1))
	}
	zero := g.Op("Mul", nil, g.Op("Unsqueeze", nil, bgTok, g.Ints("a1", []int64{1}, 1)), g.Ints("zero", []int64{0}, 1)) // (B, 1)
	fixed := func(id int) string { return g.Op("Add", nil, zero, g.Ints("tok", []int64{int64(id)}, 1)) }
	bgCol := g.Op("Unsqueeze", nil, bgTok, g.Ints("a1", []int64{1}, 1))
	seq := func(parts ...string) string {
		for len(parts) < captionSteps {
			parts = append(parts, fixed(tokSEP))
		}
		return g.Op("Concat", []Attr{AttrInt("axis", 1)}, parts...)
	}
	tail := []string{fixed(w["on"]), fixed(w["a"]), bgCol, fixed(w["background"]), fixed(tokSEP)}
	two := seq(append([]string{fixed(w["a"]), column(objCol, 0), column(objShp, 0), fixed(w["and"]), fixed(w["a"]), column(objCol, 1), column(objShp, 1)}, tail...)...)
	one := seq(append([]string{fixed(w["a"]), column(objCol, 0), column(objShp, 0)}, tail...)...)
	none := seq(fixed(w["a"]), bgCol, fixed(w["background"]), fixed(tokSEP))
	thr := g.Scalar("object_threshold", objectThreshold)
	has1 := g.Op("Greater", nil, column(vals, 0), thr)
	has2 := g.Op("Greater", nil, column(vals, 1), thr)
	ids := g.Op("Where", nil, has2, two, g.Op("Where", nil, has1, one, none)) // (B, steps)
	eye := make([]float32, V*V)
	for i := range V {
		eye[i*V+i] = planLogit
	}
	plan := g.gather(eye, int(V), int(V), ids, "token_logits")
	g.Output(plan, "last_hidden_state", Float, "batch_size", captionSteps, int(V))
	return g
}

// DecoderGraph returns decoder_model_merged.onnx: logits of step t = row t
// of the plan, t the length of the cache handed in.
func (c *ColourCaptioner) DecoderGraph() *Graph {
	V := c.Model.vocab
	g := NewGraph("colour_caption_decoder")
	ids := g.Input("input_ids", Int64, "batch_size", "decoder_sequence_length")
	enc := g.Input("encoder_hidden_states", Float, "batch_size", "encoder_sequence_length", V)
	pk := g.Input("past_key_values.0.key", Float, "batch_size", 1, "past_sequence_length", 1)
	pv := g.Input("past_key_values.0.value", Float, "batch_size", 1, "past_sequence_length", 1)
	step := g.Op("Gather", []Attr{AttrInt("axis", 0)}, g.Op("Shape", nil, pk), g.Ints("dim2", []int64{2}, 1)) // (1)
	step = g.Op("Min", nil, step, g.Ints("last_step", []int64{captionSteps - 1}, 1))
	row := g.Op("Gather", []Attr{AttrInt("axis", 1)}, enc, step) // (B, 1, V)
	g.Output(row, "logits", Float, "batch_size", 1, V)
	// One more cache slot per step: zeros shaped (B, 1, 1, 1) from input_ids.
	z := g.Op("Mul", nil, g.Op("Cast", []Attr{AttrInt("to", int64(Float))}, ids), g.Scalar("zero", 0)) // (B, T)
	z = g.Op("ReduceSum", []Attr{AttrInt("keepdims", 1)}, z, g.Ints("seq", []int64{1}, 1))             // (B, 1)
	z = g.Op("Unsqueeze", nil, z, g.Ints("a23", []int64{2, 3}, 2))                                     // (B, 1, 1, 1)
	g.Output(g.Op("Concat", []Attr{AttrInt("axis", 2)}, pk, z), "present.0.key", Float, "batch_size", 1, "present_sequence_length", 1)
	g.Output(g.Op("Concat", []Attr{AttrInt("axis", 2)}, pv, z), "present.0.value", Float, "batch_size", 1, "present_sequence_length", 1)
	return g
}

// WriteDir writes the captioner folder: encoder_model.onnx,
// decoder_model_merged.onnx, tokenizer.json, config.json ([CLS] starts,
// [SEP] ends) and preprocessor_config.json.
func (c *ColourCaptioner) WriteDir(dir string) error {
	err := writeAll(dir, map[string]*Graph{"encoder_model.onnx": c.EncoderGraph(), "decoder_model_merged.onnx": c.DecoderGraph()}, map[string]any{
		"config.json": map[string]any{"model_type": "vision-encoder-decoder", "decoder_start_token_id": tokCLS,
			"eos_token_id": tokSEP, "pad_token_id": tokPad, "decoder": map[string]any{"vocab_size": c.Model.vocab}},
		"preprocessor_config.json": c.Model.preprocessor(),
	})
	if err != nil {
		return err
	}
	return WriteColourTokenizer(filepath.Join(dir, "tokenizer.json"))
}

// ColourImageSize is the image side of the colour models in
// WriteColourModels.
const ColourImageSize = 112

// WriteColourModels writes a models directory holding the colour models:
// models.json naming image_text (ColourModel), captioner (ColourCaptioner)
// and asr (ToneASR, which hears the world's tones as colour words), each in
// its own folder with the shared tokenizer.
func WriteColourModels(dir string) error {
	m := NewColourModel(ColourImageSize)
	if err := m.WriteDir(filepath.Join(dir, "image_text")); err != nil {
		return err
	}
	if err := (&ColourCaptioner{Model: m}).WriteDir(filepath.Join(dir, "captioner")); err != nil {
		return err
	}
	if err := (ToneASR{}).WriteDir(filepath.Join(dir, "asr")); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "models.json"), map[string]any{"roles": map[string]any{
		"image_text": map[string]any{"dir": "image_text", "max_length": 77, "logit_scale": 100},
		"captioner":  map[string]any{"dir": "captioner", "max_new_tokens": captionSteps},
		"asr":        map[string]any{"dir": "asr", "max_new_tokens": toneSteps},
	}})
}
