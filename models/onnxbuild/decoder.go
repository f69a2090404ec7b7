package onnxbuild

import "math"

// DecoderConfig sizes a GPT-like causal decoder.
type DecoderConfig struct {
	Vocab, Hidden, Heads, Layers, FFN, MaxPos int
	// Cross adds cross-attention over encoder_hidden_states (a captioner).
	Cross bool
	// LogitsToKeep adds the scalar input num_logits_to_keep of newer
	// exports: logits only for that many last positions (LMGraph).
	LogitsToKeep bool
}

// Decoder is a pre-LN causal transformer with learned positions and a
// language-model head.
type Decoder struct {
	Config   DecoderConfig
	Tok, Pos []float32
	Blocks   []Block
	LNF      LayerNorm
	Head     Linear
}

func (w *weightSource) decoder(c DecoderConfig) *Decoder {
	d := &Decoder{Config: c}
	d.Tok = w.uniform(c.Vocab*c.Hidden, 1)
	d.Pos = w.uniform(c.MaxPos*c.Hidden, 0.5)
	for range c.Layers {
		d.Blocks = append(d.Blocks, w.block(c.Hidden, c.Heads, c.FFN, false, c.Cross, clipEps))
	}
	d.LNF = w.layerNorm(c.Hidden, clipEps)
	d.Head = w.linear(c.Hidden, c.Vocab)
	// Sharper logits than fan-in scaling gives, so that greedy choices and
	// letter probabilities differ clearly between inputs.
	for i := range d.Head.W {
		d.Head.W[i] *= 4
	}
	return d
}

// pastInputs declares the cache inputs and present outputs of every layer;
// past sequence length may be 0 on the first step.
func (d *Decoder) pastInputs(g *Graph) []pastKV {
	c := d.Config
	var caches []pastKV
	for i := range c.Layers {
		kv := cacheNames(i)
		dims := []Dim{"batch_size", c.Heads, "past_sequence_length", c.Hidden / c.Heads}
		g.Input(kv.pastK, Float, dims...)
		g.Input(kv.pastV, Float, dims...)
		caches = append(caches, kv)
	}
	return caches
}

func (d *Decoder) presentOutputs(g *Graph, caches []pastKV) {
	c := d.Config
	for _, kv := range caches {
		dims := []Dim{"batch_size", c.Heads, "total_sequence_length", c.Hidden / c.Heads}
		g.outputs = append(g.outputs, valueInfo{name: kv.presentK, dtype: Float, dims: dims},
			valueInfo{name: kv.presentV, dtype: Float, dims: dims})
	}
}

// body runs the blocks, final norm and head over x (B, T, D). keep, when
// not "", names a scalar: only that many last rows reach the head.
func (d *Decoder) body(g *Graph, x, bias string, caches []pastKV, enc, keep string) string {
	for i, b := range d.Blocks {
		var kv *pastKV
		if caches != nil {
			kv = &caches[i]
		}
		x = g.block(x, bias, b, "decoder.layer"+itoa(i), kv, enc)
	}
	x = g.layerNorm(x, d.LNF, "decoder.ln_f")
	if keep != "" {
		start := g.Op("Unsqueeze", nil, g.Op("Neg", nil, keep), g.Ints("axes", []int64{0}, 1))
		x = g.Op("Slice", nil, x, start, g.Ints("end", []int64{math.MaxInt64}, 1), g.Ints("axes", []int64{1}, 1))
	}
	return g.linear(x, d.Head, "lm_head")
}

// LMGraph is a causal LM as HF Optimum exports one for text generation:
// input_ids, attention_mask (B, past+T), position_ids -> logits (B, T, V);
// with past, also past_key_values.N.key/value -> present.N.key/value.
func (d *Decoder) LMGraph(withPast bool) *Graph {
	c := d.Config
	g := NewGraph("causal_lm")
	ids := g.Input("input_ids", Int64, "batch_size", "sequence_length")
	mask := g.Input("attention_mask", Int64, "batch_size", "total_sequence_length")
	pos := g.Input("position_ids", Int64, "batch_size", "sequence_length")
	var caches []pastKV
	past := ""
	if withPast {
		caches = d.pastInputs(g)
		past = caches[0].pastK
	}
	x := g.gather(d.Tok, c.Vocab, c.Hidden, ids, "embed_tokens")
	x = g.Op("Add", nil, x, g.gather(d.Pos, c.MaxPos, c.Hidden, pos, "embed_positions"))
	bias := g.Op("Add", nil, g.causalBias(ids, past, c.MaxPos), g.paddingBias(mask))
	keep, rows := "", Dim("sequence_length")
	if c.LogitsToKeep {
		keep, rows = g.Input("num_logits_to_keep", Int64), "num_logits"
	}
	g.Output(d.body(g, x, bias, caches, "", keep), "logits", Float, "batch_size", rows, c.Vocab)
	d.presentOutputs(g, caches)
	return g
}

// EmbedGraph is a VLM's embed_tokens.onnx: input_ids -> inputs_embeds.
func (d *Decoder) EmbedGraph() *Graph {
	c := d.Config
	g := NewGraph("embed_tokens")
	ids := g.Input("input_ids", Int64, "batch_size", "sequence_length")
	g.Output(g.gather(d.Tok, c.Vocab, c.Hidden, ids, "embed_tokens"), "inputs_embeds", Float, "batch_size", "sequence_length", c.Hidden)
	return g
}

// EmbedsGraph is a VLM's decoder taking embeddings: inputs_embeds,
// attention_mask, position_ids -> logits.
func (d *Decoder) EmbedsGraph() *Graph {
	c := d.Config
	g := NewGraph("decoder_embeds")
	x := g.Input("inputs_embeds", Float, "batch_size", "sequence_length", c.Hidden)
	mask := g.Input("attention_mask", Int64, "batch_size", "sequence_length")
	pos := g.Input("position_ids", Int64, "batch_size", "sequence_length")
	x = g.Op("Add", nil, x, g.gather(d.Pos, c.MaxPos, c.Hidden, pos, "embed_positions"))
	bias := g.Op("Add", nil, g.causalBias(x, "", c.MaxPos), g.paddingBias(mask))
	g.Output(d.body(g, x, bias, nil, "", ""), "logits", Float, "batch_size", "sequence_length", c.Vocab)
	return g
}

// EmbedsGraphWithPast is EmbedsGraph with a key-value cache, as the
// decoder_model_merged.onnx of an image-text-to-text export has one:
// inputs_embeds, attention_mask (B, past+T), position_ids,
// past_key_values.N.key/value -> logits, present.N.key/value. A prefill
// is fed an empty past; generation continues from the present outputs.
func (d *Decoder) EmbedsGraphWithPast() *Graph {
	c := d.Config
	g := NewGraph("decoder_embeds")
	x := g.Input("inputs_embeds", Float, "batch_size", "sequence_length", c.Hidden)
	mask := g.Input("attention_mask", Int64, "batch_size", "total_sequence_length")
	pos := g.Input("position_ids", Int64, "batch_size", "sequence_length")
	caches := d.pastInputs(g)
	x = g.Op("Add", nil, x, g.gather(d.Pos, c.MaxPos, c.Hidden, pos, "embed_positions"))
	bias := g.Op("Add", nil, g.causalBias(x, caches[0].pastK, c.MaxPos), g.paddingBias(mask))
	g.Output(d.body(g, x, bias, caches, "", ""), "logits", Float, "batch_size", "sequence_length", c.Vocab)
	d.presentOutputs(g, caches)
	return g
}

// CrossGraph is an image-to-text decoder with a cache, as in a
// VisionEncoderDecoder export's decoder_with_past_model.onnx: input_ids,
// encoder_hidden_states, past_key_values.N.key/value -> logits,
// present.N.key/value. Positions continue from the past length, and the past
// may be empty on the first step.
func (d *Decoder) CrossGraph(encHidden int) *Graph { return d.crossGraph(encHidden, true) }

// FirstCrossGraph is the same decoder without past inputs, as in
// decoder_model.onnx: it runs the first step and returns the cache the with-
// past model continues from.
func (d *Decoder) FirstCrossGraph(encHidden int) *Graph { return d.crossGraph(encHidden, false) }

func (d *Decoder) crossGraph(encHidden int, withPast bool) *Graph {
	c := d.Config
	g := NewGraph("decoder")
	ids := g.Input("input_ids", Int64, "batch_size", "sequence_length")
	enc := g.Input("encoder_hidden_states", Float, "batch_size", "encoder_sequence_length", encHidden)
	var caches []pastKV
	past := ""
	if withPast {
		caches = d.pastInputs(g)
		past = caches[0].pastK
	} else {
		for i := range c.Layers {
			kv := cacheNames(i)
			kv.pastK, kv.pastV = "", ""
			caches = append(caches, kv)
		}
	}
	x := g.gather(d.Tok, c.Vocab, c.Hidden, ids, "embed_tokens")
	pos := g.Floats("embed_positions", d.Pos, int64(c.MaxPos), int64(c.Hidden))
	x = g.Op("Add", nil, x, g.positionRows(pos, ids, past))
	bias := g.causalBias(ids, past, c.MaxPos)
	g.Output(d.body(g, x, bias, caches, enc, ""), "logits", Float, "batch_size", "sequence_length", c.Vocab)
	d.presentOutputs(g, caches)
	return g
}

// Embed returns the token embeddings of ids.
func (d *Decoder) Embed(ids []int) Mat { return embedRows(d.Tok, d.Config.Hidden, ids) }

// Logits computes the logits of every row of one unpadded sequence of
// embeddings at positions 0.., attending causally, and over enc when the
// decoder has cross-attention. It recomputes everything (no cache), so it
// checks the cache path of CrossGraph independently.
func (d *Decoder) Logits(embeds Mat, enc Mat) Mat {
	c := d.Config
	x := NewMat(embeds.Rows, c.Hidden)
	for i := range embeds.Rows {
		for k := range c.Hidden {
			x.V[i*c.Hidden+k] = embeds.V[i*c.Hidden+k] + d.Pos[i*c.Hidden+k]
		}
	}
	for _, b := range d.Blocks {
		x = b.apply(x, causal(0), enc, nil)
	}
	return d.Head.apply(d.LNF.apply(x))
}
