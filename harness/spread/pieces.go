package spread

import (
	"context"

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
