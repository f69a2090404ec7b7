package kernels

import (
	"context"
	"fmt"
	"slices"
)

// DefaultJoinTile is the rows of a tile ThresholdJoinRows holds when none
// is given: 8,192 rows of 1,024 float32 columns are 32 MiB, so a query
// tile and a key tile stay far below the matrices of a 500,000-item pool
// (2 GiB at that width) while each tile pair is still large enough for the
// BLAS blocks of ThresholdJoin.
const DefaultJoinTile = 8192

// ThresholdJoinRows is ThresholdJoin over matrices read a tile at a time:
// it holds one query tile of a and one key tile of b (tile rows each;
// DefaultJoinTile when tile <= 0), never the whole matrices, and emits the
// very pairs ThresholdJoin emits, with the same similarities, in the same
// increasing (I, J) order. b == nil is the self-join of a (pairs with
// i < j). The pairs of one query tile are held until the tile is done.
//
// Every pair is still decided by its float64 dot product, so the tile
// shape changes no pair: a tile only bounds the float32 rounding error by
// the norms of its own rows, which admits the same candidates or fewer,
// and candidates are then decided exactly.
//
// Each tile pair is joined on opt.Joiner (ThresholdJoin), so a GPU's
// backend takes the row-streamed join too, a tile pair at a time.
func ThresholdJoinRows(ctx context.Context, a, b RowReader, tau float32, tile int, opt Options, emit func([]Pair) error) error {
	self := b == nil
	if self {
		b = a
	}
	na, d := a.Shape()
	nb, db := b.Shape()
	if d != db {
		return fmt.Errorf("threshold join: a has %d columns, b has %d", d, db)
	}
	if tile <= 0 {
		tile = DefaultJoinTile
	}
	var out []Pair
	// Two buffers, reused for every tile.
	qa := &Matrix{Cols: d, Data: make([]float32, min(tile, na)*d)}
	kb := &Matrix{Cols: d, Data: make([]float32, min(tile, nb)*d)}
	load := func(m *Matrix, r RowReader, lo, hi int) error {
		m.Rows = hi - lo
		if err := r.ReadRows(m.Data[:m.Rows*d], lo); err != nil {
			return fmt.Errorf("threshold join: rows %d..%d: %w", lo, hi, err)
		}
		return nil
	}
	collect := func(di, dj int) func([]Pair) error {
		return func(ps []Pair) error {
			for _, p := range ps {
				p.I += int32(di)
				p.J += int32(dj)
				out = append(out, p)
			}
			return nil
		}
	}
	for q0 := 0; q0 < na; q0 += tile {
		q1 := min(q0+tile, na)
		if err := load(qa, a, q0, q1); err != nil {
			return err
		}
		out = out[:0]
		k0 := 0
		if self {
			// The diagonal tile joins with itself, i < j; the key tiles
			// after it hold only larger indices.
			if err := ThresholdJoin(ctx, qa, nil, tau, opt, collect(q0, q0)); err != nil {
				return err
			}
			k0 = q1
		}
		for ; k0 < nb; k0 += tile {
			k1 := min(k0+tile, nb)
			if err := load(kb, b, k0, k1); err != nil {
				return err
			}
			if err := ThresholdJoin(ctx, qa, kb, tau, opt, collect(q0, k0)); err != nil {
				return err
			}
		}
		slices.SortFunc(out, comparePairs)
		for ps := out; len(ps) > 0; {
			n := min(len(ps), emitBatch)
			if err := emit(ps[:n]); err != nil {
				return err
			}
			ps = ps[n:]
		}
	}
	return ctx.Err()
}
