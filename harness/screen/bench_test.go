package screen

import (
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// synthetic builds n items in 10 benchmarks under 16 attackers (half of
// them model readers), with every fifth item in a two-item cluster across
// benchmarks: the shape of a large audit.
func synthetic(n int) *Input {
	const attackers = 16
	in := &Input{Run: "bench"}
	for k := range attackers {
		name := fmt.Sprintf("attacker-%d", k)
		if k%2 == 1 {
			name += "-reader"
		}
		in.Attackers = append(in.Attackers, Attacker{Name: name, Level: []string{"option", "text", "pool", "frame", "order"}[k%5]})
	}
	opts := []string{"a", "b", "c", "d"}
	for i := range n {
		r := Row{ID: fmt.Sprint(i), Benchmark: fmt.Sprintf("B%d", i%10), Group: fmt.Sprintf("g%d", i%4), Options: opts, Cluster: int32(i), Quality: []string{}}
		if i%5 == 1 {
			r.Cluster = int32(i - 1)
		}
		h := uint64(i)*0x9e3779b97f4a7c15 + 1
		for k := range attackers {
			h ^= h >> 29
			h *= 0xbf58476d1ce4e5b9
			choice := int32(h % 4)
			r.Verdicts = append(r.Verdicts, Verdict{Attacker: in.Attackers[k].Name, Scored: true, Choice: choice, Correct: choice == 0, Margin: float64(h%1000)/250 - 2})
		}
		in.Rows = append(in.Rows, r)
	}
	return in
}

// BenchmarkCompute measures screening (verdicts, duplicates, summaries,
// consensus) in items per second.
func BenchmarkCompute(b *testing.B) {
	in := synthetic(100000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compute(in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(in.Rows))*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkWrite measures writing a screen (screen.parquet, ambiguity.parquet,
// the JSON, Markdown and HTML summaries and a 384-wide question.npy) in items
// per second.
func BenchmarkWrite(b *testing.B) {
	in := synthetic(20000)
	in.Embeddings.Question = kernels.NewMatrix(len(in.Rows), 384)
	s, err := Compute(in, Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		if err := s.Write(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.Rows))*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}
