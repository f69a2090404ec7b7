package models

import (
	"context"
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// ImageBatch is N preprocessed images in NCHW order (models/imageprep makes
// them from decoded RGB frames).
type ImageBatch struct {
	N, C, H, W int
	Data       []float32
}

// image returns image i's C x H x W values.
func (b ImageBatch) image(i int) []float32 {
	n := b.C * b.H * b.W
	return b.Data[i*n : (i+1)*n]
}

func (b ImageBatch) slice(lo, hi int) ImageBatch {
	n := b.C * b.H * b.W
	return ImageBatch{N: hi - lo, C: b.C, H: b.H, W: b.W, Data: b.Data[lo*n : hi*n]}
}

func (b ImageBatch) check() error {
	if b.N == 0 && len(b.Data) == 0 {
		return nil // no images (a text-only VLM prompt)
	}
	if b.N < 0 || b.C <= 0 || b.H <= 0 || b.W <= 0 || len(b.Data) != b.N*b.C*b.H*b.W {
		return fmt.Errorf("image batch %dx%dx%dx%d holds %d values", b.N, b.C, b.H, b.W, len(b.Data))
	}
	return nil
}

// ImageText runs a CLIP/SigLIP-like pair of towers: unit image and text
// embeddings in one space, and the logit scale (and bias) that turns their
// cosines into zero-shot logits.
type ImageText struct {
	// prep makes images from frames (preprocessor_config.json); nil
	// when the runner was built from sessions alone.
	prep         *imageprep.Processor
	text, vision *Session
	tok          Tokenizer
	maxLen       int
	padToMax     bool
	padLeft      bool
	pad          int
	scale, bias  float64
	// sigmoid marks SigLIP's zero-shot rule (ZeroShot).
	sigmoid bool
	// textOut and imageOut are the towers' embedding outputs: text_embeds
	// and image_embeds (CLIP, transformers.js exports), or pooler_output
	// (Optimum's SigLIP text_model.onnx and vision_model.onnx).
	textOut, imageOut string
	dim               int
	c, h, w           int
	// MaxBatch caps rows per run of either tower (default 32).
	MaxBatch int
}

// defaultCLIPMaxLen is CLIP's context length (openai/CLIP, 77 tokens).
const defaultCLIPMaxLen = 77

// defaultLogitScale is CLIP's trained logit scale, exp(4.6052) = 100 (the
// CLIP paper clamps it there, section 2.5).
const defaultLogitScale = 100

// NewImageText wraps the two towers. spec supplies max_length, the
// padding, logit_scale, logit_bias and zero_shot (defaults 77, texts padded
// to their length bucket, 100, 0, softmax); OpenImageText fills what the
// folder's config.json and tokenizer files say before calling it.
func NewImageText(text, vision *Session, tok Tokenizer, spec RoleSpec) (*ImageText, error) {
	sigs := signatures[RoleImageText]
	if err := sigs["text_model.onnx"].err(text); err != nil {
		return nil, err
	}
	if err := sigs["vision_model.onnx"].err(vision); err != nil {
		return nil, err
	}
	m := &ImageText{text: text, vision: vision, tok: tok, maxLen: spec.MaxLength, padToMax: spec.PadToMaxLength, pad: spec.PadID,
		padLeft: spec.padLeft, scale: spec.LogitScale, bias: spec.LogitBias, sigmoid: spec.ZeroShot == ZeroShotSigmoid, MaxBatch: 32}
	if m.maxLen <= 0 {
		m.maxLen = defaultCLIPMaxLen
	}
	if m.scale == 0 {
		m.scale = defaultLogitScale
	}
	m.textOut = embeddingOutput(text, "text_embeds")
	m.imageOut = embeddingOutput(vision, "image_embeds")
	te, _ := text.Output(m.textOut)
	ie, _ := vision.Output(m.imageOut)
	if len(te.Shape) != 2 || len(ie.Shape) != 2 || te.Shape[1] <= 0 || te.Shape[1] != ie.Shape[1] {
		return nil, fmt.Errorf("%s and %s: %s %v and %s %v must be (batch, dim) with the same fixed dim", text.Path(), vision.Path(), m.textOut, te.Shape, m.imageOut, ie.Shape)
	}
	m.dim = int(te.Shape[1])
	px, _ := vision.Input("pixel_values")
	if len(px.Shape) != 4 || px.Shape[1] <= 0 || px.Shape[2] <= 0 || px.Shape[3] <= 0 {
		return nil, fmt.Errorf("%s: pixel_values has shape %v; want (batch, channels, height, width) with a fixed image size", vision.Path(), px.Shape)
	}
	m.c, m.h, m.w = int(px.Shape[1]), int(px.Shape[2]), int(px.Shape[3])
	return m, nil
}

// embeddingOutput returns the tower's embedding output: name when the
// session has it, else pooler_output (Optimum's SigLIP export names both
// towers' pooled, projected vector so; the signature check has made sure one
// of the two is there).
func embeddingOutput(s *Session, name string) string {
	if _, ok := s.Output(name); ok {
		return name
	}
	return "pooler_output"
}

// Dim is the length of both embeddings.
func (m *ImageText) Dim() int { return m.dim }

// ImageSize returns the channels, height and width the vision tower takes.
func (m *ImageText) ImageSize() (c, h, w int) { return m.c, m.h, m.w }

// LogitScale and LogitBias turn a cosine into a zero-shot logit.
func (m *ImageText) LogitScale() float64 { return m.scale }

// LogitBias is added to scaled cosines (SigLIP; 0 for CLIP).
func (m *ImageText) LogitBias() float64 { return m.bias }

// Embed is EmbedTexts, so the text tower serves as a TextEmbedder.
func (m *ImageText) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return m.EmbedTexts(ctx, texts)
}

// EmbedTexts returns unit text embeddings.
func (m *ImageText) EmbedTexts(ctx context.Context, texts []string) ([][]float32, error) {
	ids, err := encodeAll(m.tok, texts, m.maxLen)
	if err != nil {
		return nil, err
	}
	return m.EmbedTextIDs(ctx, ids)
}

// TextInputs returns the input_ids rows the text tower reads for texts:
// tokenized, truncated and padded as EmbedTexts pads them (to max_length
// for SigLIP, else to each text's length bucket), so a user can compare
// them with the ids of the model's own processor.
func (m *ImageText) TextInputs(texts []string) ([][]int, error) {
	ids, err := encodeAll(m.tok, texts, m.maxLen)
	if err != nil {
		return nil, err
	}
	out := make([][]int, len(ids))
	for i, s := range ids {
		length := bucketLen(len(s), m.maxLen)
		if m.padToMax {
			length = m.maxLen
		}
		t := padTexts([][]int{s}, length, m.pad)
		if m.padLeft {
			t = padTextsLeft([][]int{s}, length, m.pad)
		}
		out[i] = make([]int, length)
		for j, v := range t.ids {
			out[i][j] = int(v)
		}
	}
	return out, nil
}

// EmbedTextIDs embeds pre-tokenized texts (with their start and end
// tokens), each padded to its length bucket.
func (m *ImageText) EmbedTextIDs(ctx context.Context, ids [][]int) ([][]float32, error) {
	lengths := make([]int, len(ids))
	for i, s := range ids {
		if len(s) == 0 || len(s) > m.maxLen {
			return nil, fmt.Errorf("text %d: %d tokens; want 1 to %d", i, len(s), m.maxLen)
		}
		lengths[i] = len(s)
		if m.padToMax {
			lengths[i] = m.maxLen
		}
	}
	out := make([][]float32, len(ids))
	for _, p := range planBatches(lengths, m.maxLen, m.MaxBatch) {
		seqs := make([][]int, len(p.rows))
		for j, i := range p.rows {
			seqs[j] = ids[i]
		}
		length := p.length
		if m.padToMax {
			length = m.maxLen
		}
		t := padTexts(seqs, length, m.pad)
		if m.padLeft {
			t = padTextsLeft(seqs, length, m.pad)
		}
		vecs, err := m.runTower(ctx, m.text, m.textOut, len(seqs), t.feed)
		if err != nil {
			return nil, err
		}
		for j, i := range p.rows {
			out[i] = vecs[j]
		}
	}
	return out, nil
}

// EmbedImages returns unit image embeddings of preprocessed images.
func (m *ImageText) EmbedImages(ctx context.Context, b ImageBatch) ([][]float32, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if b.C != m.c || b.H != m.h || b.W != m.w {
		return nil, fmt.Errorf("%s: images are %dx%dx%d, the model takes %dx%dx%d", m.vision.Path(), b.C, b.H, b.W, m.c, m.h, m.w)
	}
	var out [][]float32
	for lo := 0; lo < b.N; lo += m.MaxBatch {
		part := b.slice(lo, min(b.N, lo+m.MaxBatch))
		vecs, err := m.runTower(ctx, m.vision, m.imageOut, part.N, func(s *Session, in inputSet) error {
			v, err := floatTensor(part.Data, int64(part.N), int64(part.C), int64(part.H), int64(part.W))
			if err != nil {
				return err
			}
			in["pixel_values"] = v
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (m *ImageText) runTower(ctx context.Context, s *Session, output string, rows int, feed func(*Session, inputSet) error) ([][]float32, error) {
	in := inputSet{}
	defer in.destroy()
	if err := feed(s, in); err != nil {
		return nil, err
	}
	outs, err := s.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	defer destroyMap(outs)
	e, shape, err := floats(outs, output)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path(), err)
	}
	if len(shape) != 2 || shape[0] != int64(rows) || shape[1] != int64(m.dim) {
		return nil, fmt.Errorf("%s: %s has shape %v, want [%d %d]", s.Path(), output, shape, rows, m.dim)
	}
	vecs := make([][]float32, rows)
	for r := range vecs {
		vecs[r] = unit32(e[r*m.dim : (r+1)*m.dim])
	}
	return vecs, nil
}

// Logits returns, for each image, scale * cos(image, text) + bias for every
// text: CLIP's logits_per_image.
func (m *ImageText) Logits(images, texts [][]float32) [][]float64 {
	out := make([][]float64, len(images))
	for i, iv := range images {
		out[i] = make([]float64, len(texts))
		for j, tv := range texts {
			var dot float64
			for k := range iv {
				dot += float64(iv[k]) * float64(tv[k])
			}
			out[i][j] = m.scale*dot + m.bias
		}
	}
	return out
}

// Sigmoid reports whether zero-shot scores are SigLIP's independent
// sigmoids of the logits rather than CLIP's softmax over the texts.
func (m *ImageText) Sigmoid() bool { return m.sigmoid }

// ZeroShot returns, for each image, a log-probability per text. CLIP's
// classifier (the default) is a softmax of the logits over the texts;
// SigLIP's (zero_shot "sigmoid", set for config.json model_type siglip and
// siglip2) is log sigmoid(logit) per pair, each text's own probability of
// matching the image, as transformers' SiglipModel and its zero-shot
// pipeline compute it (sigmoid of logits_per_image): they need not sum to
// one. Both rank the texts alike; only the scores differ.
func (m *ImageText) ZeroShot(images, texts [][]float32) [][]float64 {
	logits := m.Logits(images, texts)
	for _, row := range logits {
		if m.sigmoid {
			LogSigmoid(row)
			continue
		}
		logSoftmax(row)
	}
	return logits
}

// LogSigmoid replaces v by log sigmoid(v) = -log(1 + exp(-v)), computed
// without overflow for large |v|.
func LogSigmoid(v []float64) {
	for i, x := range v {
		if x >= 0 {
			v[i] = -math.Log1p(math.Exp(-x))
		} else {
			v[i] = x - math.Log1p(math.Exp(x))
		}
	}
}

// logSoftmax replaces v by log softmax(v).
func logSoftmax(v []float64) {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = math.Max(mx, x)
	}
	var z float64
	for _, x := range v {
		z += math.Exp(x - mx)
	}
	lz := mx + math.Log(z)
	for i := range v {
		v[i] -= lz
	}
}
