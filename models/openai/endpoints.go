package openai

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxOut bounds how long a failing endpoint is taken out of service: long
// enough that a dead replica costs one failed attempt every half minute,
// short enough that a restarted one is back in use soon.
const maxOut = 30 * time.Second

// An endpoint is one replica of the client's model: a server's API root,
// its own bound on requests in flight, and what it has done so far.
type endpoint struct {
	base  string
	slots chan struct{}
	// outstanding counts the attempts sent to it or waiting for one of its
	// slots: what "least outstanding" compares (guarded by pool.mu).
	outstanding int
	// picked counts the attempts sent to it so far, which breaks ties of
	// outstanding: one video at a time goes to each replica in turn, not
	// always to the first (guarded by pool.mu).
	picked int
	// downUntil is when a failed endpoint is back in service; strikes its
	// failures in a row, which double its time out (guarded by pool.mu).
	downUntil time.Time
	strikes   int
	// The client's lifetime totals (EndpointStats).
	requests, failures, answered atomic.Int64
}

// EndpointStats are what one replica was sent and what came of it, for
// stages.json: Requests the HTTP attempts it was sent, Failures those that
// failed as a server fails (no connection, 5xx, 429, no reply in time, a
// torn reply), each of which took it out of service for a while, and
// Answered those it replied to (a refusal, a 4xx, included).
type EndpointStats struct {
	URL      string `json:"url"`
	Requests int64  `json:"requests"`
	Failures int64  `json:"failures"`
	Answered int64  `json:"answered"`
}

// pool spreads a client's requests over its endpoints (Config.BaseURLs):
// each attempt goes to the endpoint in service with the fewest outstanding
// requests (ties: the one picked least so far, then the first), except
// that the queries of the open groups that share the start of their prompt
// (queryKeys: a video's first frame) go to the endpoint the first of them
// went to, for its prefix cache, as long as that one is in service. An endpoint whose
// attempt fails as a server fails is out of service for Backoff, doubling
// with each failure in a row up to maxOut; while it is, its requests go to
// the others. With every endpoint out, the one back soonest is used (and
// the caller waits its backoff, as with one server).
type pool struct {
	eps          []*endpoint
	backoff, max time.Duration
	now          func() time.Time

	mu    sync.Mutex
	bound map[string]*binding
}

// A binding keeps an affinity key on one endpoint while refs holders (the
// open groups whose queries carry the key) hold it.
type binding struct {
	ep, refs int
}

func newPool(bases []string, perEndpoint int, backoff time.Duration) *pool {
	p := &pool{backoff: backoff, max: maxOut, now: time.Now, bound: map[string]*binding{}}
	for _, b := range bases {
		p.eps = append(p.eps, &endpoint{base: b, slots: make(chan struct{}, perEndpoint)})
	}
	return p
}

// pick chooses the endpoint of one attempt for key ("" for none) and counts
// the attempt outstanding there until done is called.
func (p *pool) pick(key string) int {
	if len(p.eps) == 1 {
		p.mu.Lock()
		p.eps[0].outstanding++
		p.mu.Unlock()
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	b := p.bound[key]
	if b != nil && b.ep >= 0 && !now.Before(p.eps[b.ep].downUntil) {
		p.eps[b.ep].outstanding++
		p.eps[b.ep].picked++
		return b.ep
	}
	best := -1
	for i, e := range p.eps {
		if now.Before(e.downUntil) {
			continue
		}
		if best < 0 || e.outstanding < p.eps[best].outstanding || e.outstanding == p.eps[best].outstanding && e.picked < p.eps[best].picked {
			best = i
		}
	}
	if best < 0 { // every endpoint out: the one back soonest
		best = 0
		for i, e := range p.eps {
			if e.downUntil.Before(p.eps[best].downUntil) {
				best = i
			}
		}
	}
	if b != nil {
		b.ep = best
	}
	p.eps[best].outstanding++
	p.eps[best].picked++
	return best
}

// done ends an attempt pick counted.
func (p *pool) done(i int) {
	p.mu.Lock()
	p.eps[i].outstanding--
	p.mu.Unlock()
}

// failed takes endpoint i out of service after a failed attempt, for at
// least minOut (a Retry-After), and reports whether another endpoint is in
// service now, to which the attempt can go at once.
func (p *pool) failed(i int, minOut time.Duration) bool {
	e := p.eps[i]
	e.failures.Add(1)
	if len(p.eps) == 1 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	e.strikes++
	out := p.backoff << min(e.strikes-1, 30)
	if out > p.max || out <= 0 {
		out = p.max
	}
	out = max(out, minOut)
	e.downUntil = now.Add(out)
	for j, o := range p.eps {
		if j != i && !now.Before(o.downUntil) {
			return true
		}
	}
	return false
}

// answered puts endpoint i back in service (its failures in a row end).
func (p *pool) answered(i int) {
	e := p.eps[i]
	e.answered.Add(1)
	if len(p.eps) == 1 {
		return
	}
	p.mu.Lock()
	e.strikes, e.downUntil = 0, time.Time{}
	p.mu.Unlock()
}

// hold keeps key on one endpoint until release: the first query of key
// picks it, the others follow.
func (p *pool) hold(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b := p.bound[key]; b != nil {
		b.refs++
		return
	}
	p.bound[key] = &binding{ep: -1, refs: 1}
}

// release ends one hold of key.
func (p *pool) release(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b := p.bound[key]; b != nil {
		if b.refs--; b.refs <= 0 {
			delete(p.bound, key)
		}
	}
}

// stats are the endpoints' lifetime totals.
func (p *pool) stats() []EndpointStats {
	out := make([]EndpointStats, len(p.eps))
	for i, e := range p.eps {
		out[i] = EndpointStats{URL: e.base, Requests: e.requests.Load(), Failures: e.failures.Load(), Answered: e.answered.Load()}
	}
	return out
}

// queryKeys are the affinity keys of a group's queries: what the start of
// their prompt, which a prefix cache shares, holds. A query with frames is
// keyed by its first frame (its image comes first in the request), so that
// a video's prompts that start with the same frame (every item and option
// order of one frame set, the in-order and every-tenth sets) go to the
// replica that has it, whatever the question and however many videos the
// caller's call holds; a text query is keyed by what it is given, its
// question and its options as a set (its option orders, which share the
// question's prefix, stay together), so that the items of a text reader's
// call spread over the replicas (keyed by the question alone, every
// options-only prompt went to one: bench/served.sh measured 31% of 8
// servers' capacity used). A text query that starts with its video's
// captions, description or transcript (sharedStart) is keyed by that, so
// that the video's items go where it is cached.
func queryKeys(qs []Query) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		if len(q.Frames) > 0 {
			d := q.Frames[0].sum()
			out[i] = "f" + hex.EncodeToString(d[:8])
			continue
		}
		if d, ok := sharedStart(q); ok {
			// A video's captions, description or transcript come before
			// the question: its items go where that prefix is cached.
			out[i] = "c" + hex.EncodeToString(d[:8])
			continue
		}
		// The options as a set: an item's orders share the key, items
		// with the same question (or none: the options-only reader) do
		// not, so that a text reader's items spread over the replicas.
		opts := slices.Clone(q.Prompt.Options)
		slices.Sort(opts)
		d := sumBytes([]byte(string(q.Prompt.Kind) + "\x00" + q.Prompt.Context + "\x00" + strings.Join(q.Prompt.Captions, "\x00") + "\x00" + q.Prompt.Question + "\x00" + strings.Join(opts, "\x00")))
		out[i] = "t" + hex.EncodeToString(d[:8])
	}
	return out
}

// affinityKey is the context key under which AskStream passes a query's
// affinity key down to the attempts that send it.
type affinityKey struct{}

func withAffinity(ctx context.Context, key string) context.Context {
	if key == "" {
		return ctx
	}
	return context.WithValue(ctx, affinityKey{}, key)
}

func affinityOf(ctx context.Context) string {
	k, _ := ctx.Value(affinityKey{}).(string)
	return k
}

// EndpointStats are the client's endpoints (one, or its replicas in
// Config.BaseURLs' order) with what each was sent over the client's life.
func (c *Client) EndpointStats() []EndpointStats { return c.pool.stats() }

// Endpoints are the client's API roots, in Config.BaseURLs' order.
func (c *Client) Endpoints() []string {
	out := make([]string, len(c.pool.eps))
	for i, e := range c.pool.eps {
		out[i] = e.base
	}
	return out
}

// ModelsAt asks endpoint i (Endpoints' order) once, without retries, for the
// model ids its GET /models lists: what a caller checks every replica
// against before sending it a question.
func (c *Client) ModelsAt(ctx context.Context, i int) ([]string, error) {
	if i < 0 || i >= len(c.pool.eps) {
		return nil, fmt.Errorf("openai: no endpoint %d of %d", i, len(c.pool.eps))
	}
	e := c.pool.eps[i]
	data, err := c.once(ctx, e, e.base+"/models", nil)
	if err != nil {
		return nil, fmt.Errorf("%s/models: %w", e.base, err)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s/models: %v (reply starts %q)", e.base, err, excerpt(data))
	}
	ids := make([]string, len(list.Data))
	for k, m := range list.Data {
		ids[k] = m.ID
	}
	return ids, nil
}
