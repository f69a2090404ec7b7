package onnxbuild

import (
	"fmt"
	"math"
)

// This file emits the graph side of the layers in weights.go; reference.go
// computes the same functions directly in Go.

func (g *Graph) linear(x string, l Linear, name string) string {
	w := g.Floats(name+".weight", l.W, int64(l.In), int64(l.Out))
	b := g.Floats(name+".bias", l.B, int64(l.Out))
	return g.Op("Add", nil, g.Op("MatMul", nil, x, w), b)
}

func (g *Graph) layerNorm(x string, ln LayerNorm, name string) string {
	d := int64(len(ln.Gamma))
	gm := g.Floats(name+".weight", ln.Gamma, d)
	bt := g.Floats(name+".bias", ln.Beta, d)
	return g.Op("LayerNormalization", []Attr{AttrInt("axis", -1), AttrFloat("epsilon", ln.Eps)}, x, gm, bt)
}

// gelu is the exact (erf) GELU: 0.5 x (1 + erf(x / sqrt 2)). Opset 17 has no
// Gelu operator (it arrives in opset 20).
func (g *Graph) gelu(x string) string {
	e := g.Op("Erf", nil, g.Op("Div", nil, x, g.Scalar("sqrt2", float32(math.Sqrt2))))
	h := g.Op("Add", nil, e, g.Scalar("one", 1))
	return g.Op("Mul", nil, g.Op("Mul", nil, x, h), g.Scalar("half", 0.5))
}

// splitHeads turns (B, T, D) into (B, H, T, D/H).
func (g *Graph) splitHeads(x string, heads, d int) string {
	shape := g.Ints("heads_shape", []int64{0, 0, int64(heads), int64(d / heads)}, 4)
	r := g.Op("Reshape", nil, x, shape)
	return g.Op("Transpose", []Attr{AttrInts("perm", 0, 2, 1, 3)}, r)
}

// mergeHeads turns (B, H, T, D/H) into (B, T, D).
func (g *Graph) mergeHeads(x string, d int) string {
	t := g.Op("Transpose", []Attr{AttrInts("perm", 0, 2, 1, 3)}, x)
	return g.Op("Reshape", nil, t, g.Ints("merge_shape", []int64{0, 0, int64(d)}, 3))
}

// pastKV names the cache tensors of one attention layer: past inputs (may be
// empty, with a sequence length of 0) and the present outputs they become.
type pastKV struct {
	pastK, pastV       string
	presentK, presentV string
}

// attention emits multi-head attention of query rows xq over key/value rows
// xkv. bias, when not "", is added to the scores and must broadcast to
// (B, H, Tq, Tk). With cache set, new keys and values are appended to the
// past ones (or start the cache, when cache.pastK is "") and the results are
// exposed under the present names.
func (g *Graph) attention(xq, xkv, bias string, a Attention, name string, cache *pastKV) string {
	d := a.Q.In
	q := g.splitHeads(g.linear(xq, a.Q, name+".q"), a.Heads, d)
	k := g.splitHeads(g.linear(xkv, a.K, name+".k"), a.Heads, d)
	v := g.splitHeads(g.linear(xkv, a.V, name+".v"), a.Heads, d)
	switch {
	case cache != nil && cache.pastK == "":
		// First step of a decoder without past inputs: the cache starts
		// with this step's keys and values.
		g.Node("Identity", []string{k}, []string{cache.presentK})
		g.Node("Identity", []string{v}, []string{cache.presentV})
		k, v = cache.presentK, cache.presentV
	case cache != nil:
		g.Node("Concat", []string{cache.pastK, k}, []string{cache.presentK}, AttrInt("axis", 2))
		g.Node("Concat", []string{cache.pastV, v}, []string{cache.presentV}, AttrInt("axis", 2))
		k, v = cache.presentK, cache.presentV
	}
	kt := g.Op("Transpose", []Attr{AttrInts("perm", 0, 1, 3, 2)}, k)
	scale := g.Scalar("attn_scale", float32(1/math.Sqrt(float64(d/a.Heads))))
	s := g.Op("Mul", nil, g.Op("MatMul", nil, q, kt), scale)
	if bias != "" {
		s = g.Op("Add", nil, s, bias)
	}
	p := g.Op("Softmax", []Attr{AttrInt("axis", -1)}, s)
	o := g.mergeHeads(g.Op("MatMul", nil, p, v), d)
	return g.linear(o, a.O, name+".o")
}

// block emits one transformer layer (see Block).
func (g *Graph) block(x, selfBias string, b Block, name string, cache *pastKV, enc string) string {
	if b.PostLN {
		x = g.layerNorm(g.Op("Add", nil, x, g.attention(x, x, selfBias, b.Self, name+".self", cache)), b.LNSelf, name+".ln_self")
		if b.Cross != nil {
			x = g.layerNorm(g.Op("Add", nil, x, g.attention(x, enc, "", *b.Cross, name+".cross", nil)), b.LNCross, name+".ln_cross")
		}
		f := g.linear(g.gelu(g.linear(x, b.FF1, name+".ff1")), b.FF2, name+".ff2")
		return g.layerNorm(g.Op("Add", nil, x, f), b.LNFF, name+".ln_ff")
	}
	h := g.layerNorm(x, b.LNSelf, name+".ln_self")
	x = g.Op("Add", nil, x, g.attention(h, h, selfBias, b.Self, name+".self", cache))
	if b.Cross != nil {
		h = g.layerNorm(x, b.LNCross, name+".ln_cross")
		x = g.Op("Add", nil, x, g.attention(h, enc, "", *b.Cross, name+".cross", nil))
	}
	h = g.layerNorm(x, b.LNFF, name+".ln_ff")
	f := g.linear(g.gelu(g.linear(h, b.FF1, name+".ff1")), b.FF2, name+".ff2")
	return g.Op("Add", nil, x, f)
}

// paddingBias turns an attention_mask (B, S) of 0/1 int64 into an additive
// score bias (B, 1, 1, S): 0 where the mask is 1, maskValue where it is 0.
func (g *Graph) paddingBias(mask string) string {
	m := g.Op("Cast", []Attr{AttrInt("to", int64(Float))}, mask)
	inv := g.Op("Sub", nil, g.Scalar("one", 1), m)
	b := g.Op("Mul", nil, inv, g.Scalar("mask_value", maskValue))
	return g.Op("Unsqueeze", nil, b, g.Ints("axes", []int64{1, 2}, 2))
}

// causalBias returns a (T, P+T) additive bias that lets query row t (at
// absolute position P+t) see keys 0..P+t, sliced from a constant
// maxPos x maxPos triangle. past is a (B, H, P, Dh) tensor or "" for P = 0;
// tokens is a (B, T, ...) tensor giving T.
func (g *Graph) causalBias(tokens, past string, maxPos int) string {
	tri := make([]float32, maxPos*maxPos)
	for i := 0; i < maxPos; i++ {
		for j := i + 1; j < maxPos; j++ {
			tri[i*maxPos+j] = maskValue
		}
	}
	triName := g.Floats("causal_triangle", tri, int64(maxPos), int64(maxPos))
	t := g.Op("Shape", []Attr{AttrInt("start", 1), AttrInt("end", 2)}, tokens)
	p := g.Ints("zero", []int64{0}, 1)
	if past != "" {
		p = g.Op("Shape", []Attr{AttrInt("start", 2), AttrInt("end", 3)}, past)
	}
	l := g.Op("Add", nil, p, t)
	starts := g.Op("Concat", []Attr{AttrInt("axis", 0)}, p, g.Ints("zero", []int64{0}, 1))
	ends := g.Op("Concat", []Attr{AttrInt("axis", 0)}, l, l)
	return g.Op("Slice", nil, triName, starts, ends, g.Ints("axes", []int64{0, 1}, 2))
}

// positionRows slices rows [P, P+T) of a position table (maxPos, D), where P
// is the past length (0 when past is "") and T the length of tokens.
func (g *Graph) positionRows(table, tokens, past string) string {
	t := g.Op("Shape", []Attr{AttrInt("start", 1), AttrInt("end", 2)}, tokens)
	p := g.Ints("zero", []int64{0}, 1)
	if past != "" {
		p = g.Op("Shape", []Attr{AttrInt("start", 2), AttrInt("end", 3)}, past)
	}
	return g.Op("Slice", nil, table, p, g.Op("Add", nil, p, t), g.Ints("axes", []int64{0}, 1))
}

// patchEmbed turns pixel_values (B, C, H, W) into patch rows (B, P, D) with a
// strided convolution, adding a learned position row per patch.
func (g *Graph) patchEmbed(pixels string, pe PatchEmbed, name string) string {
	w := g.Floats(name+".weight", pe.W, int64(pe.Dim), int64(pe.Channels), int64(pe.Patch), int64(pe.Patch))
	b := g.Floats(name+".bias", pe.B, int64(pe.Dim))
	c := g.Op("Conv", []Attr{AttrInts("kernel_shape", int64(pe.Patch), int64(pe.Patch)), AttrInts("strides", int64(pe.Patch), int64(pe.Patch))}, pixels, w, b)
	r := g.Op("Reshape", nil, c, g.Ints("patch_shape", []int64{0, int64(pe.Dim), -1}, 3))
	t := g.Op("Transpose", []Attr{AttrInts("perm", 0, 2, 1)}, r)
	pos := g.Floats(name+".position", pe.Pos, int64(pe.Patches()), int64(pe.Dim))
	return g.Op("Add", nil, t, pos)
}

func (g *Graph) gather(table []float32, rows, dim int, ids, name string) string {
	t := g.Floats(name, table, int64(rows), int64(dim))
	return g.Op("Gather", []Attr{AttrInt("axis", 0)}, t, ids)
}

func cacheNames(layer int) pastKV {
	return pastKV{
		pastK:    fmt.Sprintf("past_key_values.%d.key", layer),
		pastV:    fmt.Sprintf("past_key_values.%d.value", layer),
		presentK: fmt.Sprintf("present.%d.key", layer),
		presentV: fmt.Sprintf("present.%d.value", layer),
	}
}
