package models

import (
	"context"
	"fmt"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
)

// ImagePlaceholder marks, in a VLM prompt, where one image's features go.
const ImagePlaceholder = "<image>"

// VLMPrompt is one multiple-choice prompt with frames. An item's prompt
// has Parts (letters.Parts, Kind set): the reader words it and frames it
// with its chat template, the images first. Text is its plain rendering,
// or for a prompt without Parts the raw prompt: one ImagePlaceholder per
// image of Images, in order, ending where the answer letter goes.
type VLMPrompt struct {
	Text    string
	Images  ImageBatch
	Options int
	Parts   letters.Parts
}

// VLMReader scores option letters with a vision-language model exported as
// a vision encoder (pixel_values -> image_features), a token embedder
// (input_ids -> inputs_embeds) and a decoder taking inputs_embeds: the
// prompt's text embeddings and the frames' features are interleaved, and
// one prefill gives the letters' log-probabilities at the last position.
type VLMReader struct {
	// prep makes images from frames (preprocessor_config.json); nil
	// when the runner was built from sessions alone.
	prep               *imageprep.Processor
	vision, embed, dec *Session
	tok                Tokenizer
	letters            letterSet
	bos                int
	maxLen             int
	vocab, hidden      int
	imageRows          int
	featOut            string
	c, h, w            int
	// MaxBatch caps prompts per decoder run (default 8).
	MaxBatch int
	// LogitsBudget caps the logits bytes of one run (default 1 GiB).
	LogitsBudget int64
	bufs         logitsPool
	// Prompting words and frames the prompts given by their parts. With a
	// chat template, ImageToken is the token id the template's image
	// marker tokenizes to (config.json's image_token_id or
	// image_token_index): each becomes one image's feature rows, in order.
	Prompting  Prompting
	ImageToken int
}

// NewVLMReader wraps the three sessions. bos, when >= 0, starts every
// prompt (config.json's bos_token_id).
func NewVLMReader(vision, embed, dec *Session, tok Tokenizer, bos int, spec RoleSpec) (*VLMReader, error) {
	sigs := signatures[RoleVLMReader]
	for slot, s := range map[string]*Session{"vision_encoder.onnx": vision, "embed_tokens.onnx": embed, "decoder_model_merged.onnx": dec} {
		if err := sigs[slot].err(s); err != nil {
			return nil, err
		}
	}
	letters, err := newLetterSet(tok, spec.LetterVariants)
	if err != nil {
		return nil, err
	}
	v := &VLMReader{vision: vision, embed: embed, dec: dec, tok: tok, letters: letters, bos: bos, maxLen: spec.MaxLength, MaxBatch: 8, LogitsBudget: 1 << 30}
	if v.maxLen <= 0 {
		v.maxLen = defaultReaderMaxLen
	}
	v.featOut = "image_features"
	if _, ok := vision.Output(v.featOut); !ok {
		v.featOut = "image_embeds"
	}
	feat, _ := vision.Output(v.featOut)
	logits, _ := dec.Output("logits")
	emb, _ := dec.Input("inputs_embeds")
	px, _ := vision.Input("pixel_values")
	switch {
	case len(feat.Shape) != 3 || feat.Shape[1] <= 0 || feat.Shape[2] <= 0:
		return nil, fmt.Errorf("%s: %s has shape %v; want (images, rows, hidden) with fixed rows and hidden size", vision.Path(), v.featOut, feat.Shape)
	case len(logits.Shape) != 3 || logits.Shape[2] <= 0:
		return nil, fmt.Errorf("%s: logits has shape %v; want (batch, sequence, vocab)", dec.Path(), logits.Shape)
	case len(emb.Shape) != 3 || emb.Shape[2] != feat.Shape[2]:
		return nil, fmt.Errorf("%s: inputs_embeds %v does not take %s rows of %d", dec.Path(), emb.Shape, v.featOut, feat.Shape[2])
	case len(px.Shape) != 4 || px.Shape[1] <= 0 || px.Shape[2] <= 0 || px.Shape[3] <= 0:
		return nil, fmt.Errorf("%s: pixel_values has shape %v; want a fixed image size", vision.Path(), px.Shape)
	}
	v.imageRows, v.hidden, v.vocab = int(feat.Shape[1]), int(feat.Shape[2]), int(logits.Shape[2])
	v.c, v.h, v.w = int(px.Shape[1]), int(px.Shape[2]), int(px.Shape[3])
	return v, nil
}

// vlmPiece is a run of token ids or one image (index into the prompt's
// images).
type vlmPiece struct {
	ids   []int
	image int
}

// layout splits a prompt into pieces and returns its total length in rows.
func (v *VLMReader) layout(p VLMPrompt) ([]vlmPiece, int, error) {
	if p.Options < 2 || p.Options > MaxOptions {
		return nil, 0, fmt.Errorf("%d options; want 2 to %d", p.Options, MaxOptions)
	}
	if err := p.Images.check(); err != nil {
		return nil, 0, err
	}
	if p.Images.N > 0 && (p.Images.C != v.c || p.Images.H != v.h || p.Images.W != v.w) {
		return nil, 0, fmt.Errorf("images are %dx%dx%d, the model takes %dx%dx%d", p.Images.C, p.Images.H, p.Images.W, v.c, v.h, v.w)
	}
	text := p.Text
	if p.Parts.Kind != "" {
		t, special, err := v.Prompting.render(p.Parts, p.Images.N)
		if err != nil {
			return nil, 0, err
		}
		if !special {
			return v.templated(t, p.Images.N)
		}
		text = t
	}
	texts := strings.Split(text, ImagePlaceholder)
	if len(texts)-1 != p.Images.N {
		return nil, 0, fmt.Errorf("%d %s placeholders for %d images", len(texts)-1, ImagePlaceholder, p.Images.N)
	}
	var pieces []vlmPiece
	n := 0
	if v.bos >= 0 {
		pieces = append(pieces, vlmPiece{ids: []int{v.bos}, image: -1})
		n++
	}
	for i, t := range texts {
		if i > 0 {
			pieces = append(pieces, vlmPiece{image: i - 1})
			n += v.imageRows
		}
		ids, err := v.tok.Encode(t, false)
		if err != nil {
			return nil, 0, err
		}
		if len(ids) > 0 {
			pieces = append(pieces, vlmPiece{ids: ids, image: -1})
			n += len(ids)
		}
	}
	if n == 0 || n > v.maxLen {
		return nil, 0, fmt.Errorf("prompt of %d rows; want 1 to %d", n, v.maxLen)
	}
	return pieces, n, nil
}

// templated lays out a prompt the chat template wrote: its tokens (the
// template's own special tokens, none added), each ImageToken replaced by
// the next image's feature rows; the wrappers the template writes around
// the image token (Qwen2-VL's <|vision_start|>...<|vision_end|>) stay as
// text. Wrappers a processor adds beyond the template (InternVL's
// <img>...</img>, Idefics3's <fake_token_around_image><global-img>) are
// not written: docs/models.md says which exports need them.
func (v *VLMReader) templated(text string, images int) ([]vlmPiece, int, error) {
	ids, err := v.tok.Encode(text, false)
	if err != nil {
		return nil, 0, err
	}
	var pieces []vlmPiece
	n, img, start := 0, 0, 0
	for i, id := range ids {
		if id != v.ImageToken {
			continue
		}
		if i > start {
			pieces = append(pieces, vlmPiece{ids: ids[start:i], image: -1})
		}
		pieces = append(pieces, vlmPiece{image: img})
		img++
		n += (i - start) + v.imageRows
		start = i + 1
	}
	if start < len(ids) {
		pieces = append(pieces, vlmPiece{ids: ids[start:], image: -1})
		n += len(ids) - start
	}
	if img != images {
		return nil, 0, fmt.Errorf("the chat template wrote %d image tokens (id %d) for %d images", img, v.ImageToken, images)
	}
	if n == 0 || n > v.maxLen {
		return nil, 0, fmt.Errorf("prompt of %d rows; want 1 to %d", n, v.maxLen)
	}
	return pieces, n, nil
}

// Score returns, per prompt, log p(letter) for its options' letters.
func (v *VLMReader) Score(ctx context.Context, prompts []VLMPrompt) ([][]float64, error) {
	pieces := make([][]vlmPiece, len(prompts))
	lengths := make([]int, len(prompts))
	for i, p := range prompts {
		var err error
		if pieces[i], lengths[i], err = v.layout(p); err != nil {
			return nil, fmt.Errorf("prompt %d: %w", i, err)
		}
	}
	out := make([][]float64, len(prompts))
	for _, plan := range planBatches(lengths, v.maxLen, v.MaxBatch) {
		for lo := 0; lo < len(plan.rows); {
			hi := min(len(plan.rows), lo+maxRowsFor(v.LogitsBudget, plan.length, v.vocab))
			rows := plan.rows[lo:hi]
			embeds := make([]float32, len(rows)*plan.length*v.hidden)
			for j, i := range rows {
				if err := v.fill(ctx, embeds[j*plan.length*v.hidden:(j+1)*plan.length*v.hidden], pieces[i], prompts[i].Images); err != nil {
					return nil, fmt.Errorf("prompt %d: %w", i, err)
				}
			}
			fake := make([][]int, len(rows)) // lengths only, for padding
			for j, i := range rows {
				fake[j] = make([]int, lengths[i])
			}
			last, err := lastLogits(ctx, v.dec, &v.bufs, fake, plan.length, plan.length, v.vocab, func(in inputSet) error {
				t := padTexts(fake, plan.length, 0)
				e, err := floatTensor(embeds, int64(len(rows)), int64(plan.length), int64(v.hidden))
				if err != nil {
					return err
				}
				in["inputs_embeds"] = e
				for name, data := range map[string][]int64{"attention_mask": t.mask, "position_ids": t.pos} {
					if _, ok := v.dec.Input(name); ok {
						x, err := int64Tensor(data, int64(len(rows)), int64(plan.length))
						if err != nil {
							return err
						}
						in[name] = x
					}
				}
				return emptyPast(v.dec, len(rows), in)
			})
			if err != nil {
				return nil, err
			}
			for j, i := range rows {
				out[i] = v.letters.score(last[j], prompts[i].Options)
			}
			lo = hi
		}
	}
	return out, nil
}

// fill writes one prompt's rows (text embeddings and image features, in
// order) into dst, which is zero beyond them (padding).
func (v *VLMReader) fill(ctx context.Context, dst []float32, pieces []vlmPiece, images ImageBatch) error {
	var ids []int
	for _, p := range pieces {
		ids = append(ids, p.ids...)
	}
	var textRows []float32
	if len(ids) > 0 {
		var err error
		if textRows, err = v.runOne(ctx, v.embed, "input_ids", "inputs_embeds", len(ids), func() (ort.Value, error) {
			data := make([]int64, len(ids))
			for i, id := range ids {
				data[i] = int64(id)
			}
			return int64Tensor(data, 1, int64(len(ids)))
		}); err != nil {
			return err
		}
	}
	var feats []float32
	if images.N > 0 {
		var err error
		if feats, err = v.runOne(ctx, v.vision, "pixel_values", v.featOut, images.N*v.imageRows, func() (ort.Value, error) {
			return floatTensor(images.Data, int64(images.N), int64(images.C), int64(images.H), int64(images.W))
		}); err != nil {
			return err
		}
	}
	row, tok := 0, 0
	for _, p := range pieces {
		if p.ids != nil {
			copy(dst[row*v.hidden:], textRows[tok*v.hidden:(tok+len(p.ids))*v.hidden])
			row += len(p.ids)
			tok += len(p.ids)
			continue
		}
		n := v.imageRows * v.hidden
		copy(dst[row*v.hidden:], feats[p.image*n:(p.image+1)*n])
		row += v.imageRows
	}
	return nil
}

// runOne runs a single-input session and returns its float output, checking
// it holds rows x hidden values.
func (v *VLMReader) runOne(ctx context.Context, s *Session, input, output string, rows int, newInput func() (ort.Value, error)) ([]float32, error) {
	x, err := newInput()
	if err != nil {
		return nil, err
	}
	defer x.Destroy()
	outs, err := s.Run(ctx, map[string]ort.Value{input: x})
	if err != nil {
		return nil, err
	}
	defer destroyMap(outs)
	data, shape, err := floats(outs, output)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path(), err)
	}
	if len(data) != rows*v.hidden {
		return nil, fmt.Errorf("%s: %s has shape %v, want %d rows of %d", s.Path(), output, shape, rows, v.hidden)
	}
	return append([]float32(nil), data...), nil
}

// Fits returns why p cannot be scored by the model (too long for its
// context, images of the wrong size, placeholders that do not match the
// images), or nil, without running it: a caller can then show fewer
// frames.
func (v *VLMReader) Fits(p VLMPrompt) error {
	_, _, err := v.layout(p)
	return err
}
