package spread

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

// TextPiece is how many texts one piece of a TextEmbedder call holds: the
// text encoders' own batch (models.TextEncoder.MaxBatch), so that a piece
// is one run per length bucket.
const TextPiece = 32

// TextMemory is the device memory one text of a piece is taken to claim:
// the activations of a 24-layer, 1024-wide encoder (BGE-large) at 512
// tokens in float32, about 2 MiB per layer kept live, rounded up.
const TextMemory = 64 << 20

// A TextEmbedder is one text encoder (the same weights) on every device of
// a pool: Embed cuts its texts into pieces of TextPiece and places them on
// the devices. Its rows are those of any one of its encoders, whatever the
// number of devices.
type TextEmbedder struct {
	// Encoders holds the encoder once per device, in the pool's order.
	Encoders []textembed.TextEmbedder
	Pool     *gpu.Pool
	// Work names the role in the pool's counts ("text_embed").
	Work string
	// Memory is what one text claims of its device (0: TextMemory).
	Memory uint64
}

// Name is the encoders' name: the weights, not the devices.
func (e *TextEmbedder) Name() string { return e.Encoders[0].Name() }

// Dim is the encoders' width.
func (e *TextEmbedder) Dim() int { return e.Encoders[0].Dim() }

// Embed returns the rows of texts. When the model gives a non-finite row,
// the error is a *textembed.NonFiniteError over the whole call (every
// piece's bad rows, at their place in texts), as one encoder would return.
func (e *TextEmbedder) Embed(ctx context.Context, texts []string) (*kernels.Matrix, error) {
	if len(e.Encoders) == 0 {
		return nil, errors.New("spread: no text encoder")
	}
	out := kernels.NewMatrix(len(texts), e.Dim())
	mem := e.Memory
	if mem == 0 {
		mem = TextMemory
	}
	var (
		mu  sync.Mutex
		bad []*textembed.NonFiniteError
		at  []int
	)
	err := cut(ctx, e.Pool, e.Work, len(texts), TextPiece, mem, func(ctx context.Context, slot, lo, hi int) error {
		if slot >= len(e.Encoders) {
			return fmt.Errorf("spread: %s has no encoder on device %d", e.Work, slot)
		}
		m, err := e.Encoders[slot].Embed(ctx, texts[lo:hi])
		var nfe *textembed.NonFiniteError
		if errors.As(err, &nfe) && nfe.Embeddings != nil {
			mu.Lock()
			bad, at = append(bad, nfe), append(at, lo)
			mu.Unlock()
			m, err = nfe.Embeddings, nil
		}
		if err != nil {
			return err
		}
		if m.Rows != hi-lo || m.Cols != out.Cols {
			return fmt.Errorf("spread: %s gave %dx%d for %d texts of width %d", e.Work, m.Rows, m.Cols, hi-lo, out.Cols)
		}
		copy(out.Data[lo*out.Cols:hi*out.Cols], m.Data)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(bad) == 0 {
		return out, nil
	}
	return nil, mergeNonFinite(bad, at, out)
}

// mergeNonFinite makes one error of the pieces' errors (bad[k] of the
// piece starting at at[k]), its rows ascending, as the error of one call
// over all the texts.
func mergeNonFinite(bad []*textembed.NonFiniteError, at []int, out *kernels.Matrix) error {
	first := 0
	for k := range bad {
		if at[k] < at[first] {
			first = k
		}
	}
	type row struct {
		i    int
		text string
	}
	var rows []row
	for k, b := range bad {
		for j, r := range b.Rows {
			rows = append(rows, row{at[k] + r, b.Texts[j]})
		}
	}
	sortRows := func(a, b row) int { return a.i - b.i }
	slices.SortFunc(rows, sortRows)
	e := &textembed.NonFiniteError{Model: bad[first].Model, Embeddings: out, Err: bad[first].Err}
	for _, r := range rows {
		e.Rows = append(e.Rows, r.i)
		e.Texts = append(e.Texts, r.text)
	}
	return e
}
