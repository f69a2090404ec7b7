package release

import (
	"encoding/binary"
	"hash/fnv"
)

// rank is a seeded hash of (tag, key): the selector orders cells and breaks
// ties by it, so that the same seed gives the same order on any machine and
// another seed another order.
func rank(seed uint64, tag, key string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(tag))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return mix64(h.Sum64())
}

// mix64 is the splitmix64 finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// splitmix is a seeded stream of 64-bit numbers (splitmix64).
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// intn returns a number in [0, n) (n > 0), by rejection so that every
// value is equally likely.
func (r *splitmix) intn(n int) int {
	bound := uint64(n)
	limit := ^uint64(0) - ^uint64(0)%bound
	for {
		if x := r.next(); x < limit {
			return int(x % bound)
		}
	}
}
