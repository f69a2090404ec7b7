package spread

import (
	"context"
	"errors"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/letters"
)

// A Letters is one letter scorer (lm_reader) on one device.
type Letters interface {
	Encode(p letters.Prompt) ([]int, error)
	Score(ctx context.Context, prompts []letters.Prompt) ([][]float64, error)
}

// PromptPiece is how many prompts one piece of a reader's call holds: the
// readers ask 64 at a time (attack's readerChunk), so eight pieces keep
// up to eight devices busy on one call.
const PromptPiece = 8

// PromptMemory is the device memory one lm_reader prompt is taken to
// claim: a 7B decoder's activations and the last position's logits at a
// few hundred tokens, rounded up.
const PromptMemory = 256 << 20

// LetterReader is one letter scorer (the same weights) on every device of
// a pool, an attack.LetterReader: Score cuts its prompts into pieces of
// PromptPiece and places them on the devices.
type LetterReader struct {
	// Readers holds the scorer once per device, in the pool's order.
	Readers []Letters
	Pool    *gpu.Pool
	// Work names the role in the pool's counts ("lm_reader").
	Work string
	// Memory is what one prompt claims of its device (0: PromptMemory).
	Memory uint64
}

// Encode tokenizes and checks a prompt; it runs on the CPU.
func (r *LetterReader) Encode(p letters.Prompt) ([]int, error) {
	if len(r.Readers) == 0 {
		return nil, errors.New("spread: no letter reader")
	}
	return r.Readers[0].Encode(p)
}

// Score returns log p(letter) per prompt, in the order given.
func (r *LetterReader) Score(ctx context.Context, prompts []letters.Prompt) ([][]float64, error) {
	if len(r.Readers) == 0 {
		return nil, errors.New("spread: no letter reader")
	}
	mem := r.Memory
	if mem == 0 {
		mem = PromptMemory
	}
	return scores(ctx, r.Pool, r.Work, len(r.Readers), prompts, PromptPiece, mem, func(ctx context.Context, slot int, ps []letters.Prompt) ([][]float64, error) {
		return r.Readers[slot].Score(ctx, ps)
	})
}
