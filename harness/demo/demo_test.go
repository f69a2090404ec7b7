package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

func TestEmbeddedItemsAreValidAndCoverFourBenchmarks(t *testing.T) {
	t.Parallel()
	items, err := harness.ReadFS(context.Background(), FS(), Items(), harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, it := range items {
		per[it.Benchmark]++
	}
	want := map[string]int{"NExT-QA": 1044, "Social-IQ-2.0": 1015, "STAR": 1014, "VideoHallucer": 976}
	for b, n := range want {
		if per[b] != n {
			t.Errorf("%s: %d items, want %d (the counts of data/README.md)", b, per[b], n)
		}
	}
	if len(per) != len(want) {
		t.Errorf("benchmarks %v, want %v", per, want)
	}
}

func TestNoticeNamesEveryFileAndLicence(t *testing.T) {
	t.Parallel()
	n := Notice()
	for _, s := range append(Items(), "MIT", "Apache-2.0", "BSD-3-Clause") {
		if !strings.Contains(n, s) {
			t.Errorf("notice does not mention %q", s)
		}
	}
}
