package tokenizer

import (
	"slices"
	"testing"
)

func TestByteTriePrefixes(t *testing.T) {
	t.Parallel()
	tr := newByteTrie(map[string]int{"a": 0, "ab": 1, "abcd": 2, "b": 3, "▁": 4, "▁a": 5})
	cases := []struct {
		text string
		want [][2]int // length, id
	}{
		{"abcde", [][2]int{{1, 0}, {2, 1}, {4, 2}}},
		{"abc", [][2]int{{1, 0}, {2, 1}}},
		{"ba", [][2]int{{1, 3}}},
		{"▁ab", [][2]int{{3, 4}, {4, 5}}},
		{"c", nil},
		{"", nil},
	}
	for _, c := range cases {
		var got [][2]int
		tr.prefixes([]byte(c.text), func(n int, id int32) { got = append(got, [2]int{n, int(id)}) })
		if !slices.Equal(got, c.want) {
			t.Errorf("prefixes(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
