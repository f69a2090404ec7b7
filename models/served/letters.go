package served

import (
	"context"
	"fmt"
	"time"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai"
)

// Letters is a served lm_reader: an attack.LetterReader whose letters'
// log-probabilities a server's model gives.
type Letters struct {
	client *openai.Client
	stats  *Stats
}

// NewLetters opens a served letter reader.
func NewLetters(cfg Config) (*Letters, error) {
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	return &Letters{client: c, stats: newStats(cfg.Role, cfg.Server.Model, cfg.Server.URL)}, nil
}

// Stats returns the reader's counts.
func (l *Letters) Stats() *Stats { return l.stats }

// Encode checks a prompt. The server's tokenizer is not here, so nothing is
// tokenized: the server's context (tens of thousands of tokens) holds any
// reader's prompt, and one it refuses fails its item with reason server.
func (l *Letters) Encode(p models.LetterPrompt) ([]int, error) {
	if p.Options < 1 || p.Options > 26 {
		return nil, fmt.Errorf("%w: %d options (1 to 26 letters)", errPrompt, p.Options)
	}
	return nil, nil
}

// Score returns log p(letter) per prompt, in the order given; a prompt the
// server failed has no scores (nil). Only a cancelled context, a bad
// prompt or a server that refused everything is an error.
func (l *Letters) Score(ctx context.Context, prompts []models.LetterPrompt) ([][]float64, error) {
	reqs := make([]openai.Request, len(prompts))
	for i, p := range prompts {
		if _, err := l.Encode(p); err != nil {
			return nil, err
		}
		user, prefill := splitAnswer(p.Text)
		reqs[i] = openai.Request{Messages: messages(nil, user, prefill), Letters: letters(p.Options)}
	}
	return scoreAll(ctx, l.client, l.stats, reqs, make([]int, len(reqs)), nil)
}

// letters returns the first n option letters.
func letters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('A' + i))
	}
	return out
}

// scoreAll sends reqs and turns the results into rows of scores; images
// and shared count, per request, the images it carries and whether an
// earlier request of its group carried the same (for Stats).
func scoreAll(ctx context.Context, c *openai.Client, st *Stats, reqs []openai.Request, images []int, shared []bool) ([][]float64, error) {
	start := time.Now()
	res := c.ScoreAll(ctx, reqs)
	took := time.Since(start)
	out := make([][]float64, len(reqs))
	failed, nimg, nshared := 0, 0, 0
	var first error
	for i, r := range res {
		nimg += images[i]
		if shared != nil && shared[i] {
			nshared++
		}
		if r.Err != nil {
			if !serverFailure(ctx, r.Err) {
				return nil, r.Err
			}
			failed++
			if first == nil {
				first = r.Err
			}
			continue
		}
		out[i] = r.Scores.LogProbs
	}
	st.setMode("logprobs", false)
	st.record(len(reqs), failed, nimg, nshared, took, first)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := st.Refused(false); err != nil {
		return nil, err
	}
	return out, nil
}
