package served

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/openai"
)

// CaptionPrompt is what a served captioner is asked of each frame: a
// caption of the frame alone, without the question (Video-Index 3.5: the
// captions reader reads 32 captions written without it).
const CaptionPrompt = "Describe this video frame in one sentence."

// DefaultCaptionTokens bounds a served caption when the manifest's
// max_new_tokens does not (one sentence).
const DefaultCaptionTokens = 48

// Captioner is a served captioner: a features.Captioner whose captions a
// server's vision-language model writes, one request per frame.
type Captioner struct {
	client    *lazyClient
	stats     *Stats
	maxTokens int
	// seed is sent with each request, so a server that honours seeds
	// (vLLM) writes the same caption each run.
	seed int64
	conc int
}

// NewCaptioner opens a served captioner; maxTokens bounds a caption (0:
// DefaultCaptionTokens).
func NewCaptioner(cfg Config, maxTokens int, seed int64) (*Captioner, error) {
	c, err := newLazyClient(cfg)
	if err != nil {
		return nil, err
	}
	if maxTokens <= 0 {
		maxTokens = DefaultCaptionTokens
	}
	return &Captioner{client: c, stats: newStats(cfg, c), maxTokens: maxTokens, seed: seed,
		conc: cfg.concurrency()}, nil
}

// Stats returns the captioner's counts.
func (c *Captioner) Stats() *Stats { return c.stats }

// CaptionFrames captions each frame on its own, in the order given; a
// frame the server failed gets an empty caption marked Failed (counted
// under Failed), whose video the feature stage fails with reason server
// and does not cache.
func (c *Captioner) CaptionFrames(ctx context.Context, frames []imageprep.Frame) ([]models.Caption, error) {
	client, err := c.client.get()
	if err != nil {
		return nil, err
	}
	out := make([]models.Caption, len(frames))
	errs := make([]error, len(frames))
	c.stats.begin()
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(1, c.conc))
	for i := range frames {
		im, err := openai.EncodeFrame(frames[i].Pix, frames[i].Width, frames[i].Height, frames[i].Stride)
		if err != nil {
			return nil, fmt.Errorf("served: captioner: %w", err)
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			msg := []openai.Message{{Role: "user", Parts: []openai.Part{{Image: im}, {Text: CaptionPrompt}}}}
			out[i].Text, errs[i] = client.Generate(ctx, openai.GenerateRequest{Messages: msg, MaxTokens: c.maxTokens, Seed: c.seed})
		}()
	}
	wg.Wait()
	c.stats.end()
	failed := 0
	var first error
	for i, err := range errs {
		if err == nil {
			continue
		}
		out[i].Failed = true
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, openai.ErrServer) {
			return nil, err
		}
		failed++
		if first == nil {
			first = err
		}
	}
	c.stats.recordGenerate(len(frames), failed, first)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.stats.Refused(false); err != nil {
		return nil, err
	}
	return out, nil
}
