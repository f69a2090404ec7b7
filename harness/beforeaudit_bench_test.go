package harness_test

import (
	"context"
	"hash/fnv"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
)

// BenchmarkBeforeAudit times what every audit now does to its items before
// the first attacker: the yes/no set-aside and the duplicate rule over
// every item (harness.Sample with n = 0), on the embedded default's 4,049
// items, with a hashing question embedder standing in for the audit's.
func BenchmarkBeforeAudit(b *testing.B) {
	items, err := harness.ReadFS(context.Background(), demo.FS(), demo.Items(), harness.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	embed := func(_ context.Context, _ string, qs []string) ([][]float32, error) {
		out := make([][]float32, len(qs))
		for k, q := range qs {
			h := fnv.New64a()
			h.Write([]byte(q))
			a := float64(h.Sum64()%1000) / 1000 * math.Pi / 2
			out[k] = []float32{float32(math.Cos(a)), float32(math.Sin(a))}
		}
		return out, nil
	}
	n := 0
	for b.Loop() {
		kept, _ := harness.SetAsideYesNo(items)
		kept, _, err := harness.Sample(context.Background(), kept, 0, 1, embed)
		if err != nil {
			b.Fatal(err)
		}
		n += len(items)
		_ = kept
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}
