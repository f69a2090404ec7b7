package spread

import (
	"context"
	"errors"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// A VLM is vlm_reader on one device (models.VLMReader).
type VLM interface {
	Frames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error)
	Fits(p models.VLMPrompt) error
	Score(ctx context.Context, prompts []models.VLMPrompt) ([][]float64, error)
}

// VLMPiece is how many prompts one piece of a vlm_reader call holds: the
// feature stage asks 16 at a time (features' vlmChunk), so pieces of two
// keep up to eight devices busy on one call.
const VLMPiece = 2

// VLMMemory is the device memory one vlm_reader prompt is taken to claim:
// its frames through the vision encoder and a 7B decoder's activations and
// logits at a few thousand rows, rounded up.
const VLMMemory = 1 << 30

// VLMScorer is vlm_reader (the same weights) on every device of a pool, a
// features.VLMScorer: Score cuts its prompts into pieces of VLMPiece and
// places them on the devices. Frames and Fits run on the CPU.
type VLMScorer struct {
	// Readers holds vlm_reader once per device, in the pool's order.
	Readers []VLM
	Pool    *gpu.Pool
	// Work names the role in the pool's counts ("vlm_reader").
	Work string
	// Memory is what one prompt claims of its device (0: VLMMemory).
	Memory uint64
}

// Frames preprocesses frames into the model's images.
func (v *VLMScorer) Frames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error) {
	if len(v.Readers) == 0 {
		return models.ImageBatch{}, errors.New("spread: no vlm_reader")
	}
	return v.Readers[0].Frames(ctx, frames)
}

// Fits checks that a prompt fits the model.
func (v *VLMScorer) Fits(p models.VLMPrompt) error {
	if len(v.Readers) == 0 {
		return errors.New("spread: no vlm_reader")
	}
	return v.Readers[0].Fits(p)
}

// Score returns log p(letter) per prompt, in the order given.
func (v *VLMScorer) Score(ctx context.Context, prompts []models.VLMPrompt) ([][]float64, error) {
	if len(v.Readers) == 0 {
		return nil, errors.New("spread: no vlm_reader")
	}
	mem := v.Memory
	if mem == 0 {
		mem = VLMMemory
	}
	return scores(ctx, v.Pool, v.Work, len(v.Readers), prompts, VLMPiece, mem, func(ctx context.Context, slot int, ps []models.VLMPrompt) ([][]float64, error) {
		return v.Readers[slot].Score(ctx, ps)
	})
}
