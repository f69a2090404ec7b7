package tokenizer

import (
	"container/heap"
	"fmt"
	"hash/maphash"
	"sync"
	"unicode/utf8"
)

// bpe is the BPE model: a word starts as its characters (the first bare,
// the others with continuing_subword_prefix, the last with
// end_of_word_suffix) and the lowest-ranked adjacent pair is merged until no
// pair has a merge. Results are cached per word, which is what makes BPE
// fast on real text, where most words repeat.
type bpe struct {
	v            *vocabulary
	merges       map[[2]int32]merge
	unk          int32 // -1 when the file names none
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	prefix       string
	suffix       string
	byteIDs      [256]int32 // ids of "<0xXX>" for byte_fallback, -1 if absent

	cache *wordCache
}

// merge is the result of merging one pair: its rank (position in the
// file's merge list; lower merges first) and the merged token's id.
type merge struct{ rank, id int32 }

func (m *bpe) vocab() *vocabulary { return m.v }

// symbol is a token in the middle of merging.
type symbol struct {
	id         int32
	start, end int32
}

func (m *bpe) tokenize(s []byte, out []token, sc *scratch) []token {
	if len(s) == 0 {
		return out
	}
	if m.ignoreMerges {
		if id, ok := m.v.ids[string(s)]; ok {
			return append(out, token{int32(id), 0, int32(len(s))})
		}
	}
	if toks, ok := m.cache.get(s); ok {
		return append(out, toks...)
	}
	mark := len(out)
	out = m.initial(s, out, sc)
	out = out[:mark+m.mergeAll(out[mark:])]
	m.cache.put(s, out[mark:])
	return out
}

// initial appends the word's starting symbols.
func (m *bpe) initial(s []byte, out []token, sc *scratch) []token {
	unkOpen := false
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRune(s[i:])
		b := sc.buf[:0]
		if i > 0 {
			b = append(b, m.prefix...)
		}
		b = append(b, s[i:i+size]...)
		if i+size == len(s) {
			b = append(b, m.suffix...)
		}
		sc.buf = b
		id, ok := m.v.ids[string(b)]
		switch {
		case ok:
			out = append(out, token{int32(id), int32(i), int32(i + size)})
			unkOpen = false
		case m.byteFallback && m.hasBytes(s[i:i+size]):
			for k := i; k < i+size; k++ {
				out = append(out, token{m.byteIDs[s[k]], int32(k), int32(k + 1)})
			}
			unkOpen = false
		case m.unk >= 0:
			if m.fuseUnk && unkOpen {
				out[len(out)-1].end = int32(i + size)
			} else {
				out = append(out, token{m.unk, int32(i), int32(i + size)})
			}
			unkOpen = true
		default:
			// No unknown token: the reference drops the character.
		}
		i += size
	}
	return out
}

func (m *bpe) hasBytes(b []byte) bool {
	for _, c := range b {
		if m.byteIDs[c] < 0 {
			return false
		}
	}
	return true
}

// heapMergeMin is the word length (in symbols) from which mergeAll uses a
// priority queue: the plain scan is faster on real words but quadratic on
// a long run of letters.
const heapMergeMin = 48

// mergeAll merges syms in place and returns how many remain. Each step
// merges the pair of lowest rank, the leftmost among equals, as the
// reference's priority queue does.
func (m *bpe) mergeAll(syms []token) int {
	if len(syms) >= heapMergeMin {
		return m.mergeHeap(syms)
	}
	n := len(syms)
	for n > 1 {
		best := -1
		var bestMerge merge
		for i := 0; i+1 < n; i++ {
			mg, ok := m.merges[[2]int32{syms[i].id, syms[i+1].id}]
			if ok && (best < 0 || mg.rank < bestMerge.rank) {
				best, bestMerge = i, mg
			}
		}
		if best < 0 {
			break
		}
		syms[best] = token{bestMerge.id, syms[best].start, syms[best+1].end}
		copy(syms[best+1:n], syms[best+2:n])
		n--
	}
	return n
}

// mergeHeap is mergeAll in O(n log n): symbols in a linked list, candidate
// pairs in a heap ordered by (rank, position); a popped pair whose symbols
// have changed since it was pushed is skipped.
func (m *bpe) mergeHeap(syms []token) int {
	n := len(syms)
	next := make([]int32, n)
	prev := make([]int32, n)
	alive := make([]bool, n)
	for i := range syms {
		next[i], prev[i], alive[i] = int32(i+1), int32(i-1), true
	}
	next[n-1] = -1
	h := &pairHeap{}
	push := func(i int32) {
		j := next[i]
		if j < 0 {
			return
		}
		if mg, ok := m.merges[[2]int32{syms[i].id, syms[j].id}]; ok {
			heap.Push(h, pairItem{mg.rank, i, mg.id})
		}
	}
	for i := range n - 1 {
		push(int32(i))
	}
	for h.Len() > 0 {
		top := heap.Pop(h).(pairItem)
		i := top.pos
		j := next[i]
		if !alive[i] || j < 0 {
			continue
		}
		if mg, ok := m.merges[[2]int32{syms[i].id, syms[j].id}]; !ok || mg.id != top.id || mg.rank != top.rank {
			continue
		}
		syms[i] = token{top.id, syms[i].start, syms[j].end}
		alive[j] = false
		next[i] = next[j]
		if next[j] >= 0 {
			prev[next[j]] = i
		}
		if p := prev[i]; p >= 0 {
			push(p)
		}
		push(i)
	}
	w := 0
	for i := 0; i >= 0 && i < n; i = int(next[i]) {
		syms[w] = syms[i]
		w++
	}
	return w
}

type pairItem struct{ rank, pos, id int32 }

type pairHeap []pairItem

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(a, b int) bool {
	return h[a].rank < h[b].rank || (h[a].rank == h[b].rank && h[a].pos < h[b].pos)
}
func (h pairHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairItem)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// wordCache remembers the tokens of words. Each shard stops growing at its
// share of the capacity rather than evicting, as the reference's cache
// does. It is safe for concurrent use; words are spread over shards by
// hash so that parallel encoders rarely touch the same lock.
type wordCache struct {
	seed   maphash.Seed
	shards [cacheShards]cacheShard
}

const cacheShards = 32

type cacheShard struct {
	mu       sync.RWMutex
	m        map[string][]token
	capacity int
	_        [64]byte // keep shards on separate cache lines
}

// maxCachedWord bounds the length of words kept, so that long unusual
// strings do not fill the cache.
const maxCachedWord = 64

func newWordCache(capacity int) *wordCache {
	c := &wordCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = make(map[string][]token)
		c.shards[i].capacity = capacity / cacheShards
	}
	return c
}

func (c *wordCache) shard(s []byte) *cacheShard {
	return &c.shards[maphash.Bytes(c.seed, s)%cacheShards]
}

func (c *wordCache) get(s []byte) ([]token, bool) {
	if c == nil || len(s) > maxCachedWord {
		return nil, false
	}
	sh := c.shard(s)
	sh.mu.RLock()
	t, ok := sh.m[string(s)]
	sh.mu.RUnlock()
	return t, ok
}

func (c *wordCache) put(s []byte, toks []token) {
	if c == nil || len(s) > maxCachedWord {
		return
	}
	sh := c.shard(s)
	sh.mu.Lock()
	if len(sh.m) < sh.capacity {
		sh.m[string(s)] = append([]token(nil), toks...)
	}
	sh.mu.Unlock()
}

// byteTokenName is SentencePiece's name for a byte-fallback token.
func byteTokenName(b byte) string { return fmt.Sprintf("<0x%02X>", b) }
