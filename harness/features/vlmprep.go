package features

import (
	"context"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// prepOnce preprocesses each frame of one video once for an ONNX
// vlm_reader: the video's items, sets, option permutations and fitPrompt's
// halvings ask for the same frames many times, and from full frames
// (the audit's --frame-resize processor) each resize costs milliseconds.
// A frame is known by its pixels' first byte (the video's decoded copy);
// its tensor is the reader's own for that frame alone, which a batch
// does not change, so the prompts are those the reader would make.
type prepOnce struct {
	r       VLMScorer
	done    map[*byte][]float32
	c, h, w int // the tensors' shape, from the first batch
}

// vlmFrames is what scoreVLM preprocesses a video's frames with: r, once
// per frame where r is an ONNX reader. A served reader (VLMGroups) hands
// out handles to its own encoded frames, which are not reused.
func vlmFrames(r VLMScorer) VLMScorer {
	if _, served := r.(VLMGroups); served {
		return r
	}
	return &prepOnce{r: r, done: map[*byte][]float32{}}
}

func (p *prepOnce) Fits(pr models.VLMPrompt) error { return p.r.Fits(pr) }

func (p *prepOnce) Score(ctx context.Context, prompts []models.VLMPrompt) ([][]float64, error) {
	return p.r.Score(ctx, prompts)
}

func (p *prepOnce) Frames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error) {
	var missing []imageprep.Frame
	asked := map[*byte]bool{}
	for _, f := range frames {
		if len(f.Pix) == 0 {
			return p.r.Frames(ctx, frames)
		}
		if k := &f.Pix[0]; p.done[k] == nil && !asked[k] {
			missing, asked[k] = append(missing, f), true
		}
	}
	if len(missing) > 0 {
		b, err := p.r.Frames(ctx, missing)
		if err != nil {
			return b, err
		}
		n := b.C * b.H * b.W
		if b.N != len(missing) || n == 0 || len(b.Data) != b.N*n {
			return p.r.Frames(ctx, frames) // not one tensor per frame: no reuse
		}
		for i, f := range missing {
			p.done[&f.Pix[0]] = b.Data[i*n : (i+1)*n]
		}
		p.c, p.h, p.w = b.C, b.H, b.W
	}
	n := p.c * p.h * p.w
	out := models.ImageBatch{N: len(frames), C: p.c, H: p.h, W: p.w, Data: make([]float32, 0, len(frames)*n)}
	for _, f := range frames {
		out.Data = append(out.Data, p.done[&f.Pix[0]]...)
	}
	return out, nil
}
