package attack

import (
	"strings"
	"sync"

	"github.com/vidscreen/vidscreen/kernels"
)

// A Cache holds the work of the attackers that does not depend on the order
// of a stream or on any gold answer: the copy attacker's similarity join,
// the k-NN vote's candidate lists and the option-artifact features (of both
// its learners). Orders
// of one run share it, so that a run costs one join, not one per order, even
// when it makes a fresh attacker for every order. Entries are keyed by the
// items' keys, texts and embeddings, so a cache never gives one run's work to
// another; it keeps the last join and list of each kind and every option
// set's features. A Cache is safe for concurrent use; the zero value is
// ready.
type Cache struct {
	copyIndex      indexCache
	knnIndex       indexCache
	retrievalIndex indexCache // the retrieval readers' lists, by question

	mu       sync.Mutex
	features map[string][]float32   // options joined by NUL -> feature rows
	plain    map[string][][]float64 // options joined by NUL -> plainFeatures
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

// optionFeatures returns the feature rows of options, flattened, computing
// them on first use.
func (c *Cache) optionFeatures(options []string) []float32 {
	key := strings.Join(options, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.features[key]; ok {
		return f
	}
	m := kernels.NewMatrix(len(options), numOptionFeatures)
	optionFeatures(m, 0, options)
	if c.features == nil {
		c.features = map[string][]float32{}
	}
	c.features[key] = m.Data
	return m.Data
}

// plainOptionFeatures returns plainFeatures(options), computing them on
// first use. The rows are shared: callers must not modify them.
func (c *Cache) plainOptionFeatures(options []string) [][]float64 {
	key := strings.Join(options, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.plain[key]; ok {
		return f
	}
	f := plainFeatures(options)
	if c.plain == nil {
		c.plain = map[string][][]float64{}
	}
	c.plain[key] = f
	return f
}
