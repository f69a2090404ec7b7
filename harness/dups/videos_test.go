package dups

import (
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// Shared videos by content (Video-Index 4.5): A's "a1" and B's "b7" are one
// file under two names, and A's "x" and C's "x" two files under one name.
// By video id, A and C share one video (2 items) and A and B none; by
// content, A and B share one (2 items) and A and C none.
func TestSharedVideosByContent(t *testing.T) {
	t.Parallel()
	items := []*harness.Item{
		{ID: "1", Benchmark: "A", Video: "a1"},
		{ID: "2", Benchmark: "A", Video: "x"},
		{ID: "3", Benchmark: "B", Video: "b7"},
		{ID: "4", Benchmark: "C", Video: "x"},
		{ID: "5", Benchmark: "C", Video: "lost"},
		{ID: "6", Benchmark: "B", Video: "lost"},
	}
	res := &Result{}
	summarise(res, items)
	byID := map[string]int{}
	for _, b := range res.Benchmarks {
		byID[b.Benchmark] = b.SharedVideoItems
	}
	// "lost" is shared by id: B and C both name it.
	if byID["A"] != 1 || byID["B"] != 1 || byID["C"] != 2 || res.VideosBy != VideosByID {
		t.Errorf("by id: shared items %v (%s), want A 1, B 1, C 2", byID, res.VideosBy)
	}
	// Items 5 and 6 could not be read: they keep their video id.
	content := []string{"h1", "h2", "h1", "h3", "", ""}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = VideoIdentity(it, content[i])
	}
	res.SharedVideos(items, ids, VideosByContent)
	byContent := map[string]int{}
	for _, b := range res.Benchmarks {
		byContent[b.Benchmark] = b.SharedVideoItems
	}
	if byContent["A"] != 1 || byContent["B"] != 2 || byContent["C"] != 1 || res.VideosBy != VideosByContent {
		t.Errorf("by content: shared items %v (%s), want A 1, B 2, C 1", byContent, res.VideosBy)
	}
	want := []Flow{{"A", "B", 1}, {"B", "A", 1}, {"B", "C", 1}, {"C", "B", 1}}
	if !slices.Equal(res.Videos, want) {
		t.Errorf("by content: flows %v, want %v", res.Videos, want)
	}
	// A confirmation's summary keeps the identity.
	c, err := confirm(items, res, func(int) []float32 { return []float32{1} })
	if err != nil {
		t.Fatal(err)
	}
	if c.VideosBy != VideosByContent || !slices.Equal(c.Videos, want) {
		t.Errorf("after confirmation: %s %v", c.VideosBy, c.Videos)
	}
}
