package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rivo/uniseg"
)

// precompiled is the Precompiled normalizer of SentencePiece-converted
// files (T5, SigLIP, ALBERT, XLNet): SentencePiece's own normalization
// rules (nmt_nfkc and friends) compiled into a darts-clone double-array
// trie that maps input strings to replacement strings.
//
// The charsmap is: the trie's size in bytes (uint32, little endian), the
// trie's 32-bit units, then the replacement strings, each ended by NUL
// (sentencepiece/src/normalizer.cc, DecodePrecompiledCharsMap). Text is
// normalized one grapheme cluster at a time when the cluster is shorter
// than 6 bytes and found whole, else one character at a time, as the
// reference does to match SentencePiece.
type precompiled struct {
	units      []uint32
	normalized []byte
}

func newPrecompiled(b64 string) (*precompiled, error) {
	blob, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("precompiled_charsmap: %w", err)
	}
	if len(blob) < 4 {
		return nil, errors.New("precompiled_charsmap: shorter than its header")
	}
	size := int(binary.LittleEndian.Uint32(blob))
	if size%4 != 0 || 4+size > len(blob) || size == 0 {
		return nil, fmt.Errorf("precompiled_charsmap: trie size %d does not fit the %d-byte map", size, len(blob))
	}
	p := &precompiled{units: make([]uint32, size/4), normalized: blob[4+size:]}
	for i := range p.units {
		p.units[i] = binary.LittleEndian.Uint32(blob[4+4*i:])
	}
	return p, nil
}

// darts-clone unit fields (darts-clone darts.h, DoubleArrayUnit).
func unitHasLeaf(u uint32) bool { return (u>>8)&1 == 1 }
func unitValue(u uint32) int    { return int(u & (1<<31 - 1)) }
func unitLabel(u uint32) uint32 { return u & (1<<31 | 0xFF) }
func unitOffset(u uint32) int   { return int((u >> 10) << ((u & (1 << 9)) >> 6)) }

// lookup returns the replacement of the shortest key that is a prefix of
// key, as the reference's transform does with the first result of its
// common-prefix search.
func (p *precompiled) lookup(key []byte) ([]byte, bool) {
	if len(p.units) == 0 {
		return nil, false
	}
	pos := unitOffset(p.units[0])
	for _, c := range key {
		if c == 0 {
			break
		}
		pos ^= int(c)
		if pos >= len(p.units) {
			return nil, false
		}
		u := p.units[pos]
		if unitLabel(u) != uint32(c) {
			return nil, false
		}
		pos ^= unitOffset(u)
		if unitHasLeaf(u) {
			if pos >= len(p.units) {
				return nil, false
			}
			v := unitValue(p.units[pos])
			if v >= len(p.normalized) {
				return nil, false
			}
			end := v
			for end < len(p.normalized) && p.normalized[end] != 0 {
				end++
			}
			return p.normalized[v:end], true
		}
	}
	return nil, false
}

func (p *precompiled) normalize(t, tmp *normText) {
	tmp.reset()
	modified := false
	state := -1
	for i := 0; i < len(t.s); {
		var cluster []byte
		cluster, _, _, state = uniseg.FirstGraphemeCluster(t.s[i:], state)
		n := len(cluster)
		if n < 6 {
			if rep, ok := p.lookup(cluster); ok {
				modified = true
				tmp.appendString(string(rep), t.spanOf(i, i+n))
				i += n
				continue
			}
		}
		for j := i; j < i+n; {
			_, size := runeAt(t.s, j)
			if rep, ok := p.lookup(t.s[j : j+size]); ok {
				modified = true
				tmp.appendString(string(rep), t.spanOf(j, j+size))
			} else {
				tmp.appendFrom(t, j, j+size)
			}
			j += size
		}
		i += n
	}
	if modified {
		swap(t, tmp)
	}
}
