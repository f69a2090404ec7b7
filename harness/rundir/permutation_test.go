package rundir

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodePermutation: the stored record gives choices and margins (NaN
// for a null); a file written before the margins were kept, a plain list of
// choices, gives nil margins (absent, not zeros); a count that is not the
// items' is refused.
func TestDecodePermutation(t *testing.T) {
	c, m, err := DecodePermutation([]byte(`{"choices":[0,2,1],"margins":[2,null,-0.5]}`+"\n"), 3)
	if err != nil || len(c) != 3 || c[1] != 2 || len(m) != 3 || m[0] != 2 || !math.IsNaN(m[1]) || m[2] != -0.5 {
		t.Errorf("record: %v, %v, %v", c, m, err)
	}
	c, m, err = DecodePermutation([]byte("[0,2,1]\n"), 3)
	if err != nil || len(c) != 3 || c[2] != 1 || m != nil {
		t.Errorf("old list: %v, %v, %v; want the choices and no margins", c, m, err)
	}
	if c, m, err = DecodePermutation([]byte(`{"choices":[0,2,1]}`), 3); err != nil || m != nil || len(c) != 3 {
		t.Errorf("record without margins: %v, %v, %v", c, m, err)
	}
	for _, bad := range []string{"[0,2]", `{"choices":[0,2,1],"margins":[1]}`, "[1, 2", "{}"} {
		if _, _, err := DecodePermutation([]byte(bad), 3); err == nil {
			t.Errorf("%s decoded for 3 items", bad)
		}
	}
}

// TestEncodePermutationReadsBack: what EncodePermutation writes is one line
// of JSON that DecodePermutation reads back, a null margin as NaN.
func TestEncodePermutationReadsBack(t *testing.T) {
	m := -0.25
	var b bytes.Buffer
	if err := EncodePermutation(&b, &PermutationRecord{Choices: []int{1, 0}, Margins: []*float64{&m, nil}}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), `{"choices":[1,0],"margins":[-0.25,null]}`+"\n"; got != want {
		t.Errorf("encoded %q, want %q", got, want)
	}
	c, ms, err := DecodePermutation(b.Bytes(), 2)
	if err != nil || c[0] != 1 || c[1] != 0 || ms[0] != m || !math.IsNaN(ms[1]) {
		t.Errorf("read back %v, %v, %v", c, ms, err)
	}
}

// TestPermutationFileIsNamedByItsContent: the file is in the cache, named
// by attacker and order, and another seed or other items give another file.
func TestPermutationFileIsNamedByItsContent(t *testing.T) {
	keys := []string{"B\x00a", "B\x00b"}
	p := PermutationFile("out", "options-reader", 1, 2, keys)
	// The name a run of format 3 gave this file: a resumed run finds it.
	if want := filepath.Join("out", "cache", "perm-options-reader-2-98dd50291ccedbc0db0e360b0b3023c8.json"); p != want {
		t.Errorf("PermutationFile = %s, want %s", p, want)
	}
	if dir, base := filepath.Split(p); dir != filepath.Join("out", CacheDir)+"/" || !strings.HasPrefix(base, "perm-options-reader-2-") || !strings.HasSuffix(base, ".json") {
		t.Errorf("PermutationFile = %s", p)
	}
	for name, other := range map[string]string{
		"another seed":  PermutationFile("out", "options-reader", 2, 2, keys),
		"other items":   PermutationFile("out", "options-reader", 1, 2, keys[:1]),
		"another order": PermutationFile("out", "options-reader", 1, 3, keys),
	} {
		if filepath.Base(other)[len("perm-options-reader-2-"):] == filepath.Base(p)[len("perm-options-reader-2-"):] {
			t.Errorf("%s gives the same content key: %s", name, other)
		}
	}
}
