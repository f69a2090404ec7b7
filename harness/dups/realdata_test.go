package dups_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/kernels"
)

// TestNearDuplicatesOfRealData checks the near-duplicate figures of the
// four development files, found on question embeddings as 001 defines them
// ("question cosine >= 0.9"), against what their README says: VideoHallucer
// repeats about 200 items verbatim between categories, STAR's templated
// questions repeat word for word across most of its items, NExT-QA and
// Social-IQ 2.0 hardly repeat, and no benchmark shares a video id with
// another. Every item whose question repeats verbatim within its benchmark
// must count as a near-duplicate: on question+options embeddings STAR's
// share came out at 11% although 81% of its items repeat a question.
func TestNearDuplicatesOfRealData(t *testing.T) {
	t.Parallel()
	items := attacktest.LoadReal(t)
	_, question, err := attacktest.Embed(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	res, err := dups.Find(context.Background(), items, question, dups.DefaultThreshold)
	if err != nil {
		t.Fatal(err)
	}
	// The join read by tiles (29,712 rows: four tiles) finds the very same
	// result.
	tiled, err := dups.FindRows(context.Background(), items, question, dups.DefaultThreshold, kernels.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tiled, res) {
		t.Fatalf("FindRows: %d pairs, Find: %d; the results differ", len(tiled.Pairs), len(res.Pairs))
	}
	share := map[string]float64{}
	for _, b := range res.Benchmarks {
		share[b.Benchmark] = b.NearDuplicateShare
		t.Logf("%-14s n=%5d near-duplicate share %.3f, %d pairs within, %d clusters, %d items with a duplicate elsewhere, %d items on shared videos",
			b.Benchmark, b.N, b.NearDuplicateShare, b.WithinPairs, b.Clusters, b.CrossItems, b.SharedVideoItems)
	}
	for _, f := range res.Flows {
		t.Logf("flow %s -> %s: %d pairs", f.From, f.To, f.Count)
	}
	// Every verbatim repeat of a question within a benchmark must be a pair,
	// and the share of items with a near-duplicate at least the share whose
	// question repeats.
	paired := map[[2]int]bool{}
	for _, p := range res.Pairs {
		paired[[2]int{p.A, p.B}] = true
	}
	first := map[string]int{}
	repeated := map[int]bool{}
	for i, it := range items {
		k := it.Benchmark + "|" + strings.ToLower(strings.TrimSpace(it.Question))
		j, ok := first[k]
		if !ok {
			first[k] = i
			continue
		}
		repeated[i], repeated[j] = true, true
		if !paired[[2]int{j, i}] {
			t.Fatalf("%s and %s ask the same question but are not a pair", items[j].ID, it.ID)
		}
	}
	repeatShare := map[string]float64{}
	n := map[string]int{}
	for i, it := range items {
		n[it.Benchmark]++
		if repeated[i] {
			repeatShare[it.Benchmark]++
		}
	}
	for b := range repeatShare {
		repeatShare[b] /= float64(n[b])
		if share[b] < repeatShare[b] {
			t.Errorf("%s: near-duplicate share %.3f below the share of items whose question repeats verbatim, %.3f", b, share[b], repeatShare[b])
		}
	}
	t.Logf("share of items whose question repeats verbatim: %v", repeatShare)
	vhRepeats := 0
	for i, it := range items {
		if it.Benchmark == "VideoHallucer" && res.ClusterSize[i] > 1 {
			vhRepeats++
		}
	}
	t.Logf("%d VideoHallucer items in clusters", vhRepeats)
	if share["VideoHallucer"] < 0.2 {
		t.Errorf("VideoHallucer near-duplicate share %.3f, want >= 0.2", share["VideoHallucer"])
	}
	if !(share["STAR"] > 0.5 && share["STAR"] > 3*share["NExT-QA"] && share["STAR"] > 3*share["Social-IQ-2.0"]) {
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

// BenchmarkFind joins the question embeddings of all four development files
// with themselves at 0.90 and reports items per second.
func BenchmarkFind(b *testing.B) {
	items := attacktest.LoadReal(b)
	_, text, err := attacktest.Embed(context.Background(), items)
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
