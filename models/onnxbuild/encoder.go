package onnxbuild

// EncoderConfig sizes a BERT-like text encoder.
type EncoderConfig struct {
	Vocab, Hidden, Heads, Layers, FFN, MaxPos int
	// TypeVocab is the number of token types; 0 leaves the token_type_ids
	// input out, as MPNet exports do.
	TypeVocab int
	Seed      uint64
}

// TinyBERT is a small encoder over BERT's uncased vocabulary (30,522 tokens,
// the size of bert-base-uncased's WordPiece tokenizer.json).
var TinyBERT = EncoderConfig{Vocab: 30522, Hidden: 32, Heads: 4, Layers: 2, FFN: 64, MaxPos: 512, TypeVocab: 2, Seed: 1}

// BERTBase has the dimensions of bert-base-uncased and BGE-base-en-v1.5
// (hidden 768, 12 heads, 12 layers, FFN 3072; config.json of those models),
// for benchmarks with random weights.
var BERTBase = EncoderConfig{Vocab: 30522, Hidden: 768, Heads: 12, Layers: 12, FFN: 3072, MaxPos: 512, TypeVocab: 2, Seed: 1}

// Encoder is a post-LN transformer encoder with the inputs and output of a
// HF Optimum feature-extraction export of BERT: input_ids, attention_mask,
// token_type_ids -> last_hidden_state.
type Encoder struct {
	Config          EncoderConfig
	Word, Pos, Type []float32
	LNEmb           LayerNorm
	Blocks          []Block
}

// bertEps is BERT's layer_norm_eps (config.json of bert-base-uncased).
const bertEps = 1e-12

// NewEncoder draws an encoder's weights from cfg.Seed.
func NewEncoder(cfg EncoderConfig) *Encoder {
	w := newWeightSource(cfg.Seed)
	m := &Encoder{Config: cfg}
	m.Word = w.uniform(cfg.Vocab*cfg.Hidden, 1)
	m.Pos = w.uniform(cfg.MaxPos*cfg.Hidden, 0.5)
	if cfg.TypeVocab > 0 {
		m.Type = w.uniform(cfg.TypeVocab*cfg.Hidden, 0.5)
	}
	m.LNEmb = w.layerNorm(cfg.Hidden, bertEps)
	for range cfg.Layers {
		m.Blocks = append(m.Blocks, w.block(cfg.Hidden, cfg.Heads, cfg.FFN, true, false, bertEps))
	}
	return m
}

// Graph returns the ONNX graph of the encoder.
func (m *Encoder) Graph() *Graph {
	c := m.Config
	g := NewGraph("encoder")
	ids := g.Input("input_ids", Int64, "batch_size", "sequence_length")
	mask := g.Input("attention_mask", Int64, "batch_size", "sequence_length")
	x := g.gather(m.Word, c.Vocab, c.Hidden, ids, "embeddings.word")
	if c.TypeVocab > 0 {
		tt := g.Input("token_type_ids", Int64, "batch_size", "sequence_length")
		x = g.Op("Add", nil, x, g.gather(m.Type, c.TypeVocab, c.Hidden, tt, "embeddings.token_type"))
	}
	pos := g.Floats("embeddings.position", m.Pos, int64(c.MaxPos), int64(c.Hidden))
	x = g.Op("Add", nil, x, g.positionRows(pos, ids, ""))
	x = g.layerNorm(x, m.LNEmb, "embeddings.ln")
	bias := g.paddingBias(mask)
	for i, b := range m.Blocks {
		x = g.block(x, bias, b, "layer"+itoa(i), nil, "")
	}
	g.Output(x, "last_hidden_state", Float, "batch_size", "sequence_length", c.Hidden)
	return g
}

// Forward returns last_hidden_state for one unpadded sequence.
func (m *Encoder) Forward(ids, typeIDs []int) Mat {
	c := m.Config
	x := embedRows(m.Word, c.Hidden, ids)
	for i := range ids {
		r := x.Row(i)
		for k := range r {
			r[k] += m.Pos[i*c.Hidden+k]
			if c.TypeVocab > 0 {
				t := 0
				if typeIDs != nil {
					t = typeIDs[i]
				}
				r[k] += m.Type[t*c.Hidden+k]
			}
		}
	}
	x = m.LNEmb.apply(x)
	for _, b := range m.Blocks {
		x = b.apply(x, nil, Mat{}, nil)
	}
	return x
}
