package models

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// loadPreprocessor reads a role's preprocessor_config.json and checks that
// the images it makes are the size the model takes.
func loadPreprocessor(path string, c, h, w int) (*imageprep.Processor, error) {
	cfg, err := imageprep.ReadConfig(path)
	if err != nil {
		return nil, err
	}
	p, err := imageprep.New(*cfg, imageprep.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if ph, pw := p.OutputSize(); c != 3 || ph != h || pw != w {
		return nil, fmt.Errorf("%s makes 3x%dx%d images; the model takes %dx%dx%d", path, ph, pw, c, h, w)
	}
	return p, nil
}

// preprocess turns decoded RGB frames into a batch with p.
func preprocess(ctx context.Context, p *imageprep.Processor, frames []imageprep.Frame) (ImageBatch, error) {
	if p == nil {
		return ImageBatch{}, fmt.Errorf("no preprocessor_config.json loaded for this model")
	}
	h, w := p.OutputSize()
	b := ImageBatch{N: len(frames), C: 3, H: h, W: w, Data: make([]float32, len(frames)*p.FrameLen())}
	if err := p.Batch(ctx, frames, b.Data); err != nil {
		return ImageBatch{}, err
	}
	return b, nil
}

// EmbedFrames preprocesses decoded RGB frames with the role's
// preprocessor_config.json and returns their unit image embeddings.
func (m *ImageText) EmbedFrames(ctx context.Context, frames []imageprep.Frame) ([][]float32, error) {
	b, err := preprocess(ctx, m.prep, frames)
	if err != nil {
		return nil, err
	}
	return m.EmbedImages(ctx, b)
}

// CaptionFrames preprocesses decoded RGB frames and captions each.
func (c *Captioner) CaptionFrames(ctx context.Context, frames []imageprep.Frame) ([]Caption, error) {
	b, err := preprocess(ctx, c.prep, frames)
	if err != nil {
		return nil, err
	}
	return c.Caption(ctx, b)
}

// Frames preprocesses decoded RGB frames into the Images of a VLMPrompt.
func (v *VLMReader) Frames(ctx context.Context, frames []imageprep.Frame) (ImageBatch, error) {
	return preprocess(ctx, v.prep, frames)
}
