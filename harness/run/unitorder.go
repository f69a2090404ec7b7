package run

import (
	"cmp"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
)

// An orderIndex says where each item sits in each of the units' orders and
// which benchmark it belongs to, so that the part of an order a unit
// answers is found from that part's items alone. Walking the whole order
// for every benchmark of every unit, hashing each item's benchmark name,
// made the attack stage grow as the pool times its number of benchmarks:
// at 500,000 items in 100 benchmarks, more time than the attackers took.
type orderIndex struct {
	where      [][]int32 // per order, each item's position in it
	bench      []int32   // each item's benchmark, as an index
	benchmarks int
}

func newOrderIndex(items []*harness.Item, orders [][]int32) *orderIndex {
	x := &orderIndex{where: make([][]int32, len(orders)), bench: make([]int32, len(items))}
	for v, order := range orders {
		x.where[v] = make([]int32, len(items))
		for p, i := range order {
			x.where[v][i] = int32(p)
		}
	}
	at := map[string]int32{}
	for i, it := range items {
		b, ok := at[it.Benchmark]
		if !ok {
			b = int32(len(at))
			at[it.Benchmark] = b
		}
		x.bench[i] = b
	}
	x.benchmarks = len(at)
	return x
}

// part returns the items unit u answers for chunk c, in the order full (the
// unit's order, number v), and their positions in full; pos is nil when
// the part is the whole order. For one benchmark's chunk the part is its
// items; for the whole stream (c.bench "") it is every benchmark that has
// an item without a prediction held, and skipped counts the items of the
// others.
func (x *orderIndex) part(u *unit, v int, full []int32, c chunk) (order []int32, pos []int, skipped int) {
	where := x.where[v]
	if c.bench != "" {
		if len(c.items) == len(full) {
			return full, nil, 0
		}
		order = slices.Clone(c.items)
		slices.SortFunc(order, func(i, j int32) int { return cmp.Compare(where[i], where[j]) })
		pos = make([]int, len(order))
		for k, i := range order {
			pos[k] = int(where[i])
		}
		return order, pos, 0
	}
	left := make([]bool, x.benchmarks)
	n := 0
	for _, i := range full {
		if b := x.bench[i]; !left[b] && !u.ans.has(i) {
			left[b] = true
			n++
		}
	}
	if n == x.benchmarks {
		return full, nil, 0
	}
	order = make([]int32, 0, len(full))
	pos = make([]int, 0, len(full))
	for p, i := range full {
		if left[x.bench[i]] {
			order = append(order, i)
			pos = append(pos, p)
		}
	}
	return order, pos, len(full) - len(order)
}

// perBenchmark reports whether at runs one benchmark at a time even though
// it reads no embeddings: a learner (its answers come from
// attack.benchmarkStores, one benchmark's items at a time) that reads
// neither frames nor a model, so that a benchmark's stream gives the
// answers of the whole stream.
func perBenchmark(at attack.Attacker) bool {
	return attack.Prequential(at) && attack.FrameNeeds(at) == 0 && !attack.PermutesOptions(at)
}
