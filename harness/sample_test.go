package harness

import (
	"fmt"
	"slices"
	"testing"
)

func sampleItems() []*Item {
	var items []*Item
	// Benchmark A: tasks t1 (600 items, groups g1 400 / g2 200), t2 (300),
	// t3 (100). Benchmark B: 50 items.
	add := func(b, task, group string, n int) {
		for k := 0; k < n; k++ {
			items = append(items, &Item{ID: fmt.Sprintf("%s-%s-%d", task, group, k), Benchmark: b, Task: task, Group: group, Options: []string{"x", "y"}})
		}
	}
	add("A", "t1", "g1", 400)
	add("A", "t1", "g2", 200)
	add("A", "t2", "", 300)
	add("A", "t3", "", 100)
	add("B", "t", "", 50)
	return items
}

func TestSamplePreservesTaskThenGroupProportions(t *testing.T) {
	items := sampleItems()
	kept, infos := Sample(items, 300, 1)
	if len(infos) != 1 || infos[0].Benchmark != "A" || infos[0].Of != 1000 || infos[0].N != 300 {
		t.Fatalf("infos %+v, want only A sampled, 300 of 1000", infos)
	}
	count := map[string]int{}
	for _, it := range kept {
		count[it.Benchmark+"/"+it.Task+"/"+it.Group]++
	}
	want := map[string]int{"A/t1/g1": 120, "A/t1/g2": 60, "A/t2/": 90, "A/t3/": 30, "B/t/": 50}
	for k, v := range want {
		if count[k] != v {
			t.Errorf("%s: %d items, want %d (all counts %v)", k, count[k], v, count)
		}
	}
	// Input order is kept.
	for k := 1; k < len(kept); k++ {
		if slices.Index(items, kept[k]) < slices.Index(items, kept[k-1]) {
			t.Fatal("sample not in input order")
		}
	}
}

func TestSampleDependsOnSeedAndKeysOnly(t *testing.T) {
	items := sampleItems()
	a, _ := Sample(items, 300, 1)
	rev := slices.Clone(items)
	slices.Reverse(rev)
	b, _ := Sample(rev, 300, 1)
	key := func(xs []*Item) []string {
		var out []string
		for _, it := range xs {
			out = append(out, it.Key())
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(key(a), key(b)) {
		t.Error("reversing the input changes the sample")
	}
	// Dropping benchmark B changes nothing of A's draw.
	c, _ := Sample(items[:1000], 300, 1)
	if !slices.Equal(key(a)[:300], key(c)) {
		t.Error("another benchmark changes A's sample")
	}
	d, _ := Sample(items, 300, 2)
	if slices.Equal(key(a), key(d)) {
		t.Error("seeds 1 and 2 draw the same sample")
	}
	if all, infos := Sample(items, 0, 1); len(all) != len(items) || infos != nil {
		t.Error("n = 0 does not keep everything")
	}
}
