package spread

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
)

// cut runs n inputs through pool in pieces of at most size inputs, each
// claiming unit bytes per input of its device's budget: fn(ctx, slot, lo,
// hi) computes inputs [lo, hi) on the session of device slot. A budget too
// small for size inputs makes the pieces smaller (at least one input), so
// that every piece fits; the size then depends on the budget, which is the
// same on every device of a cpu:N run, and not on the device count.
func cut(ctx context.Context, pool *gpu.Pool, work string, n, size int, unit uint64, fn func(ctx context.Context, slot, lo, hi int) error) error {
	if n == 0 {
		return nil
	}
	size = max(1, size)
	if b := pool.SmallestBudget(); b > 0 && unit > 0 {
		size = max(1, min(size, int(b/unit)))
	}
	pieces := make([]gpu.Piece, 0, (n+size-1)/size)
	for lo := 0; lo < n; lo += size {
		k := min(size, n-lo)
		pieces = append(pieces, gpu.Piece{Memory: uint64(k) * unit, Units: k})
	}
	return pool.Spread(ctx, work, pieces, func(ctx context.Context, slot, i int) error {
		lo := i * size
		return fn(ctx, slot, lo, min(lo+size, n))
	})
}

// scores cuts prompts into pieces of size, each claiming unit bytes a
// prompt, and has the device's scorer (score with the piece's slot) give
// one row of log-probabilities per prompt, written back in the order given.
func scores[P any](ctx context.Context, pool *gpu.Pool, work string, devices int, prompts []P, size int, unit uint64,
	score func(ctx context.Context, slot int, ps []P) ([][]float64, error)) ([][]float64, error) {
	out := make([][]float64, len(prompts))
	err := cut(ctx, pool, work, len(prompts), size, unit, func(ctx context.Context, slot, lo, hi int) error {
		if slot >= devices {
			return fmt.Errorf("spread: %s has no reader on device %d", work, slot)
		}
		s, err := score(ctx, slot, prompts[lo:hi])
		if err != nil {
			return err
		}
		if len(s) != hi-lo {
			return fmt.Errorf("spread: %s gave %d scores for %d prompts", work, len(s), hi-lo)
		}
		copy(out[lo:hi], s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
