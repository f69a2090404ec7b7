package tokenizer

import "sort"

// byteTrie finds the vocabulary entries that are prefixes of a text, for
// the unigram lattice, walking the text once instead of looking up every
// possible length.
type byteTrie struct {
	nodes []trieNode
}

type trieNode struct {
	id       int32 // entry ending here, -1 if none
	children []trieEdge
}

type trieEdge struct {
	b     byte
	child int32
}

func newByteTrie(ids map[string]int) *byteTrie {
	keys := make([]string, 0, len(ids))
	for k := range ids {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t := &byteTrie{nodes: []trieNode{{id: -1}}}
	for _, k := range keys {
		n := int32(0)
		for i := 0; i < len(k); i++ {
			n = t.child(n, k[i], true)
		}
		t.nodes[n].id = int32(ids[k])
	}
	return t
}

// child returns the child of n along b, adding it when add is set, or -1.
// Keys are inserted in sorted order, so children stay sorted by byte.
func (t *byteTrie) child(n int32, b byte, add bool) int32 {
	ch := t.nodes[n].children
	if k := len(ch); k > 0 && ch[k-1].b == b {
		return ch[k-1].child
	}
	if add {
		c := int32(len(t.nodes))
		t.nodes = append(t.nodes, trieNode{id: -1})
		t.nodes[n].children = append(t.nodes[n].children, trieEdge{b, c})
		return c
	}
	i := sort.Search(len(ch), func(i int) bool { return ch[i].b >= b })
	if i < len(ch) && ch[i].b == b {
		return ch[i].child
	}
	return -1
}

// prefixes calls f with the length and id of every entry that is a prefix
// of s, shortest first.
func (t *byteTrie) prefixes(s []byte, f func(n int, id int32)) {
	n := int32(0)
	for i := 0; i < len(s); i++ {
		if n = t.child(n, s[i], false); n < 0 {
			return
		}
		if id := t.nodes[n].id; id >= 0 {
			f(i+1, id)
		}
	}
}
