package demo

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestHeadTakesTheFirstLinesOfEveryBenchmark(t *testing.T) {
	t.Parallel()
	b, err := Head(2)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 2*len(Items()) {
		t.Fatalf("got %d lines, want %d", len(lines), 2*len(Items()))
	}
	seen := map[string]int{}
	for _, l := range lines {
		var it struct{ Benchmark string }
		if err := json.Unmarshal(l, &it); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		seen[it.Benchmark]++
	}
	if len(seen) != len(Items()) {
		t.Errorf("benchmarks %v: want %d, two lines each", seen, len(Items()))
	}
}
