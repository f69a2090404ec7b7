package export

import (
	"crypto/sha256"
	"encoding/binary"
)

// BlindOrders is how many option orders the blind task shows each item
// under: a model that prefers a position, or an option's wording, then
// meets the gold in several places.
const BlindOrders = 4

// blindOrders draws the blind task's option orders of one item with n
// options: order[j] is the released index of the option shown at j. They
// are the rotations by 0..3 places of one seeded shuffle, so the gold
// takes four different places (every place once with four options, each
// place as evenly as can be with fewer) and a model that prefers a place
// cannot score by it; and they are a pure function of the release seed and
// the item id, so every model is shown the same orders and the export need
// not carry a random state.
func blindOrders(seed uint64, id string, n int) [][]int {
	r := newStream(seed, id)
	base := make([]int, n)
	for j := range base {
		base[j] = j
	}
	for j := n - 1; j > 0; j-- {
		i := int(r.next() % uint64(j+1))
		base[j], base[i] = base[i], base[j]
	}
	orders := make([][]int, BlindOrders)
	for k := range orders {
		o := make([]int, n)
		for j := range o {
			o[j] = base[(j+k)%n]
		}
		orders[k] = o
	}
	return orders
}

// stream is splitmix64 seeded from SHA-256 of the release seed and the
// item id.
type stream struct{ s uint64 }

func newStream(seed uint64, id string) *stream {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write([]byte("vidscreen-export-blind\x00"))
	h.Write(b[:])
	h.Write([]byte(id))
	return &stream{s: binary.LittleEndian.Uint64(h.Sum(nil))}
}

func (r *stream) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	x := r.s
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
