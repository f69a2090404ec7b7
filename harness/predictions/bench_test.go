package predictions

import (
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// BenchmarkMatch pairs the rows of a result file with a pool the size of a
// large benchmark collection, half through ids and half through question
// text (ids that do not agree), each reply parsed: the cost of reading a
// model's answers before an audit.
func BenchmarkMatch(b *testing.B) {
	const n = 20000
	items := make([]*harness.Item, n)
	rows := make([]Row, n)
	for i := range items {
		opts := []string{fmt.Sprintf("the man opens door %d", i), fmt.Sprintf("the woman sits on chair %d", i), "nothing happens", fmt.Sprintf("a dog barks %d times", i)}
		items[i] = &harness.Item{ID: fmt.Sprintf("v%d_q", i), Benchmark: "B", Video: fmt.Sprint(i), Question: fmt.Sprintf("What happens in clip %d?", i), Options: opts, Answer: i % 4}
		rows[i] = Row{Source: fmt.Sprintf("r:%d", i+1), Question: items[i].Question, Options: opts, Reply: "The answer is (B).", HasPrediction: true, Choice: -1}
		if i%2 == 0 {
			rows[i].ID, rows[i].Benchmark = items[i].ID, "B"
		} else {
			rows[i].ID = fmt.Sprint(i) // VLMEvalKit's index: no item has it
		}
	}
	for b.Loop() {
		_, rep, err := Match(rows, items, -1)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Matched != n {
			b.Fatalf("matched %d of %d", rep.Matched, n)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "rows/s")
}
