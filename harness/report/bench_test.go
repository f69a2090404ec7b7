package report

import (
	"context"
	"io"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// BenchmarkWriteItemsParquet writes the item table of the embedded default
// (4,049 real items) with eight attackers' columns.
func BenchmarkWriteItemsParquet(b *testing.B) {
	items, err := harness.ReadFS(context.Background(), demo.FS(), demo.Items(), harness.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	names := []string{"fixed-position", "option-artifact", "question-match", "position-prior", "copy", "siblings", "knn-vote", "regression"}
	r := &Report{Items: items}
	for _, n := range names {
		r.Attackers = append(r.Attackers, Attacker{Name: n, Level: harness.LevelPool})
	}
	for i, it := range items {
		for k, n := range names {
			m := float64((i*7+k)%13) - 6
			r.Scores = append(r.Scores, metrics.ItemScore{Item: i, Attacker: n, Choice: (i + k) % len(it.Options), Margin: m, Solved: m > 0.6931})
		}
	}
	for b.Loop() {
		if err := r.WriteItemsParquet(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(items)*b.N)/b.Elapsed().Seconds(), "items/s")
}
