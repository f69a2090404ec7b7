package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// buildCharsmap builds a precompiled_charsmap for table: a darts-clone
// double array whose leaves hold offsets into the NUL-separated
// replacements. It places each node's children at the smallest free base,
// breadth first; any placement is valid, this one is deterministic.
func buildCharsmap(table map[string]string) string {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type node struct {
		children map[byte]*node
		leaf     bool
		value    int
	}
	root := &node{children: map[byte]*node{}}
	var normalized []byte
	for _, k := range keys {
		n := root
		for i := 0; i < len(k); i++ {
			c, ok := n.children[k[i]]
			if !ok {
				c = &node{children: map[byte]*node{}}
				n.children[k[i]] = c
			}
			n = c
		}
		n.leaf, n.value = true, len(normalized)
		normalized = append(append(normalized, table[k]...), 0)
	}
	units := map[int]uint32{}
	used := map[int]bool{0: true}
	type placed struct {
		pos int
		n   *node
	}
	queue := []placed{{0, root}}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		var labels []int
		for c := range p.n.children {
			labels = append(labels, int(c))
		}
		sort.Ints(labels)
		need := labels
		if p.n.leaf {
			need = append(slices.Clone(labels), 0)
		}
		base := 1
		for free := false; !free; base++ {
			free = true
			for _, l := range need {
				if used[base^l] || base^l == 0 {
					free = false
					break
				}
			}
			if free {
				break
			}
		}
		for _, l := range need {
			used[base^l] = true
		}
		u := units[p.pos] | uint32(p.pos^base)<<10
		if p.n.leaf {
			u |= 1 << 8
		}
		units[p.pos] = u
		for _, l := range labels {
			units[base^l] |= uint32(l)
			queue = append(queue, placed{base ^ l, p.n.children[byte(l)]})
		}
		if p.n.leaf {
			units[base] = uint32(p.n.value) | 1<<31
		}
	}
	n := 0
	for pos := range units {
		n = max(n, pos+1)
	}
	blob := binary.LittleEndian.AppendUint32(nil, uint32(4*n))
	for i := range n {
		blob = binary.LittleEndian.AppendUint32(blob, units[i])
	}
	return base64.StdEncoding.EncodeToString(append(blob, normalized...))
}

// t5CharsmapTable is the normalization table of testdata/t5_tiny.json.
var t5CharsmapTable = map[string]string{
	"ﬁ":       "fi",
	"Ａ":       "A",
	"\u3000":  " ",
	"e\u0301": "é",
}

func TestPrecompiledFixture(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "t5_tiny.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Normalizer struct {
			Normalizers []struct {
				Charsmap string `json:"precompiled_charsmap"`
			} `json:"normalizers"`
		} `json:"normalizer"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if got, want := f.Normalizer.Normalizers[0].Charsmap, buildCharsmap(t5CharsmapTable); got != want {
		t.Errorf("t5_tiny.json's charsmap is not the one built from t5CharsmapTable:\n got %s\nwant %s", got, want)
	}
}

func TestPrecompiledLookup(t *testing.T) {
	table := map[string]string{"ab": "X", "abc": "Y", "b": "", "é": "e", "ｶ": "カ"}
	p, err := newPrecompiled(buildCharsmap(table))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		key   string
		want  string
		found bool
	}{
		{"ab", "X", true},
		// The shortest key that prefixes the input wins, as the
		// reference's transform takes the first common-prefix result.
		{"abc", "X", true},
		{"abz", "X", true},
		{"a", "", false},
		{"b", "", true},
		{"é", "e", true},
		{"ｶ", "カ", true},
		{"z", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, ok := p.lookup([]byte(c.key))
		if ok != c.found || string(got) != c.want {
			t.Errorf("lookup(%q) = %q, %v; want %q, %v", c.key, got, ok, c.want, c.found)
		}
	}
	var text, tmp normText
	text.setOriginal("xéｶb!", 0)
	p.normalize(&text, &tmp)
	if got := string(text.s); got != "xeカ!" {
		t.Errorf("normalize = %q, want %q", got, "xeカ!")
	}
	// "e" comes from é, bytes 1..3 of the input.
	if sp := text.spanOf(1, 2); sp != (span{1, 3}) {
		t.Errorf("e maps to %v, want {1 3}", sp)
	}
}

func TestPrecompiledErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, b64, want string }{
		{"not base64", "%%%", "illegal base64"},
		{"too short", base64.StdEncoding.EncodeToString([]byte{1, 0}), "shorter than its header"},
		{"trie past the end", base64.StdEncoding.EncodeToString([]byte{64, 0, 0, 0, 1, 2, 3, 4}), "does not fit"},
	} {
		if _, err := newPrecompiled(c.b64); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
