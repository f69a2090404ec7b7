package harness

import (
	"context"
	"fmt"
	"math"
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
	t.Parallel()
	items := sampleItems()
	kept, infos := sample(t, items, 300, 1)
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
	t.Parallel()
	items := sampleItems()
	a, _ := sample(t, items, 300, 1)
	rev := slices.Clone(items)
	slices.Reverse(rev)
	b, _ := sample(t, rev, 300, 1)
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
	c, _ := sample(t, items[:1000], 300, 1)
	if !slices.Equal(key(a)[:300], key(c)) {
		t.Error("another benchmark changes A's sample")
	}
	d, _ := sample(t, items, 300, 2)
	if slices.Equal(key(a), key(d)) {
		t.Error("seeds 1 and 2 draw the same sample")
	}
	if all, infos := sample(t, items, 0, 1); len(all) != len(items) || infos != nil {
		t.Error("n = 0 does not keep everything")
	}
}

// sample is Sample without near-duplicate removal.
func sample(t *testing.T, items []*Item, n int, seed uint64) ([]*Item, []SampleInfo) {
	t.Helper()
	kept, infos, err := Sample(context.Background(), items, n, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return kept, infos
}

// vectorEmbedder embeds each question by a fixed unit vector.
func vectorEmbedder(t *testing.T, vs map[string][]float32) QuestionEmbedder {
	return func(_ context.Context, _ string, qs []string) ([][]float32, error) {
		out := make([][]float32, len(qs))
		for k, q := range qs {
			v, ok := vs[q]
			if !ok {
				t.Fatalf("question %q has no vector", q)
			}
			out[k] = v
		}
		return out, nil
	}
}

// One item per near-duplicate group (blog 001; the authors' rule: same
// video AND same option set and answer AND question cosine >= 0.90, the
// smallest id stays). By hand, with cos(holding, holding?) = 0.95 and
// cos(holding, other) = 0: 2 (options reordered) and 10 (ids compare as
// strings, the authors' members.sort(): "1" < "10" < "2") are
// near-duplicates of 1; 3 has another answer,
// 9 another video, 4 another question. The chain x ~ y ~ z (0.95 each, x.z
// = 0.805) is one group: only x stays.
func TestSampleKeepsOneItemPerNearDuplicateGroup(t *testing.T) {
	t.Parallel()
	c, s := float32(0.95), float32(math.Sqrt(1-0.95*0.95))
	c2, s2 := 2*c*c-1, 2*s*c
	vs := map[string][]float32{"holding": {1, 0}, "holding?": {c, s}, "other": {0, 1},
		"x": {1, 0}, "y": {c, s}, "z": {c2, s2}}
	mk := func(id, video, q string, opts []string, answer int) *Item {
		return &Item{ID: id, Benchmark: "A", Video: video, Question: q, Options: opts, Answer: answer, Task: "t"}
	}
	abc, bac := []string{"a", "b", "c"}, []string{"b", "a", "c"}
	items := []*Item{
		mk("10", "v1", "holding?", abc, 0), mk("1", "v1", "holding", abc, 0), mk("2", "v1", "holding?", bac, 1),
		mk("3", "v1", "holding", abc, 1), mk("9", "v2", "holding", abc, 0), mk("4", "v1", "other", abc, 0),
		mk("x", "v3", "x", abc, 2), mk("y", "v3", "y", abc, 2), mk("z", "v3", "z", abc, 2),
	}
	kept, infos, err := Sample(context.Background(), items, 20, 1, vectorEmbedder(t, vs))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range kept {
		ids = append(ids, it.ID)
	}
	if want := []string{"1", "3", "9", "4", "x"}; !slices.Equal(ids, want) {
		t.Errorf("kept %v, want %v", ids, want)
	}
	if len(infos) != 1 || infos[0].Duplicates != 4 || infos[0].Refilled != 0 || infos[0].N != 5 || infos[0].Of != 9 {
		t.Errorf("infos %+v: want 4 duplicates removed, none replaced (every item was drawn), 5 of 9", infos)
	}
}

// A near-duplicate that leaves the draw is replaced by the next unsampled
// item of its stratum in the hash order, skipping a candidate that is a
// near-duplicate of a kept item ("refill to 300 where possible").
func TestSampleRefillsSkippingDuplicatesOfKeptItems(t *testing.T) {
	t.Parallel()
	var items []*Item
	for k := 1; k <= 8; k++ {
		items = append(items, &Item{ID: fmt.Sprint(k), Benchmark: "A", Task: "t", Options: []string{"a", "b"}})
	}
	members := []int{0, 1, 2, 3, 4, 5, 6, 7}
	r := rankByHash(items, members, 7)
	// By rank: r0 and r1 one question on one video, r3 a third copy of it;
	// the others distinct.
	for pos, i := range r {
		items[i].Video, items[i].Question = fmt.Sprint("v", pos), fmt.Sprint("q", pos)
	}
	for _, pos := range []int{0, 1, 3} {
		items[r[pos]].Video, items[r[pos]].Question = "same", "same"
	}
	vs := map[string][]float32{"same": {1, 0}}
	stays, goes := r[0], r[1]
	if items[goes].ID < items[stays].ID {
		stays, goes = goes, stays
	}
	kept, infos, err := Sample(context.Background(), items, 3, 7, vectorEmbedder(t, vs))
	if err != nil {
		t.Fatal(err)
	}
	want := []*Item{items[stays], items[r[2]], items[r[4]]}
	slices.SortFunc(want, func(a, b *Item) int { return slices.Index(items, a) - slices.Index(items, b) })
	if !slices.Equal(kept, want) {
		t.Errorf("kept %v, want %v (r3 duplicates the kept %s, so r4 refills)", itemIDs(kept), itemIDs(want), items[stays].ID)
	}
	if len(infos) != 1 || infos[0].Duplicates != 1 || infos[0].Refilled != 1 || infos[0].N != 3 {
		t.Errorf("infos %+v: want 1 near-duplicate replaced, 3 items", infos)
	}
}

func itemIDs(xs []*Item) []string {
	var out []string
	for _, it := range xs {
		out = append(out, it.ID)
	}
	return out
}
