package attack

import (
	"hash/fnv"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
)

// Orders returns n seeded prequential orders over items: order o is a
// permutation of 0..len(items)-1 that lists the items in the order they are
// answered. Each item's place is set by a hash of (seed, o, its key), so an
// order depends only on those, not on the file order of the items, the worker
// count or the machine.
func Orders(items []*harness.Item, seed uint64, n int) [][]int32 {
	out := make([][]int32, n)
	type ranked struct {
		h   uint64
		key string
		i   int32
	}
	buf := make([]ranked, len(items))
	for o := range out {
		os := OrderSeed(seed, o)
		for i, it := range items {
			buf[i] = ranked{h: keyHash(os, it.Key()), key: it.Key(), i: int32(i)}
		}
		slices.SortFunc(buf, func(a, b ranked) int {
			switch {
			case a.h < b.h:
				return -1
			case a.h > b.h:
				return 1
			case a.key < b.key:
				return -1
			case a.key > b.key:
				return 1
			}
			return int(a.i - b.i)
		})
		perm := make([]int32, len(items))
		for k, r := range buf {
			perm[k] = r.i
		}
		out[o] = perm
	}
	return out
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
