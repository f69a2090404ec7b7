package metrics

import (
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answercheck"
)

// BenchmarkErrorAttributions profiles the reference's errors of 100,000
// items over 100 benchmarks with a blind reader's scores.
func BenchmarkErrorAttributions(b *testing.B) {
	const n = 100_000
	items := make([]*harness.Item, n)
	ref := make(map[string]int, n)
	scores := make([]ItemScore, n)
	for i := range items {
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: fmt.Sprint("B", i%100), Options: []string{"a", "b", "c", "d"}, Answer: i % 4, Task: fmt.Sprint("T", i%18), Group: fmt.Sprint("G", i%4)}
		items[i] = it
		ref[it.Key()] = (i / 3) % 4
		scores[i] = ItemScore{Item: i, Attacker: "blind-reader", Choice: (i / 5) % 4, Scored: true}
	}
	b.ResetTimer()
	for range b.N {
		if len(ErrorAttributions(items, ref, scores, "blind-reader", false)) != 100 {
			b.Fatal("want 100 benchmarks")
		}
	}
}

// BenchmarkAnswerChecks counts 100,000 verdict records over 100
// benchmarks.
func BenchmarkAnswerChecks(b *testing.B) {
	const n = 100_000
	recs := make([]answercheck.Record, n)
	for i := range recs {
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: fmt.Sprint("B", i%100)}
		recs[i] = answercheck.Decide(it, answercheck.Verdicts[i%4], answercheck.Verdicts[(i/4)%4], float64(i%120))
	}
	b.ResetTimer()
	for range b.N {
		if len(AnswerChecks(recs, "vlm_reader:m")) != 100 {
			b.Fatal("want 100 benchmarks")
		}
	}
}
