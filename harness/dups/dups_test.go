package dups_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/kernels"
)

// fixture builds items whose embeddings are unit vectors at chosen angles in
// the plane, so every cosine is known: cos(a-b).
func fixture(specs []struct {
	bench, video string
	angle        float64 // degrees
}) ([]*harness.Item, *kernels.Matrix) {
	items := make([]*harness.Item, len(specs))
	m := kernels.NewMatrix(len(specs), 2)
	for i, s := range specs {
		items[i] = &harness.Item{ID: string(rune('a' + i)), Benchmark: s.bench, Video: s.video, Question: "q", Options: []string{"x", "y"}}
		r := s.angle * math.Pi / 180
		m.Row(i)[0], m.Row(i)[1] = float32(math.Cos(r)), float32(math.Sin(r))
	}
	return items, m
}

func TestFindCountsPairsClustersFlowsAndSharedVideos(t *testing.T) {
	t.Parallel()
	// cos 10 deg = 0.985, cos 20 deg = 0.940, cos 30 deg = 0.866.
	items, m := fixture([]struct {
		bench, video string
		angle        float64
	}{
		{"A", "v1", 0},   // 0
		{"A", "v2", 20},  // 1: near 0 (20 deg)
		{"A", "v3", 40},  // 2: near 1 only: chains 0-1-2 into one cluster
		{"A", "v4", 120}, // 3: alone
		{"B", "v1", 130}, // 4: near 3 (10 deg) across benchmarks; shares video v1 with A
		{"B", "v5", 200}, // 5: alone
		{"B", "v6", 205}, // 6: near 5
		{"A", "v1", 300}, // 7: alone; a second A item on the video B uses
	})
	res, err := dups.Find(context.Background(), items, m, 0.90)
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]int
	for _, p := range res.Pairs {
		pairs = append(pairs, [2]int{p.A, p.B})
	}
	if want := [][2]int{{0, 1}, {1, 2}, {3, 4}, {5, 6}}; !slices.Equal(pairs, want) {
		t.Fatalf("pairs %v, want %v", pairs, want)
	}
	if want := []int32{0, 0, 0, 3, 3, 5, 5, 7}; !slices.Equal(res.Cluster, want) {
		t.Errorf("clusters %v, want %v", res.Cluster, want)
	}
	if want := []int32{3, 3, 3, 2, 2, 2, 2, 1}; !slices.Equal(res.ClusterSize, want) {
		t.Errorf("cluster sizes %v, want %v", res.ClusterSize, want)
	}
	// Within one benchmark only: 3 and 4 are apart.
	if want := []int32{3, 3, 3, 1, 1, 2, 2, 1}; !slices.Equal(res.WithinSize, want) {
		t.Errorf("within-benchmark sizes %v, want %v", res.WithinSize, want)
	}
	a, _ := res.ForBenchmark("A")
	b, _ := res.ForBenchmark("B")
	// Shared videos count items, not distinct ids: two A items use v1.
	wantA := dups.Benchmark{Benchmark: "A", N: 5, WithinPairs: 2, NearDuplicateShare: 0.6, Clusters: 3, CrossItems: 1, CrossPairs: 1, SharedVideoItems: 2}
	wantB := dups.Benchmark{Benchmark: "B", N: 3, WithinPairs: 1, NearDuplicateShare: 2.0 / 3, Clusters: 2, CrossItems: 1, CrossPairs: 1, SharedVideoItems: 1}
	if a != wantA {
		t.Errorf("A: %+v, want %+v", a, wantA)
	}
	if b != wantB {
		t.Errorf("B: %+v, want %+v", b, wantB)
	}
	if want := []dups.Flow{{"A", "A", 2}, {"A", "B", 1}, {"B", "B", 1}}; !slices.Equal(res.Flows, want) {
		t.Errorf("flows %v, want %v", res.Flows, want)
	}
	if want := []dups.Flow{{"A", "B", 2}, {"B", "A", 1}}; !slices.Equal(res.Videos, want) {
		t.Errorf("shared videos %v, want %v", res.Videos, want)
	}
	if _, ok := res.ForBenchmark("C"); ok {
		t.Error("found figures for a benchmark that is not in the run")
	}
}

func TestFindRefusesMismatchedEmbeddings(t *testing.T) {
	t.Parallel()
	items, m := fixture([]struct {
		bench, video string
		angle        float64
	}{{"A", "v", 0}, {"A", "v", 1}})
	if _, err := dups.Find(context.Background(), items[:1], m, 0.9); err == nil {
		t.Error("no error for 2 rows and 1 item")
	}
	if _, err := dups.Find(context.Background(), items, nil, 0.9); err == nil {
		t.Error("no error without embeddings")
	}
}
