package attack

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// BenchmarkRetrievalNeighbours times the retrieval reader's neighbour
// search on a 20,000-item benchmark (384-dimensional question embeddings):
// the first order, which builds the candidate lists the orders share
// through the cache, and a later one, which reads them.
func BenchmarkRetrievalNeighbours(b *testing.B) {
	const n, dim = 20000, 384
	r := rand.New(rand.NewPCG(1, 2))
	s := &Stream{Items: make([]*harness.Item, n), Question: kernels.NewMatrix(n, dim)}
	for i := range s.Items {
		s.Items[i] = &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Question: fmt.Sprint("q", i), Options: []string{"a", "b"}}
		row := s.Question.Row(i)
		var norm float64
		for d := range row {
			row[d] = float32(r.NormFloat64())
			norm += float64(row[d]) * float64(row[d])
		}
		for d := range row {
			row[d] /= float32(math.Sqrt(norm))
		}
	}
	ctx := context.Background()
	search := func(b *testing.B, cache *Cache) {
		found := 0
		err := nearestEarlierBy(ctx, retrievalK, kernels.Options{}, &cache.retrievalIndex, s.Question, s, func(p int, near []earlier) {
			found += len(near)
		})
		if err != nil {
			b.Fatal(err)
		}
		if found == 0 {
			b.Fatal("no neighbours")
		}
	}
	// The first order builds the candidate lists.
	b.Run("first-order", func(b *testing.B) {
		for range b.N {
			search(b, NewCache())
		}
	})
	// A later order reads them, and searches its first quarter exactly.
	b.Run("next-order", func(b *testing.B) {
		cache := NewCache()
		search(b, cache)
		b.ResetTimer()
		for range b.N {
			search(b, cache)
		}
	})
}
