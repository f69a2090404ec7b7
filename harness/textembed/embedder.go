// Package textembed turns item texts into unit-length embedding rows for the
// pool-level attackers and the near-duplicate search. The TextEmbedder
// interface is what those consumers see; Lexical is the model-free
// implementation, and a BGE encoder (models/) plugs in behind the same
// interface without changing any attacker.
package textembed

import (
	"context"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// A TextEmbedder maps texts to unit-length float32 rows, one row per text, in
// the order given. Implementations must be deterministic: the same texts give
// the same bytes, whatever the machine's thread count.
type TextEmbedder interface {
	// Name identifies the embedder and its parameters, for cache keys and
	// provenance.
	Name() string
	// Dim is the number of columns of every matrix Embed returns.
	Dim() int
	// Embed returns a len(texts) x Dim() matrix of unit rows (an empty text
	// gives a zero row).
	Embed(ctx context.Context, texts []string) (*kernels.Matrix, error)
}

// QuestionText is the text of an item that the copy attacker compares: the
// question alone (Video-Index 3.4 compares question embeddings).
func QuestionText(it *harness.Item) string { return it.Question }

// ItemText is the text of an item that the k-NN vote, the pool regression and
// the near-duplicate search compare: the question followed by its options, one
// per line, so that two items asking the same thing about different options
// are told apart.
func ItemText(it *harness.Item) string {
	var b strings.Builder
	b.WriteString(it.Question)
	for _, o := range it.Options {
		b.WriteByte('\n')
		b.WriteString(o)
	}
	return b.String()
}
