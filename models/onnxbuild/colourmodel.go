package onnxbuild

import (
	"math"
	"slices"
)

// ColourModel is an image_text model built by hand, not trained: its image
// tower measures which named colours a frame holds and what shape each
// coloured region has, and its text tower maps colour and shape words into
// the same space, so that CLIP-style zero-shot scoring works on any video
// for those words. Both towers are fixed functions, written twice: as ONNX
// graphs (VisionGraph, TextGraph) and directly in Go (ImageEmbed,
// TextEmbed), which the tests compare on decoded frames.
//
// The image tower, on a preprocessed image (3 x Size x Size, normalised
// with Mean and Std):
//
//  1. each pixel's membership of each colour: a softmax over the colours of
//     -d^2 / (2 Sigma^2), d the RGB distance (0-1) to the colour's prototype;
//  2. a pixel belongs to a colour's mask when its membership exceeds 1/2;
//     the mask is eroded by a 3x3 minimum, which drops the one- or two-pixel
//     seams where H.264 blends two colours into a third (blue and yellow
//     blend to grey) and keeps each shape's proportions;
//  3. per colour, on the eroded mask: its share of the frame (the square
//     root is the colour's coordinate, so a small object counts against a
//     large background), its presence (that share over PresenceShare, at
//     most 1), the share of the frame border it covers (a background covers
//     it all), and the share of its bounding box it fills, which a softmax
//     over -(fill - shapeFill)^2 / (2 Tau^2) turns into shape memberships;
//  4. the embedding: the colour coordinates, then for each colour and shape
//     presence x not-background (from the border share) x shape membership
//     (a coloured object of a shape, not the background), then per shape the largest of those
//     over the colours (times ShapeWeight), then a constant Kappa.
//
// The text tower sums, over a text's tokens, one-hot rows for colour words
// and for shape words, and adds their outer product (every colour word
// with every shape word of the text: "a pink square" and "the square ...
// pink" both bind pink to square), and the same constant: a text without
// colour or shape words scores every frame alike.
type ColourModel struct {
	Size        int        // image side after preprocessing
	Mean, Std   [3]float32 // preprocessing normalisation
	Sigma, Tau  float32
	Presence    float32 // PresenceShare: the share of the frame at which a colour counts as fully present
	ShapeWeight float32
	Kappa       float32
	vocab       int
}

// NewColourModel returns the model at image side size (112 in the world's
// models: a shape 20% of the frame height keeps about 20 pixels).
func NewColourModel(size int) *ColourModel {
	return &ColourModel{
		Size: size, Mean: [3]float32{0.5, 0.5, 0.5}, Std: [3]float32{0.5, 0.5, 0.5},
		// 20 levels of 255: a pixel within 20 levels of a prototype is that
		// colour; blends halfway between two are split.
		Sigma: 20.0 / 255, Tau: 0.06, Presence: 0.004, ShapeWeight: 0.5, Kappa: 0.05,
		vocab: len(colourVocab()),
	}
}

// Dim is the embedding length: colours, colour x shape, shapes, constant.
func (m *ColourModel) Dim() int {
	p, k := len(ColourNames), len(ShapeNames)
	return p + p*k + k + 1
}

// regionFeatures are the per-colour measurements of one image.
type regionFeatures struct {
	share  []float32   // eroded area / pixels
	border []float32   // share of the border pixels in the mask
	fill   []float32   // mask area / bounding box area
	shape  [][]float32 // [colour][shape] memberships
}

// regions measures img (3 x Size x Size, normalised).
func (m *ColourModel) regions(img []float32) regionFeatures {
	P, K, S := len(ColourNames), len(ShapeNames), m.Size
	N := S * S
	mask := make([][]float32, P)
	for p := range mask {
		mask[p] = make([]float32, N)
	}
	inv := -1 / (2 * m.Sigma * m.Sigma)
	logit := make([]float32, P)
	for n := range N {
		var rgb [3]float32
		for c := range 3 {
			rgb[c] = img[c*N+n]*m.Std[c] + m.Mean[c]
		}
		mx := float32(math.Inf(-1))
		for p, pr := range colourPrototypes {
			var d2 float32
			for c := range 3 {
				d := rgb[c] - pr[c]/255
				d2 += d * d
			}
			logit[p] = d2 * inv
			mx = max(mx, logit[p])
		}
		var z float32
		for p := range logit {
			logit[p] = float32(math.Exp(float64(logit[p] - mx)))
			z += logit[p]
		}
		for p := range logit {
			if logit[p]/z > 0.5 {
				mask[p][n] = 1
			}
		}
	}
	f := regionFeatures{share: make([]float32, P), border: make([]float32, P), fill: make([]float32, P), shape: make([][]float32, P)}
	borderN := float32(4*S - 4)
	for p := range P {
		mk := mask[p]
		er := make([]float32, N)
		for y := range S {
			for x := range S {
				if mk[y*S+x] == 0 {
					continue
				}
				keep := float32(1)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						yy, xx := y+dy, x+dx
						if yy >= 0 && xx >= 0 && yy < S && xx < S && mk[yy*S+xx] == 0 {
							keep = 0 // MaxPool's padding is ignored: only pixels inside count
						}
					}
				}
				er[y*S+x] = keep
			}
		}
		var eroded, bord float32
		cols := make([]bool, S)
		rows := make([]bool, S)
		for y := range S {
			for x := range S {
				if er[y*S+x] == 0 {
					continue
				}
				eroded++
				cols[x], rows[y] = true, true
				if x == 0 || y == 0 || x == S-1 || y == S-1 {
					bord++
				}
			}
		}
		area := eroded
		var w, h float32
		for i := range S {
			if cols[i] {
				w++
			}
			if rows[i] {
				h++
			}
		}
		f.share[p] = eroded / float32(N)
		f.border[p] = bord / borderN
		f.fill[p] = area / max(w*h, 1)
		f.shape[p] = make([]float32, K)
		tinv := -1 / (2 * m.Tau * m.Tau)
		mx := float32(math.Inf(-1))
		for k := range K {
			d := f.fill[p] - shapeFill[k]
			f.shape[p][k] = d * d * tinv
			mx = max(mx, f.shape[p][k])
		}
		var z float32
		for k := range K {
			f.shape[p][k] = float32(math.Exp(float64(f.shape[p][k] - mx)))
			z += f.shape[p][k]
		}
		for k := range K {
			f.shape[p][k] /= z
		}
	}
	return f
}

// objectWeight is presence x notBackground of colour p: how much of an
// object, rather than a background, the colour is.
func (m *ColourModel) objectWeight(f regionFeatures, p int) float32 {
	pres := min(max(f.share[p]/m.Presence, 0), 1)
	return pres * notBackground(f.border[p])
}

// notBackground maps the share of the frame border a colour covers to how
// little it is the background: 1 up to a tenth of the border (an object
// may touch an edge), 0 from half of it (a background, even one that
// objects hide in places), linear between.
func notBackground(border float32) float32 {
	return min(max((borderBackground-border)/(borderBackground-borderObject), 0), 1)
}

const (
	borderObject     = 0.1
	borderBackground = 0.5
)

// ImageEmbed returns image_embeds (not normalised) of one preprocessed image.
func (m *ColourModel) ImageEmbed(img []float32) []float32 {
	P, K := len(ColourNames), len(ShapeNames)
	f := m.regions(img)
	out := make([]float32, 0, m.Dim())
	for p := range P {
		out = append(out, float32(math.Sqrt(float64(f.share[p]))))
	}
	best := make([]float32, K)
	for p := range P {
		w := m.objectWeight(f, p)
		for k := range K {
			j := w * f.shape[p][k]
			out = append(out, j)
			best[k] = max(best[k], j)
		}
	}
	for k := range K {
		out = append(out, best[k]*m.ShapeWeight)
	}
	return append(out, m.Kappa)
}

// TextEmbed returns text_embeds (not normalised) of one token sequence.
func (m *ColourModel) TextEmbed(ids []int) []float32 {
	P, K := len(ColourNames), len(ShapeNames)
	cs, ss := make([]float32, P), make([]float32, K)
	col, shp := colourOfToken(), shapeOfToken()
	for _, id := range ids {
		if c := col[id]; c >= 0 {
			cs[c]++
		}
		if s := shp[id]; s >= 0 {
			ss[s]++
		}
	}
	out := slices.Clone(cs)
	for p := range P {
		for k := range K {
			out = append(out, cs[p]*ss[k])
		}
	}
	out = append(out, ss...)
	return append(out, m.Kappa)
}

// VisionGraph returns vision_model.onnx: pixel_values (batch, 3, Size,
// Size) -> image_embeds (batch, Dim).
func (m *ColourModel) VisionGraph() *Graph {
	g := NewGraph("colour_vision")
	v := m.emit(g)
	g.Output(v.embed, "image_embeds", Float, "batch_size", m.Dim())
	return g
}

// colourValues names the values of the image tower that the captioner
// reads too: per colour (batch, P) the eroded share, the border share and
// the object weight; (batch, P, K) the shape memberships.
type colourValues struct {
	share, border, weight, shape, embed string
}

// emit adds the image tower to g, from a pixel_values input.
func (m *ColourModel) emit(g *Graph) colourValues {
	P, K, S := int64(len(ColourNames)), int64(len(ShapeNames)), int64(m.Size)
	N := S * S
	x := g.Input("pixel_values", Float, "batch_size", 3, m.Size, m.Size)
	x = g.Op("Add", nil, g.Op("Mul", nil, x, g.Floats("std", m.Std[:], 1, 3, 1, 1)), g.Floats("mean", m.Mean[:], 1, 3, 1, 1))
	x = g.Op("Reshape", nil, x, g.Ints("flat", []int64{0, 3, N}, 3))
	xt := g.Op("Transpose", []Attr{AttrInts("perm", 0, 2, 1)}, x) // (B, N, 3)
	protoT := make([]float32, 3*P)
	pp := make([]float32, P)
	for p, pr := range colourPrototypes {
		for c := range 3 {
			v := pr[c] / 255
			protoT[int64(c)*P+int64(p)] = v
			pp[p] += v * v
		}
	}
	cross := g.Op("MatMul", nil, xt, g.Floats("prototypes", protoT, 3, P))
	sq := g.Op("ReduceSum", []Attr{AttrInt("keepdims", 1)}, g.Op("Mul", nil, xt, xt), g.Ints("axes", []int64{2}, 1))
	d2 := g.Op("Add", nil, g.Op("Sub", nil, sq, g.Op("Mul", nil, cross, g.Scalar("two", 2))), g.Floats("proto_sq", pp, P))
	inv := -1 / (2 * m.Sigma * m.Sigma)
	memb := g.Op("Softmax", []Attr{AttrInt("axis", 2)}, g.Op("Mul", nil, d2, g.Scalar("inv_2sigma2", inv)))
	mt := g.Op("Transpose", []Attr{AttrInts("perm", 0, 2, 1)}, memb) // (B, P, N)
	hard := g.Op("Cast", []Attr{AttrInt("to", int64(Float))}, g.Op("Greater", nil, mt, g.Scalar("half", 0.5)))
	hard4 := g.Op("Reshape", nil, hard, g.Ints("grid", []int64{0, P, S, S}, 4))
	neg := g.Op("Neg", nil, hard4)
	eroded := g.Op("Neg", nil, g.Op("MaxPool", []Attr{AttrInts("kernel_shape", 3, 3), AttrInts("pads", 1, 1, 1, 1), AttrInts("strides", 1, 1)}, neg))
	hw := g.Ints("hw", []int64{2, 3}, 2)
	area := g.Op("ReduceSum", []Attr{AttrInt("keepdims", 0)}, eroded, hw)
	share := g.Op("Div", nil, area, g.Scalar("pixels", float32(N)))
	last := g.Ints("last", []int64{2}, 1)
	width := g.Op("ReduceSum", []Attr{AttrInt("keepdims", 0)}, g.Op("ReduceMax", []Attr{AttrInts("axes", 2), AttrInt("keepdims", 0)}, eroded), last)
	height := g.Op("ReduceSum", []Attr{AttrInt("keepdims", 0)}, g.Op("ReduceMax", []Attr{AttrInts("axes", 3), AttrInt("keepdims", 0)}, eroded), last)
	fill := g.Op("Div", nil, area, g.Op("Max", nil, g.Op("Mul", nil, width, height), g.Scalar("one", 1)))
	bvec := make([]float32, N)
	for y := range S {
		for xx := range S {
			if xx == 0 || y == 0 || xx == S-1 || y == S-1 {
				bvec[y*S+xx] = 1 / float32(4*S-4)
			}
		}
	}
	erodedFlat := g.Op("Reshape", nil, eroded, g.Ints("flat_mask", []int64{0, P, N}, 3))
	border := g.Op("Reshape", nil, g.Op("MatMul", nil, erodedFlat, g.Floats("border", bvec, N, 1)), g.Ints("bp", []int64{0, P}, 2))
	// Shape memberships (B, P, K).
	fd := g.Op("Sub", nil, g.Op("Unsqueeze", nil, fill, last), g.Floats("shape_fill", shapeFill, K))
	tinv := -1 / (2 * m.Tau * m.Tau)
	shape := g.Op("Softmax", []Attr{AttrInt("axis", 2)}, g.Op("Mul", nil, g.Op("Mul", nil, fd, fd), g.Scalar("inv_2tau2", tinv)))
	pres := g.Op("Clip", nil, g.Op("Div", nil, share, g.Scalar("presence", m.Presence)), g.Scalar("zero", 0), g.Scalar("one", 1))
	nbg := g.Op("Div", nil, g.Op("Sub", nil, g.Scalar("border_background", borderBackground), border), g.Scalar("border_range", borderBackground-borderObject))
	weight := g.Op("Mul", nil, pres, g.Op("Clip", nil, nbg, g.Scalar("zero", 0), g.Scalar("one", 1)))
	joint := g.Op("Mul", nil, shape, g.Op("Unsqueeze", nil, weight, last)) // (B, P, K)
	best := g.Op("Mul", nil, g.Op("ReduceMax", []Attr{AttrInts("axes", 1), AttrInt("keepdims", 0)}, joint), g.Scalar("shape_weight", m.ShapeWeight))
	kappa := g.Op("Add", nil, g.Op("ReduceSum", []Attr{AttrInt("keepdims", 1)}, g.Op("Mul", nil, share, g.Scalar("zero", 0)), g.Ints("axis1", []int64{1}, 1)), g.Scalar("kappa", m.Kappa))
	emb := g.Op("Concat", []Attr{AttrInt("axis", 1)},
		g.Op("Sqrt", nil, share), g.Op("Reshape", nil, joint, g.Ints("joint", []int64{0, P * K}, 2)), best, kappa)
	return colourValues{share: share, border: border, weight: weight, shape: shape, embed: emb}
}

// TextGraph returns text_model.onnx: input_ids (batch, sequence) ->
// text_embeds (batch, Dim). Padding ([PAD], id 0) names nothing, so no
// attention mask is needed.
func (m *ColourModel) TextGraph() *Graph {
	P, K := len(ColourNames), len(ShapeNames)
	col, shp := colourOfToken(), shapeOfToken()
	ct := make([]float32, m.vocab*P)
	st := make([]float32, m.vocab*K)
	for id := range m.vocab {
		if c := col[id]; c >= 0 {
			ct[id*P+c] = 1
		}
		if s := shp[id]; s >= 0 {
			st[id*K+s] = 1
		}
	}
	g := NewGraph("colour_text")
	ids := g.Input("input_ids", Int64, "batch_size", "sequence_length")
	seq := g.Ints("seq_axis", []int64{1}, 1)
	cs := g.Op("ReduceSum", []Attr{AttrInt("keepdims", 0)}, g.gather(ct, m.vocab, P, ids, "colour_words"), seq)
	ss := g.Op("ReduceSum", []Attr{AttrInt("keepdims", 0)}, g.gather(st, m.vocab, K, ids, "shape_words"), seq)
	joint := g.Op("Mul", nil, g.Op("Unsqueeze", nil, cs, g.Ints("a2", []int64{2}, 1)), g.Op("Unsqueeze", nil, ss, g.Ints("a1", []int64{1}, 1)))
	joint = g.Op("Reshape", nil, joint, g.Ints("joint", []int64{0, int64(P * K)}, 2))
	kappa := g.Op("Add", nil, g.Op("ReduceSum", []Attr{AttrInt("keepdims", 1)}, g.Op("Mul", nil, cs, g.Scalar("zero", 0)), seq), g.Scalar("kappa", m.Kappa))
	emb := g.Op("Concat", []Attr{AttrInt("axis", 1)}, cs, joint, ss, kappa)
	g.Output(emb, "text_embeds", Float, "batch_size", m.Dim())
	return g
}

// preprocessor is the ViT-style preprocessor_config.json of the colour
// models: resize to Size x Size (bilinear), no crop (a crop would cut off
// the sides of a wide frame, and the objects in them), mean and std 0.5.
func (m *ColourModel) preprocessor() map[string]any {
	return map[string]any{
		"image_processor_type": "ViTImageProcessor",
		"do_resize":            true, "size": map[string]int{"height": m.Size, "width": m.Size}, "resample": 2,
		"do_rescale": true, "rescale_factor": 1.0 / 255,
		"do_normalize": true, "image_mean": m.Mean[:], "image_std": m.Std[:],
	}
}

// WriteDir writes the image_text folder: text_model.onnx, vision_model.onnx,
// tokenizer.json, config.json and preprocessor_config.json.
func (m *ColourModel) WriteDir(dir string) error {
	err := writeAll(dir, map[string]*Graph{"text_model.onnx": m.TextGraph(), "vision_model.onnx": m.VisionGraph()}, map[string]any{
		"config.json": map[string]any{"model_type": "vidscreen-colour-shape", "projection_dim": m.Dim(),
			"colours": ColourNames, "shapes": ShapeNames, "image_size": m.Size},
		"preprocessor_config.json": m.preprocessor(),
	})
	if err != nil {
		return err
	}
	return WriteColourTokenizer(dir + "/tokenizer.json")
}
