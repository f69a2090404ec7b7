package served

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai"
)

// Letters is a served lm_reader: an attack.LetterReader whose letters'
// log-probabilities a server's model gives.
type Letters struct {
	client  *lazyClient
	stats   *Stats
	wording *letters.Wording
}

// NewLetters opens a served letter reader.
func NewLetters(cfg Config) (*Letters, error) {
	c, err := newLazyClient(cfg)
	if err != nil {
		return nil, err
	}
	return &Letters{client: c, stats: newStats(cfg, c), wording: cfg.Wording}, nil
}

// Stats returns the reader's counts.
func (l *Letters) Stats() *Stats { return l.stats }

// Encode checks that a prompt is one the server can be asked. The server's
// tokenizer is not here, so nothing is tokenized: its context (tens of
// thousands of tokens) holds any reader's prompt, and one it refuses fails
// its item with reason server.
func (l *Letters) Encode(p letters.Prompt) ([]int, error) {
	_, err := partsOf(p.Parts, p.Options)
	return nil, err
}

// Score returns log p(option) per prompt, in the order given, each row in
// the prompt's option order; a prompt the server failed has no row (nil).
// Only a cancelled context, a bad prompt or a server that refused
// everything is an error.
func (l *Letters) Score(ctx context.Context, prompts []letters.Prompt) ([][]float64, error) {
	qs := make([]openai.Query, len(prompts))
	for i, p := range prompts {
		parts, err := partsOf(p.Parts, p.Options)
		if err != nil {
			return nil, err
		}
		qs[i] = openai.Query{ID: fmt.Sprintf("%s prompt %d", l.stats.role(), i), Prompt: parts, Wording: l.wording}
	}
	rows, _, err := ask(ctx, l.client, l.stats, l.stats.role(), qs, nil)
	return rows, err
}
