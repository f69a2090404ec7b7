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

// The copy and k-NN attackers need, for each item, its nearest earlier items
// of the same benchmark, and "earlier" changes with every order. A search per
// order would repeat the same n^2 dot products Orders times, so they search
// once, without regard to order, for a candidate list per item, and read
// each order from the lists: the copy attacker lists every item above its
// threshold (a list that holds the answer for any order); the k-NN vote
// lists the nearest candidateDepth items and falls back to an exact search
// wherever a list could miss one of the k nearest earlier items. The lists
// depend on the item texts only, never on gold answers.

// A neighbour is one candidate of an item: another item of its benchmark
// (by key) and the cosine of their embeddings.
type neighbour struct {
	key string
	sim float32
}

// A poolIndex holds every item's candidate list, by item key, for one set of
// items and embeddings, sorted by descending cosine; truncated marks lists
// that may leave out items as near as their last entry.
type poolIndex struct {
	fp        uint64
	lists     map[string][]neighbour
	truncated map[string]bool
}

// A search lists candidates for every row of sub (indices into sub, never
// the row itself) and says which lists may be truncated.
type search interface {
	// id distinguishes searches in the cache's fingerprint.
	id() uint64
	run(ctx context.Context, sub *kernels.Matrix, emit func(row int, nb []kernels.Pair, truncated bool)) error
}

// indexCache keeps the poolIndex of the last stream an attacker saw, so that
// the orders of one run share one join. It is safe for concurrent use.
type indexCache struct {
	mu  sync.Mutex
	idx *poolIndex
}

// get returns the index of s's items under embedding m (rows in stream
// order) for search, searching on first use.
func (c *indexCache) get(ctx context.Context, s *Stream, m *kernels.Matrix, sr search) (*poolIndex, error) {
	canon := canonicalStores(s)
	fp := fingerprint(s, m, canon, sr.id())
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idx != nil && c.idx.fp == fp {
		return c.idx, nil
	}
	idx := &poolIndex{fp: fp, lists: make(map[string][]neighbour, len(s.Items)), truncated: map[string]bool{}}
	// One key string per item, shared by every list that names it: Key
	// builds a new string on each call, and the lists name each item about
	// k times.
	keys := make([]string, len(s.Items))
	for i, it := range s.Items {
		keys[i] = it.Key()
	}
	for _, store := range canon {
		err := sr.run(ctx, subRows(m, store), func(row int, nb []kernels.Pair, truncated bool) {
			key := keys[store[row]]
			l := idx.lists[key]
			for _, p := range nb {
				l = append(l, neighbour{keys[store[p.J]], p.Sim})
			}
			idx.lists[key] = l
			if truncated {
				idx.truncated[key] = true
			}
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

// thresholdSearch lists every other row with cosine >= tau: complete lists.
type thresholdSearch struct {
	tau float32
	opt kernels.Options
}

func (t thresholdSearch) id() uint64 { return uint64(math.Float32bits(t.tau)) }

func (t thresholdSearch) run(ctx context.Context, sub *kernels.Matrix, emit func(int, []kernels.Pair, bool)) error {
	return kernels.ThresholdJoin(ctx, sub, nil, t.tau, t.opt, func(ps []kernels.Pair) error {
		for _, p := range ps {
			emit(int(p.I), []kernels.Pair{p}, false)
			emit(int(p.J), []kernels.Pair{{I: p.J, J: p.I, Sim: p.Sim}}, false)
		}
		return nil
	})
}

// topSearch lists the depth nearest other rows; a list is truncated when
// there were more rows than it holds.
type topSearch struct {
	depth int
	opt   kernels.Options
}

func (t topSearch) id() uint64 { return 1<<40 | uint64(t.depth) }

func (t topSearch) run(ctx context.Context, sub *kernels.Matrix, emit func(int, []kernels.Pair, bool)) error {
	nb, err := kernels.TopK(ctx, sub, sub, t.depth+1, t.opt)
	if err != nil {
		return err
	}
	l := make([]kernels.Pair, 0, t.depth+1)
	for i := 0; i < sub.Rows; i++ {
		idx, sim := nb.Row(i)
		l = l[:0]
		for r, j := range idx {
			if j >= 0 && int(j) != i && len(l) < t.depth {
				l = append(l, kernels.Pair{I: int32(i), J: j, Sim: sim[r]})
			}
		}
		emit(i, l, sub.Rows-1 > len(l))
	}
	return nil
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

// fingerprint identifies the items, their embedding rows and the search
// independently of the stream's order.
func fingerprint(s *Stream, m *kernels.Matrix, canon [][]int, searchID uint64) uint64 {
	h := mix64(uint64(len(s.Items)) ^ mix64(searchID))
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
