package attack

import (
	"cmp"
	"context"
	"slices"

	"github.com/vidscreen/vidscreen/kernels"
)

// A storeHit is one candidate of an item's cross-pool store: its place in
// the store and its cosine to the item asked. The place is a pool row for
// the other benchmarks' items, which entered the store first, and
// len(Pool.Items) plus the stream position for the benchmark's earlier
// items, so that ordering by place breaks ties in cosine as the store
// was filled.
type storeHit struct {
	place int
	sim   float32
}

// crossNearest returns, for each stream item, its k nearest items among
// the pool items of the other benchmarks: emb are the stream's rows and
// pool the pool's, of one embedding.
func crossNearest(ctx context.Context, s *Stream, emb, pool *kernels.Matrix, k int, opt kernels.Options) ([][]storeHit, error) {
	cross := make([][]storeHit, len(s.Items))
	for _, store := range benchmarkStores(s) {
		rows, other := otherRows(s.Pool, pool, s.Items[store[0]].Benchmark)
		if len(rows) == 0 {
			continue
		}
		nb, err := kernels.TopK(ctx, subRows(emb, store), other, k, opt)
		if err != nil {
			return nil, err
		}
		for q, p := range store {
			ids, sims := nb.Row(q)
			for r, j := range ids {
				if j >= 0 {
					cross[p] = append(cross[p], storeHit{rows[j], sims[r]})
				}
			}
		}
	}
	return cross, nil
}

// storeOrder fills dst with an item's cross-pool hits and its nearest
// earlier items of its own benchmark, nearest first, ties to the earlier
// place: the order in which both cross-pool attackers take them.
func storeOrder(dst, cross []storeHit, within []earlier, poolItems int) []storeHit {
	dst = append(dst[:0], cross...)
	for _, e := range within {
		dst = append(dst, storeHit{poolItems + e.pos, e.sim})
	}
	slices.SortFunc(dst, func(x, y storeHit) int {
		if c := cmp.Compare(y.sim, x.sim); c != 0 {
			return c
		}
		return cmp.Compare(x.place, y.place)
	})
	return dst
}
