package sim

import "container/list"

// BlockSize is the prefix cache's unit in tokens: vLLM's default
// --block-size, and the granularity of its automatic prefix caching (a
// request reuses whole blocks of its longest cached prefix).
const BlockSize = 16

// A Cache is a prefix cache over token blocks with least-recently-used
// eviction: a block is named by the hash of its tokens chained onto its
// parent's, so a hit on block k means the first k+1 blocks match. It holds
// at most Capacity blocks. Not safe for concurrent use (the engine owns it).
type Cache struct {
	capacity int
	lru      *list.List // front: most recently used; values are block hashes
	blocks   map[uint64]*list.Element
}

// NewCache holds up to tokens/BlockSize blocks (none when tokens <
// BlockSize: no cache).
func NewCache(tokens int) *Cache {
	return &Cache{capacity: tokens / BlockSize, lru: list.New(), blocks: map[uint64]*list.Element{}}
}

// blockHashes are the chained hashes of p's full blocks.
func blockHashes(toks []uint64) []uint64 {
	n := len(toks) / BlockSize
	hs := make([]uint64, n)
	var parent uint64
	for b := range n {
		parent = chain(parent, toks[b*BlockSize:(b+1)*BlockSize])
		hs[b] = parent
	}
	return hs
}

// Lookup returns how many leading tokens of a prompt with these block
// hashes are cached (a multiple of BlockSize), and marks them used. The
// last token is always computed, as in vLLM (a prompt entirely cached
// still computes its last block's logits).
func (c *Cache) Lookup(hs []uint64, tokens int) int {
	hit := 0
	for _, h := range hs {
		if _, ok := c.blocks[h]; !ok {
			break
		}
		hit++
	}
	for b := hit - 1; b >= 0; b-- { // the first block most recent: tails go first, as vLLM evicts
		c.lru.MoveToFront(c.blocks[hs[b]])
	}
	cached := hit * BlockSize
	if cached >= tokens {
		cached = max(0, (tokens-1)/BlockSize*BlockSize)
	}
	return cached
}

// Insert adds a computed prompt's blocks, evicting the least recently used
// past the capacity.
func (c *Cache) Insert(hs []uint64) {
	if c.capacity == 0 {
		return
	}
	for b := len(hs) - 1; b >= 0; b-- { // the first block most recent
		h := hs[b]
		if e, ok := c.blocks[h]; ok {
			c.lru.MoveToFront(e)
			continue
		}
		c.blocks[h] = c.lru.PushFront(h)
		for c.lru.Len() > c.capacity {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.blocks, old.Value.(uint64))
		}
	}
}

// Len is the blocks held.
func (c *Cache) Len() int { return c.lru.Len() }
