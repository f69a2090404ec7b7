package models

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vidscreen/vidscreen/models/letters"
)

// BatchOptions sizes a Batcher.
type BatchOptions struct {
	// MaxBatch is the most requests per run (default 32).
	MaxBatch int
	// MaxWait is how long the first request of a partial batch waits for
	// company before the batch runs anyway (default 2 ms).
	MaxWait time.Duration
	// Workers is the number of batches run at once (default 1; more only
	// helps when one run does not fill the device).
	Workers int
}

// ErrBatcherClosed is returned by Do after Close.
var ErrBatcherClosed = errors.New("models: batcher closed")

// A Batcher gathers requests from many goroutines into batches for one
// model: requests with the same key (a length bucket) go together, a batch
// runs when it holds MaxBatch requests, when its oldest request has waited
// MaxWait, or at once when a worker is free and no request is arriving (so
// MaxWait only delays requests while every worker is busy); each caller gets
// its own result. Results must not depend on
// batch composition; the runners here guarantee that by padding every
// sequence to its own length bucket.
//
// A failed run fails every request of its batch. A caller whose context is
// cancelled gets ctx.Err() at once; its request is dropped if its batch has
// not started.
type Batcher[Req, Res any] struct {
	opts BatchOptions
	key  func(Req) int
	run  func(context.Context, []Req) ([]Res, error)

	in   chan []*pending[Req, Res] // one DoAll call's requests
	work chan []*pending[Req, Res]
	// finished counts batches done since the collector last looked; free
	// wakes it.
	finished atomic.Int64
	free     chan struct{}
	wg       sync.WaitGroup
	mu       sync.RWMutex // guards closed against sends on in
	closed   bool
}

type pending[Req, Res any] struct {
	ctx  context.Context
	req  Req
	res  Res
	err  error
	done chan struct{}
}

// NewBatcher starts a batcher; Close stops it. key assigns a request to a
// bucket; run computes a batch, one result per request in order.
func NewBatcher[Req, Res any](opts BatchOptions, key func(Req) int, run func(context.Context, []Req) ([]Res, error)) *Batcher[Req, Res] {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 32
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = 2 * time.Millisecond
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	b := &Batcher[Req, Res]{opts: opts, key: key, run: run,
		in: make(chan []*pending[Req, Res], 64), work: make(chan []*pending[Req, Res]),
		free: make(chan struct{}, 1)}
	b.wg.Add(1 + opts.Workers)
	go b.collect()
	for range opts.Workers {
		go b.worker()
	}
	return b
}

// Do submits one request and waits for its result.
func (b *Batcher[Req, Res]) Do(ctx context.Context, req Req) (Res, error) {
	res, errs := b.DoAll(ctx, []Req{req})
	return res[0], errs[0]
}

// DoAll submits reqs together and waits for all; errs[i] is request i's
// error.
func (b *Batcher[Req, Res]) DoAll(ctx context.Context, reqs []Req) ([]Res, []error) {
	ps := make([]*pending[Req, Res], len(reqs))
	res := make([]Res, len(reqs))
	errs := make([]error, len(reqs))
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		for i := range errs {
			errs[i] = ErrBatcherClosed
		}
		return res, errs
	}
	for i, r := range reqs {
		ps[i] = &pending[Req, Res]{ctx: ctx, req: r, done: make(chan struct{})}
	}
	// The requests travel together, so the collector sees a caller's whole
	// list at once and can batch it without waiting.
	sent := false
	select {
	case b.in <- ps:
		sent = true
	case <-ctx.Done():
	}
	b.mu.RUnlock()
	for i, p := range ps {
		if !sent {
			errs[i] = ctx.Err()
			continue
		}
		select {
		case <-p.done:
			res[i], errs[i] = p.res, p.err
		case <-ctx.Done():
			errs[i] = ctx.Err()
		}
	}
	return res, errs
}

// Close runs what is queued, then stops the batcher's goroutines. Do after
// Close returns ErrBatcherClosed.
func (b *Batcher[Req, Res]) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	close(b.in)
	b.mu.Unlock()
	b.wg.Wait()
}

// collect groups incoming requests by key and hands out batches.
func (b *Batcher[Req, Res]) collect() {
	defer b.wg.Done()
	defer close(b.work)
	queues := map[int][]*pending[Req, Res]{}
	oldest := map[int]time.Time{}
	busy := 0 // batches handed out whose completion has not been read
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// live drops the requests of cancelled callers from queue k.
	live := func(k int) []*pending[Req, Res] {
		q := queues[k][:0]
		for _, p := range queues[k] {
			if p.ctx.Err() != nil {
				p.err = p.ctx.Err()
				close(p.done)
				continue
			}
			q = append(q, p)
		}
		return q
	}
	dispatch := func(k int) {
		q := live(k)
		delete(queues, k)
		delete(oldest, k)
		if len(q) > 0 {
			b.work <- q
			busy++
		}
	}
	// linger is how long a partial batch waits for company while a worker
	// is free: long enough for a burst of callers to land in one batch,
	// short against MaxWait.
	linger := b.opts.MaxWait / 4
	// idle hands the fullest queue to a free worker when nothing else is
	// arriving and it is half full or has lingered: waiting longer for
	// company only pays while the workers are busy.
	idle := func() {
		for busy < b.opts.Workers && len(b.in) == 0 && len(queues) > 0 {
			best, first := 0, true
			for k, q := range queues {
				if first || len(q) > len(queues[best]) || (len(q) == len(queues[best]) && k < best) {
					best, first = k, false
				}
			}
			if 2*len(queues[best]) < b.opts.MaxBatch && time.Since(oldest[best]) < linger {
				return
			}
			dispatch(best)
		}
	}
	for {
		select {
		case ps, ok := <-b.in:
			if !ok {
				for k := range queues {
					dispatch(k)
				}
				return
			}
			for _, p := range ps {
				k := b.key(p.req)
				if len(queues[k]) == 0 {
					oldest[k] = time.Now()
				}
				queues[k] = append(queues[k], p)
				if len(queues[k]) >= b.opts.MaxBatch {
					dispatch(k)
				}
			}
		case <-b.free:
		case <-timer.C:
			now := time.Now()
			for k, t := range oldest {
				if now.Sub(t) >= b.opts.MaxWait {
					dispatch(k)
				}
			}
		}
		busy -= int(b.finished.Swap(0))
		idle()
		wait := b.opts.MaxWait
		if busy < b.opts.Workers {
			wait = linger
		}
		next := time.Hour
		for _, t := range oldest {
			next = min(next, time.Until(t.Add(wait)))
		}
		timer.Reset(max(next, 0))
	}
}

func (b *Batcher[Req, Res]) worker() {
	defer b.wg.Done()
	for batch := range b.work {
		reqs := make([]Req, len(batch))
		for i, p := range batch {
			reqs[i] = p.req
		}
		// The batch serves several callers, so no single caller's context
		// governs it; cancelled callers were dropped when it was formed.
		res, err := b.run(context.Background(), reqs)
		if err == nil && len(res) != len(reqs) {
			err = fmt.Errorf("models: batch of %d requests gave %d results", len(reqs), len(res))
		}
		for i, p := range batch {
			if err != nil {
				p.err = err
			} else {
				p.res = res[i]
			}
			close(p.done)
		}
		b.finished.Add(1)
		select { // wake the collector; one pending wake-up is enough
		case b.free <- struct{}{}:
		default:
		}
	}
}

// BatchedEmbedder shares a TextEncoder among goroutines through a Batcher:
// texts from concurrent Embed calls are tokenized by their callers, then
// gathered into length-bucketed batches. Its vectors are bit-identical to
// the TextEncoder's own, whatever the batching.
type BatchedEmbedder struct {
	enc *TextEncoder
	b   *Batcher[[]int, []float32]
}

// NewBatchedEmbedder starts batching for enc; Close stops it.
func NewBatchedEmbedder(enc *TextEncoder, opts BatchOptions) *BatchedEmbedder {
	key := func(ids []int) int { return bucketLen(len(ids), enc.maxLen) }
	return &BatchedEmbedder{enc: enc, b: NewBatcher(opts, key, enc.EmbedIDs)}
}

// Dim is the length of each embedding.
func (e *BatchedEmbedder) Dim() int { return e.enc.Dim() }

// Name is the encoder's Name.
func (e *BatchedEmbedder) Name() string { return e.enc.Name() }

// Embed embeds texts; row i belongs to texts[i]. A text that cannot be
// tokenized fails the call before anything is queued.
func (e *BatchedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ids, err := encodeAll(e.enc.tok, texts, e.enc.maxLen)
	if err != nil {
		return nil, err
	}
	return e.EmbedIDs(ctx, ids)
}

// EmbedIDs embeds pre-tokenized texts through the batcher.
func (e *BatchedEmbedder) EmbedIDs(ctx context.Context, ids [][]int) ([][]float32, error) {
	for i, s := range ids {
		if len(s) == 0 || len(s) > e.enc.maxLen {
			return nil, fmt.Errorf("text %d: %d tokens; want 1 to %d", i, len(s), e.enc.maxLen)
		}
	}
	res, errs := e.b.DoAll(ctx, ids)
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("text %d: %w", i, err)
		}
	}
	return res, nil
}

// Close stops the batcher (not the encoder).
func (e *BatchedEmbedder) Close() { e.b.Close() }

// letterRequest is one tokenized reader prompt.
type letterRequest struct {
	ids     []int
	options int
}

// BatchedLetterScorer shares a LetterScorer among goroutines through a
// Batcher, as BatchedEmbedder does for encoders.
type BatchedLetterScorer struct {
	s *LetterScorer
	b *Batcher[letterRequest, []float64]
}

// NewBatchedLetterScorer starts batching for s; Close stops it.
func NewBatchedLetterScorer(s *LetterScorer, opts BatchOptions) *BatchedLetterScorer {
	key := func(r letterRequest) int { return bucketLen(len(r.ids), s.maxLen) }
	run := func(ctx context.Context, reqs []letterRequest) ([][]float64, error) {
		seqs := make([][]int, len(reqs))
		opts := make([]int, len(reqs))
		for i, r := range reqs {
			seqs[i], opts[i] = r.ids, r.options
		}
		return s.ScoreIDs(ctx, seqs, opts)
	}
	return &BatchedLetterScorer{s: s, b: NewBatcher(opts, key, run)}
}

// Score returns per prompt log p(letter); errs[i] is prompt i's error (a
// prompt too long or with a bad option count fails alone).
func (bs *BatchedLetterScorer) Score(ctx context.Context, prompts []letters.Prompt) ([][]float64, []error) {
	out := make([][]float64, len(prompts))
	errs := make([]error, len(prompts))
	var reqs []letterRequest
	var idx []int
	for i, p := range prompts {
		ids, err := bs.s.Encode(p)
		if err != nil {
			errs[i] = fmt.Errorf("prompt %d: %w", i, err)
			continue
		}
		reqs = append(reqs, letterRequest{ids: ids, options: p.Options})
		idx = append(idx, i)
	}
	res, rerrs := bs.b.DoAll(ctx, reqs)
	for j, i := range idx {
		out[i], errs[i] = res[j], rerrs[j]
	}
	return out, errs
}

// Close stops the batcher (not the scorer).
func (bs *BatchedLetterScorer) Close() { bs.b.Close() }
