package attack

import (
	"hash/fnv"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// NumFolds is the number of folds of a run's fixed partition: a prequential
// attacker is scored on the last fifth of each order (Video-Index 3.4: "five
// rotating splits"; docs/attackers.md: the last 20% of positions).
const NumFolds = 5

// Folds assigns every item to one of NumFolds folds, a partition fixed by the
// seed: within each benchmark the items are ranked by a hash of (seed, key)
// and dealt round-robin, so the folds of a benchmark differ in size by at
// most one and depend only on the seed and that benchmark's keys.
func Folds(items []*harness.Item, seed uint64) []int {
	type ranked struct {
		bench string
		h     uint64
		key   string
		i     int
	}
	buf := make([]ranked, len(items))
	fs := mix64(seed ^ 0xf01d5eedf01d5eed)
	for i, it := range items {
		buf[i] = ranked{it.Benchmark, keyHash(fs, it.Key()), it.Key(), i}
	}
	slices.SortFunc(buf, func(a, b ranked) int {
		if c := strings.Compare(a.bench, b.bench); c != 0 {
			return c
		}
		return cmpRank(a.h, b.h, a.key, b.key, a.i, b.i)
	})
	out := make([]int, len(items))
	rank := 0
	for k, r := range buf {
		if k > 0 && buf[k-1].bench != r.bench {
			rank = 0
		}
		out[r.i] = rank % NumFolds
		rank++
	}
	return out
}

// ScoredFold is the fold a prequential attacker is scored on in order o: the
// fold that order o puts last.
func ScoredFold(o int) int { return o % NumFolds }

// Orders returns n seeded prequential orders over items: order o is a
// permutation of 0..len(items)-1 that lists the items in the order they are
// answered. Order o puts the items of fold ScoredFold(o) of Folds last and
// shuffles both parts by a hash of (seed, o, key), so within every benchmark
// the final fifth of order o is exactly that fold: over five orders the
// scored positions cover every item exactly once (the rotating splits of
// Video-Index 3.4). An order depends only on the seed, o and the items'
// keys, not on the file order of the items, the worker count or the machine.
func Orders(items []*harness.Item, seed uint64, n int) [][]int32 {
	folds := Folds(items, seed)
	out := make([][]int32, n)
	type ranked struct {
		last bool
		h    uint64
		key  string
		i    int
	}
	buf := make([]ranked, len(items))
	for o := range out {
		os := OrderSeed(seed, o)
		for i, it := range items {
			buf[i] = ranked{last: folds[i] == ScoredFold(o), h: keyHash(os, it.Key()), key: it.Key(), i: i}
		}
		slices.SortFunc(buf, func(a, b ranked) int {
			if a.last != b.last {
				if a.last {
					return 1
				}
				return -1
			}
			return cmpRank(a.h, b.h, a.key, b.key, a.i, b.i)
		})
		perm := make([]int32, len(items))
		for k, r := range buf {
			perm[k] = int32(r.i)
		}
		out[o] = perm
	}
	return out
}

// Scored reports whether attacker a's answer to an item of fold fold, in
// variant v, counts towards its accuracy: always for an attacker that learns
// nothing, and on the scored fold of the order for a prequential one.
func Scored(a Attacker, fold, v int) bool {
	return !Prequential(a) || fold == ScoredFold(v)
}

func cmpRank(ha, hb uint64, ka, kb string, ia, ib int) int {
	switch {
	case ha < hb:
		return -1
	case ha > hb:
		return 1
	}
	if c := strings.Compare(ka, kb); c != 0 {
		return c
	}
	return ia - ib
}

// OrderSeed is the seed of order o of a run seeded with seed: Stream.Seed for
// that variant, and the seed of the guesses attackers draw on it.
func OrderSeed(seed uint64, o int) uint64 { return mix64(seed ^ mix64(uint64(o)+0x9e3779b97f4a7c15)) }

func keyHash(seed uint64, key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return mix64(h.Sum64() ^ seed)
}

// mix64 is the SplitMix64 finaliser (Steele, Lea and Flood, "Fast Splittable
// Pseudorandom Number Generators", OOPSLA 2014).
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
