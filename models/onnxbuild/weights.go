package onnxbuild

import (
	"math"
	"math/rand/v2"
)

// weightSource draws deterministic weights from a seed (PCG), so a model
// built twice from the same config is byte-identical.
type weightSource struct{ r *rand.Rand }

func newWeightSource(seed uint64) *weightSource {
	return &weightSource{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// uniform returns n values drawn uniformly from [-scale, scale).
func (w *weightSource) uniform(n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((2*w.r.Float64() - 1) * scale)
	}
	return v
}

// around returns n values in [center-scale, center+scale).
func (w *weightSource) around(n int, center, scale float64) []float32 {
	v := w.uniform(n, scale)
	for i := range v {
		v[i] += float32(center)
	}
	return v
}

// Linear is y = x W + B with W stored row-major as In x Out, the layout of
// an ONNX MatMul's second input.
type Linear struct {
	In, Out int
	W, B    []float32
}

func (w *weightSource) linear(in, out int) Linear {
	// A scale of 1/sqrt(in) keeps activations near unit size through the
	// random layers (the usual fan-in initialisation).
	s := 1 / math.Sqrt(float64(in))
	return Linear{In: in, Out: out, W: w.uniform(in*out, s), B: w.uniform(out, 0.1)}
}

// LayerNorm holds the scale and shift of a layer normalisation over the last
// axis.
type LayerNorm struct {
	Gamma, Beta []float32
	Eps         float32
}

func (w *weightSource) layerNorm(d int, eps float32) LayerNorm {
	return LayerNorm{Gamma: w.around(d, 1, 0.2), Beta: w.uniform(d, 0.1), Eps: eps}
}

// Attention is multi-head scaled dot-product attention with its four
// projections.
type Attention struct {
	Heads      int
	Q, K, V, O Linear
}

func (w *weightSource) attention(d, heads int) Attention {
	return Attention{Heads: heads, Q: w.linear(d, d), K: w.linear(d, d), V: w.linear(d, d), O: w.linear(d, d)}
}

// Block is one transformer layer: self-attention, optional cross-attention,
// and a GELU feed-forward network. PostLN selects BERT's order (normalise
// after each residual sum); otherwise GPT/CLIP's pre-normalisation is used.
type Block struct {
	PostLN     bool
	Self       Attention
	LNSelf     LayerNorm
	Cross      *Attention
	LNCross    LayerNorm
	FF1, FF2   Linear
	LNFF       LayerNorm
	HiddenSize int
}

func (w *weightSource) block(d, heads, ffn int, postLN, cross bool, eps float32) Block {
	b := Block{PostLN: postLN, HiddenSize: d}
	b.Self = w.attention(d, heads)
	b.LNSelf = w.layerNorm(d, eps)
	if cross {
		a := w.attention(d, heads)
		b.Cross = &a
		b.LNCross = w.layerNorm(d, eps)
	}
	b.FF1 = w.linear(d, ffn)
	b.FF2 = w.linear(ffn, d)
	b.LNFF = w.layerNorm(d, eps)
	return b
}

// maskValue is the additive bias of a masked attention position: large
// enough that exp underflows to exactly zero in float32.
const maskValue = -1e9

// PatchEmbed cuts an image into Patch x Patch squares and projects each to
// Dim values (a convolution with stride Patch), then adds a position row.
type PatchEmbed struct {
	Channels, Image, Patch, Dim int
	W, B                        []float32 // W is Dim x Channels x Patch x Patch
	Pos                         []float32 // Patches() x Dim
}

// Patches is the number of patches per image.
func (p PatchEmbed) Patches() int { n := p.Image / p.Patch; return n * n }

func (w *weightSource) patchEmbed(channels, image, patch, dim int) PatchEmbed {
	pe := PatchEmbed{Channels: channels, Image: image, Patch: patch, Dim: dim}
	pe.W = w.uniform(dim*channels*patch*patch, 1/math.Sqrt(float64(channels*patch*patch)))
	pe.B = w.uniform(dim, 0.1)
	pe.Pos = w.uniform(pe.Patches()*dim, 0.5)
	return pe
}
