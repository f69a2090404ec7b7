package kernels

import "fmt"

// UnionFind holds disjoint sets over the elements 0..n-1 (near-duplicate
// clusters). Union by size with path halving: near-constant time per call.
type UnionFind struct {
	parent []int32
	size   []int32
}

// NewUnionFind returns n singleton sets.
func NewUnionFind(n int) *UnionFind {
	u := &UnionFind{parent: make([]int32, n), size: make([]int32, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
		u.size[i] = 1
	}
	return u
}

// Find returns the representative of a's set. Representatives are an
// implementation detail; use Labels for stable cluster names.
func (u *UnionFind) Find(a int) int {
	if a < 0 || a >= len(u.parent) {
		panic(fmt.Sprintf("kernels: UnionFind.Find(%d) out of range [0, %d)", a, len(u.parent)))
	}
	x := int32(a)
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return int(x)
}

// Union merges the sets of a and b.
func (u *UnionFind) Union(a, b int) {
	ra, rb := int32(u.Find(a)), int32(u.Find(b))
	if ra == rb {
		return
	}
	if u.size[ra] < u.size[rb] || (u.size[ra] == u.size[rb] && rb < ra) {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	u.size[ra] += u.size[rb]
}

// Labels gives each element its cluster's smallest member index, which
// depends only on the partition, not on the order of the unions.
func (u *UnionFind) Labels() []int32 {
	n := len(u.parent)
	smallest := make([]int32, n)
	for i := range smallest {
		smallest[i] = -1
	}
	out := make([]int32, n)
	for i := 0; i < n; i++ {
		r := u.Find(i)
		if smallest[r] < 0 {
			smallest[r] = int32(i) // i ascends, so the first seen is the smallest
		}
		out[i] = smallest[r]
	}
	return out
}

// Sizes gives each element its cluster's size (for inverse-size weighting).
func (u *UnionFind) Sizes() []int32 {
	out := make([]int32, len(u.parent))
	for i := range out {
		out[i] = u.size[u.Find(i)]
	}
	return out
}
