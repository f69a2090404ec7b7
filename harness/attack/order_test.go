package attack_test

import (
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
)

// TestOrdersAreRotatingSplits: within every benchmark, the last fifth of
// order o is fold o of one fixed partition, so over five orders every item
// is scored exactly once (Video-Index 3.4, "five rotating splits"). Five
// independent shuffles left a third of the items never scored and a quarter
// scored twice.
func TestOrdersAreRotatingSplits(t *testing.T) {
	t.Parallel()
	var items []*harness.Item
	for b, n := range map[string]int{"A": 503, "B": 97, "C": 3} {
		for i := 0; i < n; i++ {
			items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: b, Options: []string{"x", "y"}})
		}
	}
	folds := attack.Folds(items, 9)
	orders := attack.Orders(items, 9, attack.NumFolds)
	scored := make([]int, len(items))
	for o, order := range orders {
		// Walk each benchmark's subsequence: its scored fold must come last.
		tail := map[string]bool{} // benchmark -> the scored fold has started
		for _, i := range order {
			b := items[i].Benchmark
			in := folds[i] == attack.ScoredFold(o)
			if tail[b] && !in {
				t.Fatalf("order %d: item %s of %s outside fold %d after the fold began", o, items[i].ID, b, o)
			}
			tail[b] = tail[b] || in
			if in {
				scored[i]++
			}
		}
	}
	sizes := map[string][attack.NumFolds]int{}
	for i, it := range items {
		if scored[i] != 1 {
			t.Fatalf("item %s of %s scored %d times over five orders, want once", it.ID, it.Benchmark, scored[i])
		}
		s := sizes[it.Benchmark]
		s[folds[i]]++
		sizes[it.Benchmark] = s
	}
	for b, s := range sizes {
		lo, hi := s[0], s[0]
		for _, v := range s {
			lo, hi = min(lo, v), max(hi, v)
		}
		if hi-lo > 1 {
			t.Errorf("%s: fold sizes %v differ by more than one", b, s)
		}
	}
}
