package attack

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/vidscreen/vidscreen/kernels"
)

// The copy attacker needs, for each item, its nearest earlier item of the
// same benchmark above a threshold, and "earlier" changes with every order.
// A threshold join per order would repeat the same n^2 dot products Orders
// times, so it joins once, without regard to order, listing for every item
// all items above the threshold (a list that holds the answer for any
// order), and reads each order from those lists. The lists depend on the
// item texts only, never on gold answers.

// A neighbour is one candidate of an item: another item of its benchmark
// (by key) and the cosine of their embeddings.
type neighbour struct {
	key string
	sim float32
}

// A poolIndex holds every item's candidate list, by item key, for one set of
// items and embeddings.
type poolIndex struct {
	fp    uint64
	lists map[string][]neighbour
}

// indexCache keeps the poolIndex of the last stream an attacker saw, so that
// the orders of one run share one join. It is safe for concurrent use.
type indexCache struct {
	mu  sync.Mutex
	idx *poolIndex
}

// get returns the index of s's items under embedding m (rows in stream
// order) for threshold tau, joining on first use.
func (c *indexCache) get(ctx context.Context, s *Stream, m *kernels.Matrix, tau float32, opt kernels.Options) (*poolIndex, error) {
	canon := canonicalStores(s)
	fp := fingerprint(s, m, canon, tau)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idx != nil && c.idx.fp == fp {
		return c.idx, nil
	}
	idx := &poolIndex{fp: fp, lists: make(map[string][]neighbour, len(s.Items))}
	for _, store := range canon {
		err := kernels.ThresholdJoin(ctx, subRows(m, store), nil, tau, opt, func(ps []kernels.Pair) error {
			for _, p := range ps {
				a, b := s.Items[store[p.I]].Key(), s.Items[store[p.J]].Key()
				idx.lists[a] = append(idx.lists[a], neighbour{b, p.Sim})
				idx.lists[b] = append(idx.lists[b], neighbour{a, p.Sim})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, l := range idx.lists {
		slices.SortFunc(l, func(x, y neighbour) int {
			if c := cmp.Compare(y.sim, x.sim); c != 0 {
				return c
			}
			return strings.Compare(x.key, y.key)
		})
	}
	c.idx = idx
	return idx, nil
}

// canonicalStores is benchmarkStores with each store sorted by item key
// instead of stream order, so that the join sees the same matrix on every
// order.
func canonicalStores(s *Stream) [][]int {
	stores := benchmarkStores(s)
	for _, st := range stores {
		slices.SortFunc(st, func(a, b int) int { return strings.Compare(s.Items[a].Key(), s.Items[b].Key()) })
	}
	return stores
}

// fingerprint identifies the items, their embedding rows and the threshold
// independently of the stream's order.
func fingerprint(s *Stream, m *kernels.Matrix, canon [][]int, tau float32) uint64 {
	h := mix64(uint64(len(s.Items)) ^ uint64(math.Float32bits(tau))<<32)
	for _, st := range canon {
		for _, i := range st {
			h = mix64(h ^ keyHash(0, s.Items[i].Key()))
			for _, v := range m.Row(i) {
				h = (h ^ uint64(math.Float32bits(v))) * 0x100000001b3
			}
		}
	}
	return h
}

// positions maps each item key of s to its stream position.
func positions(s *Stream) map[string]int {
	pos := make(map[string]int, len(s.Items))
	for i, it := range s.Items {
		pos[it.Key()] = i
	}
	return pos
}
