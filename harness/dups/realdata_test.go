package dups_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/harness/dups"
)

// TestNearDuplicatesOfRealData checks the near-duplicate figures of the
// four development files against what their README says: VideoHallucer
// repeats about 200 items verbatim between categories, STAR's templated
// questions repeat, NExT-QA and Social-IQ 2.0 hardly do, and no benchmark
// shares a video id with another.
func TestNearDuplicatesOfRealData(t *testing.T) {
	items := attacktest.LoadReal(t)
	text, _, err := attacktest.Embed(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	res, err := dups.Find(context.Background(), items, text, dups.DefaultThreshold)
	if err != nil {
		t.Fatal(err)
	}
	share := map[string]float64{}
	for _, b := range res.Benchmarks {
		share[b.Benchmark] = b.NearDuplicateShare
		t.Logf("%-14s n=%5d near-duplicate share %.3f, %d pairs within, %d clusters, %d items with a duplicate elsewhere, %d shared videos",
			b.Benchmark, b.N, b.NearDuplicateShare, b.WithinPairs, b.Clusters, b.CrossItems, b.SharedVideos)
	}
	for _, f := range res.Flows {
		t.Logf("flow %s -> %s: %d pairs", f.From, f.To, f.Count)
	}
	// Every verbatim repeat (same benchmark, same question and options) must
	// be a pair.
	paired := map[[2]int]bool{}
	for _, p := range res.Pairs {
		paired[[2]int{p.A, p.B}] = true
	}
	first := map[string]int{}
	repeats := 0
	for i, it := range items {
		k := it.Benchmark + "|" + strings.ToLower(it.Question) + "|" + strings.ToLower(strings.Join(it.Options, "|"))
		j, ok := first[k]
		if !ok {
			first[k] = i
			continue
		}
		repeats++
		if !paired[[2]int{j, i}] {
			t.Fatalf("%s and %s repeat each other but are not a pair", items[j].ID, it.ID)
		}
	}
	vhRepeats := 0
	for i, it := range items {
		if it.Benchmark == "VideoHallucer" && res.ClusterSize[i] > 1 {
			vhRepeats++
		}
	}
	t.Logf("%d verbatim repeats, all paired; %d VideoHallucer items in clusters", repeats, vhRepeats)
	if share["VideoHallucer"] < 0.2 {
		t.Errorf("VideoHallucer near-duplicate share %.3f, want >= 0.2", share["VideoHallucer"])
	}
	if !(share["STAR"] > 0.1 && share["STAR"] > 10*share["NExT-QA"] && share["STAR"] > 10*share["Social-IQ-2.0"]) {
		t.Errorf("shares %v: STAR's templates should stand out", share)
	}
	if len(res.Videos) != 0 {
		t.Errorf("shared videos %v; the four benchmarks use distinct video ids", res.Videos)
	}
	for i := range items {
		if res.WithinSize[i] > res.ClusterSize[i] {
			t.Fatalf("item %d: within-benchmark cluster %d larger than its cluster %d", i, res.WithinSize[i], res.ClusterSize[i])
		}
	}
}

// BenchmarkFind joins the question+options embeddings of all four
// development files with themselves at 0.90 and reports items per second.
func BenchmarkFind(b *testing.B) {
	items := attacktest.LoadReal(b)
	text, _, err := attacktest.Embed(context.Background(), items)
	if err != nil {
		b.Fatal(err)
	}
	var res *dups.Result
	for b.Loop() {
		if res, err = dups.Find(context.Background(), items, text, dups.DefaultThreshold); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(items)*b.N)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric(float64(len(res.Pairs)), "pairs")
}
