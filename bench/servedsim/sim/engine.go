package sim

import (
	"context"
	"sync"
	"time"
)

// EngineConfig is what decides a served model's throughput, as vLLM's
// scheduler sees it.
type EngineConfig struct {
	// PrefillRate is the prompt tokens computed per second (the GPU's
	// prefill throughput for the model; the docs cite it per model).
	PrefillRate float64
	// StepOverhead is the fixed cost of one engine step (scheduling, the
	// sampler, one decode position for the sequences that finish).
	StepOverhead time.Duration
	// MaxSeqs bounds the sequences in flight (vllm --max-num-seqs, 256 by
	// default); the rest wait.
	MaxSeqs int
	// MaxBatchedTokens bounds the tokens one step computes (vllm
	// --max-num-batched-tokens with chunked prefill: a long prompt is
	// computed over several steps).
	MaxBatchedTokens int
	// CacheTokens is the prefix cache's size in tokens (the KV cache left
	// beside the weights); 0 turns the cache off.
	CacheTokens int
	// MaxWaiting bounds the requests queued past MaxSeqs; a request beyond
	// it is refused (429), so the server's memory stays bounded.
	MaxWaiting int
}

// Counts are what an engine has done.
type Counts struct {
	Requests       int64   `json:"requests"`
	PromptTokens   int64   `json:"prompt_tokens"`
	ComputedTokens int64   `json:"computed_tokens"`
	CachedTokens   int64   `json:"cached_tokens"`
	Images         int64   `json:"images"`
	ImageTokens    int64   `json:"image_tokens"`
	Steps          int64   `json:"steps"`
	BusySeconds    float64 `json:"busy_seconds"`
	// ActiveSeconds runs from the first request's arrival to the last
	// one's completion: the time the server could have been busy.
	ActiveSeconds float64 `json:"active_seconds"`
	MaxRunning    int     `json:"max_running"`
	MaxWaiting    int     `json:"max_waiting"`
	Refused       int64   `json:"refused"`
	// Capacity is the requests per busy second: what the server does when
	// it is never idle, at this run's mix of cached and computed tokens.
	Capacity float64 `json:"capacity_requests_per_s"`
	// Utilization is BusySeconds over ActiveSeconds.
	Utilization float64 `json:"utilization"`
	// FirstUnixNano and LastUnixNano are when the first request arrived
	// and the last one was answered (0 before any), so that a client can
	// tell its start-up and its tail from the server's idle gaps.
	FirstUnixNano int64 `json:"first_unix_nano,omitempty"`
	LastUnixNano  int64 `json:"last_unix_nano,omitempty"`
}

type seq struct {
	hashes  []uint64
	tokens  int
	left    int // tokens still to compute; -1 before admission
	now     int // tokens computed in the current step
	known   int // tokens cached or computed so far
	done    chan struct{}
	images  int
	imgToks int
}

// An Engine computes prompts in steps, as a continuous-batching server
// with chunked prefill does: each step computes up to MaxBatchedTokens of
// uncached prompt tokens, the running sequences' first, then admits
// waiting ones (looking their prefix up in the cache) while the budget and
// MaxSeqs allow, and takes StepOverhead plus its tokens over PrefillRate;
// the full blocks computed join the cache as the step ends, and a sequence
// whose prompt is computed samples its one token and finishes.
type Engine struct {
	cfg   EngineConfig
	cache *Cache

	mu      sync.Mutex
	wake    chan struct{}
	waiting []*seq
	counts  Counts
	first   time.Time
	last    time.Time
}

// NewEngine starts nothing; Run does.
func NewEngine(cfg EngineConfig) *Engine {
	if cfg.MaxSeqs <= 0 {
		cfg.MaxSeqs = 256
	}
	if cfg.MaxBatchedTokens <= 0 {
		cfg.MaxBatchedTokens = 8192
	}
	if cfg.MaxWaiting <= 0 {
		cfg.MaxWaiting = 4096
	}
	return &Engine{cfg: cfg, cache: NewCache(cfg.CacheTokens), wake: make(chan struct{}, 1)}
}

// Submit queues a prompt and returns a channel closed when it has been
// computed, or false when the queue is full.
func (e *Engine) Submit(p Prompt) (<-chan struct{}, bool) {
	s := &seq{hashes: blockHashes(p.Tokens), tokens: len(p.Tokens), left: -1, done: make(chan struct{}), images: p.Images, imgToks: p.ImageTokens}
	e.mu.Lock()
	if len(e.waiting) >= e.cfg.MaxWaiting {
		e.counts.Refused++
		e.mu.Unlock()
		return nil, false
	}
	if e.first.IsZero() {
		e.first = time.Now()
	}
	e.waiting = append(e.waiting, s)
	e.counts.MaxWaiting = max(e.counts.MaxWaiting, len(e.waiting))
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return s.done, true
}

// Run steps until ctx ends.
func (e *Engine) Run(ctx context.Context) {
	var running []*seq
	due := time.Now() // when the step being paid for ends
	for {
		// The running sequences go first, in the order admitted; then
		// waiting ones are admitted while the step's token budget and
		// MaxSeqs allow (vLLM v1's scheduler), each looked up in the cache
		// as it is admitted.
		budget := e.cfg.MaxBatchedTokens
		computed := 0
		for _, s := range running {
			n := min(s.left-s.now, budget)
			s.now += n
			budget -= n
			computed += n
		}
		e.mu.Lock()
		for len(running) < e.cfg.MaxSeqs && len(e.waiting) > 0 && budget > 0 {
			s := e.waiting[0]
			e.waiting[0] = nil
			e.waiting = e.waiting[1:]
			cached := e.cache.Lookup(s.hashes, s.tokens)
			s.left, s.known = s.tokens-cached, cached
			e.counts.Requests++
			e.counts.PromptTokens += int64(s.tokens)
			e.counts.CachedTokens += int64(cached)
			e.counts.ComputedTokens += int64(s.left)
			e.counts.Images += int64(s.images)
			e.counts.ImageTokens += int64(s.imgToks)
			n := min(s.left, budget)
			s.now = n
			budget -= n
			computed += n
			running = append(running, s)
		}
		if len(e.waiting) == 0 {
			e.waiting = nil // let the backing array go
		}
		e.counts.MaxRunning = max(e.counts.MaxRunning, len(running))
		e.mu.Unlock()
		if len(running) == 0 {
			select {
			case <-e.wake:
				if now := time.Now(); now.After(due) {
					due = now
				}
				continue
			case <-ctx.Done():
				return
			}
		}
		step := e.cfg.StepOverhead + time.Duration(float64(computed)/e.cfg.PrefillRate*float64(time.Second))
		due = due.Add(step)
		if d := time.Until(due); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		// The step's full blocks join the cache as it ends, so a sequence
		// admitted in a later step reuses them, one admitted in the same
		// step does not (vLLM caches computed blocks).
		kept := running[:0]
		var finished []*seq
		e.mu.Lock()
		e.counts.Steps++
		e.counts.BusySeconds += step.Seconds()
		for _, s := range running {
			if s.now > 0 {
				from := s.known / BlockSize
				s.known += s.now
				s.left -= s.now
				s.now = 0
				e.cache.Insert(s.hashes[from:min(s.known/BlockSize, len(s.hashes))])
			}
			if s.left == 0 {
				finished = append(finished, s)
				continue
			}
			kept = append(kept, s)
		}
		if len(finished) > 0 {
			e.last = time.Now()
		}
		e.mu.Unlock()
		running = kept
		for _, s := range finished {
			close(s.done)
		}
	}
}

// Counts returns what the engine has done so far.
func (e *Engine) Counts() Counts {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.counts
	if !e.first.IsZero() && e.last.After(e.first) {
		c.FirstUnixNano, c.LastUnixNano = e.first.UnixNano(), e.last.UnixNano()
		c.ActiveSeconds = e.last.Sub(e.first).Seconds()
		c.Utilization = c.BusySeconds / c.ActiveSeconds
	}
	if c.BusySeconds > 0 {
		c.Capacity = float64(c.Requests) / c.BusySeconds
	}
	return c
}

// Reset forgets the counts, and the cache's blocks with clearCache, so
// that one server measures several runs.
func (e *Engine) Reset(clearCache bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if clearCache {
		e.cache = NewCache(e.cfg.CacheTokens)
	}
	e.counts = Counts{}
	e.first, e.last = time.Time{}, time.Time{}
}
