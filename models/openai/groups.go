package openai

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// A Group is the queries on one video: every item and condition that shows
// its frames. AskGroups sends a group's queries together, so that a prefix
// cache holds the video's frames while its questions are asked.
type Group struct {
	// Name labels the group (the video); it is not sent.
	Name    string
	Queries []Query
}

// A QueryResult is the outcome of one query of a group.
type QueryResult struct {
	Answer Answer
	Err    error
}

// Stats count what a call of AskGroups did, for stages.json.
type Stats struct {
	// Queries is how many queries were asked; Failed how many of them
	// ended in an error.
	Queries, Failed int
	// Requests is how many HTTP requests were sent (every attempt, the
	// retries and the second form of a refused one included); Retries how
	// many of them were retries of a fault.
	Requests, Retries int64
	// StoreHits is how many replies came from the response store instead
	// of the server.
	StoreHits int64
	// Images is how many images the requests sent carried.
	Images int64
	// WithImages is how many queries carry frames; SharedPrefix how many of
	// them show exactly the frames (the same bytes, in the same order) an
	// earlier query of the same group showed, so that their image prefix
	// is one a prefix cache has already seen.
	WithImages, SharedPrefix int
	// Elapsed is the call's wall time.
	Elapsed time.Duration
	// Endpoints are the call's counts per endpoint (one, or each replica
	// of Config.BaseURLs, in that order).
	Endpoints []EndpointStats
}

// RequestsPerSecond is Requests over Elapsed.
func (s Stats) RequestsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Requests) / s.Elapsed.Seconds()
}

// PrefixShare is the share of queries whose image prefix equals an earlier
// query's in the same group: SharedPrefix over Queries.
func (s Stats) PrefixShare() float64 {
	if s.Queries == 0 {
		return 0
	}
	return float64(s.SharedPrefix) / float64(s.Queries)
}

// Add sums two Stats, for a caller that asks in several calls.
func (s Stats) Add(o Stats) Stats {
	return Stats{
		Queries: s.Queries + o.Queries, Failed: s.Failed + o.Failed,
		Requests: s.Requests + o.Requests, Retries: s.Retries + o.Retries,
		StoreHits: s.StoreHits + o.StoreHits, Images: s.Images + o.Images,
		WithImages: s.WithImages + o.WithImages, SharedPrefix: s.SharedPrefix + o.SharedPrefix,
		Elapsed: s.Elapsed + o.Elapsed, Endpoints: AddEndpoints(s.Endpoints, o.Endpoints),
	}
}

// AddEndpoints sums two lists of per-endpoint counts, by URL, in the order
// the URLs first appear.
func AddEndpoints(a, b []EndpointStats) []EndpointStats {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := append([]EndpointStats(nil), a...)
	at := map[string]int{}
	for i, e := range out {
		at[e.URL] = i
	}
	for _, e := range b {
		i, ok := at[e.URL]
		if !ok {
			at[e.URL] = len(out)
			out = append(out, e)
			continue
		}
		out[i].Requests += e.Requests
		out[i].Failures += e.Failures
		out[i].Answered += e.Answered
	}
	return out
}

// counters are one call's running counts; a nil *counters counts nothing.
type counters struct {
	requests, retries, storeHits, images atomic.Int64
	// eps count per endpoint, by the pool's index.
	eps []endpointCounters
}

type endpointCounters struct{ requests, failures, answered atomic.Int64 }

// request counts one HTTP attempt carrying images images, sent to
// endpoint ep.
func (c *counters) request(images, ep int) {
	if c != nil {
		c.requests.Add(1)
		c.images.Add(int64(images))
		if ep < len(c.eps) {
			c.eps[ep].requests.Add(1)
		}
	}
}

// failure counts an attempt endpoint ep failed as a server fails.
func (c *counters) failure(ep int) {
	if c != nil && ep < len(c.eps) {
		c.eps[ep].failures.Add(1)
	}
}

// answered counts an attempt endpoint ep replied to.
func (c *counters) answered(ep int) {
	if c != nil && ep < len(c.eps) {
		c.eps[ep].answered.Add(1)
	}
}

// endpoints are the per-endpoint counts, named by the pool's URLs.
func (c *counters) endpoints(p *pool) []EndpointStats {
	out := make([]EndpointStats, len(c.eps))
	for i := range c.eps {
		out[i] = EndpointStats{URL: p.eps[i].base, Requests: c.eps[i].requests.Load(), Failures: c.eps[i].failures.Load(), Answered: c.eps[i].answered.Load()}
	}
	return out
}

func (c *counters) retry() {
	if c != nil {
		c.retries.Add(1)
	}
}

func (c *counters) storeHit() {
	if c != nil {
		c.storeHits.Add(1)
	}
}

// AskGroups asks every query of every group and returns the results in the
// groups' order and, within each, the queries' order, as AskStream does
// (see there for the order requests go out in). A query that fails has its
// error in its result and the others go on; once ctx ends, the queries not
// yet answered fail with ctx.Err(). The answers do not depend on
// MaxConcurrent.
func (c *Client) AskGroups(ctx context.Context, groups []Group) ([][]QueryResult, Stats) {
	res := make([][]QueryResult, 0, len(groups))
	i := 0
	next := func() (Group, bool, error) {
		if i == len(groups) {
			return Group{}, false, nil
		}
		i++
		return groups[i-1], true, nil
	}
	queries := 0
	for _, g := range groups {
		queries += len(g.Queries)
	}
	stats, _ := c.askStream(ctx, next, func(_ Group, r []QueryResult) error {
		res = append(res, r)
		return nil
	}, queries)
	for len(res) < len(groups) { // ctx ended before every group was read
		g := groups[len(res)]
		r := make([]QueryResult, len(g.Queries))
		for q := range r {
			r[q].Err = ctx.Err()
		}
		res = append(res, r)
	}
	return res, stats
}

// AskStream asks the groups next yields, a video at a time, and hands each
// group's results to done, in the order next yielded the groups and, within
// a group, the queries' order. Queries are sent in that order, with up to
// Config.MaxConcurrent in flight to each endpoint: a group's queries all go
// out before the next group's first, so the server sees a video's requests
// together and its prefix cache holds the frames while they are asked. With
// replicas (Config.BaseURLs), the queries whose frames start with the same
// image go to one replica, the one the first of them went to (unless that
// one fails), and the text queries of one question go together, so that
// the prefix cache that holds them is the one asked (queryKeys). A query
// whose frames start with the same image as an earlier query of its group
// waits until that one is answered, and then goes before any new query, so
// that the server has the shared frames computed and cached when it comes;
// at most prefixesInFlight such prefixes are open at once (from the
// leader's sending to its last follower's answer), so that the others do
// not evict the prefix meanwhile (hold.go). next is called only when a worker is free and at
// most 2*W+1 groups are open, W being MaxConcurrent times the endpoints
// (yielded, not yet done), so a caller that decodes and encodes each video's
// frames inside next keeps only those groups' frames in memory.
//
// next and done are called from one goroutine at a time (next from the
// feeder, done from AskStream's own); a query that fails has its error in
// its result and the others go on. An error from next or done stops the
// stream: no more groups are read, the queries in flight are cancelled, and
// AskStream returns that error once its goroutines have ended. When ctx ends
// the queries not yet answered fail with ctx.Err() and AskStream returns
// ctx.Err().
func (c *Client) AskStream(ctx context.Context, next func() (Group, bool, error), done func(Group, []QueryResult) error) (Stats, error) {
	return c.askStream(ctx, next, done, 0)
}

// askStream is AskStream with, when queries > 0, no more workers than the
// queries the caller will yield: a served reader's call of 64 prompts to 8
// replicas at 256 in flight each would otherwise start 2,048 goroutines for
// them (bench/served.sh: 0.37 ms of CPU and 571 MiB at its peak against the
// 0.16 ms and 184 MiB of one reader per server).
func (c *Client) askStream(ctx context.Context, next func() (Group, bool, error), done func(Group, []QueryResult) error, queries int) (Stats, error) {
	start := time.Now()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	st := &counters{eps: make([]endpointCounters, len(c.pool.eps))}
	type open struct {
		g         Group
		res       []QueryResult
		remaining atomic.Int64
		done      chan struct{}
		keys      []string // the queries' affinity keys, held while open (replicas only)
		// lead and followers are leaders' result: which query each waits
		// for, and each leader's followers.
		lead      []int
		followers map[int][]int
		// left counts, per leader sent to a worker (by index), its
		// followers not yet answered; the last one gives back the
		// leader's prefix token. Allocated whole when the group opens, so
		// that the feeder and the workers only touch its elements.
		left []atomic.Int32
	}
	type job struct {
		o *open
		q int
		// release: once answered, the worker queues the query's followers.
		release bool
		// of is the leader whose token a follower the worker queued counts
		// down; -1 for any other query.
		of int
	}
	// MaxConcurrent is per endpoint: with replicas, as many workers each.
	workers := c.cfg.MaxConcurrent * len(c.pool.eps)
	if queries > 0 {
		workers = min(workers, queries)
	}
	replicas := len(c.pool.eps) > 1
	qctx := func(o *open, q int) context.Context {
		if o.keys == nil {
			return ctx
		}
		return withAffinity(ctx, o.keys[q])
	}
	window := 2*workers + 1
	slots := make(chan struct{}, window)
	opened := make(chan *open, window)
	jobs := make(chan job)
	ready := newReadyQueue[job](workers) // followers whose leader is answered
	quit := make(chan struct{})          // closed once every group is done
	var stats Stats                      // the feeder's counts, read after it has ended
	var feedErr error
	go func() { // the feeder: reads groups and hands out their queries in order
		defer close(opened)
		defer close(jobs)
		for {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			g, ok, err := next()
			if err != nil {
				feedErr = err
				cancel(err)
				return
			}
			if !ok {
				return
			}
			o := &open{g: g, res: make([]QueryResult, len(g.Queries)), done: make(chan struct{})}
			o.remaining.Store(int64(len(g.Queries)))
			o.lead, o.followers = leaders(g.Queries)
			if o.followers != nil {
				o.left = make([]atomic.Int32, len(g.Queries))
			}
			// byFeeder marks the leaders the feeder asked itself: their
			// followers are answered-for already and go out in order.
			var byFeeder map[int]bool
			// owned reports whether query q waits for a leader sent to a
			// worker, which queues it once the leader is answered.
			owned := func(q int) bool { return o.lead[q] != q && !byFeeder[o.lead[q]] }
			if replicas {
				o.keys = queryKeys(g.Queries)
				for _, k := range o.keys {
					c.pool.hold(k)
				}
			}
			stats.Queries += len(g.Queries)
			w, sh := prefixCounts(g.Queries)
			stats.WithImages += w
			stats.SharedPrefix += sh
			opened <- o
			if len(g.Queries) == 0 {
				close(o.done)
				continue
			}
			for q := range g.Queries {
				if owned(q) {
					continue
				}
				if !c.formsKnown() {
					// The feeder asks itself, holding back the rest, until
					// the server's forms are known: so the query that finds
					// them out is the first in order at any concurrency, and
					// the store holds the same records after any run.
					r := &o.res[q]
					if ctx.Err() != nil {
						r.Err = context.Cause(ctx)
					} else {
						r.Answer, r.Err = c.ask(qctx(o, q), g.Queries[q], st)
					}
					if len(o.followers[q]) > 0 {
						if byFeeder == nil {
							byFeeder = map[int]bool{}
						}
						byFeeder[q] = true
					}
					if o.remaining.Add(-1) == 0 {
						close(o.done)
					}
					continue
				}
				// failRest fails the rest unsent, but for the followers of
				// a leader already sent, which its worker queues (and
				// fails, ctx having ended).
				failRest := func() {
					for from := q; q < len(g.Queries); q++ {
						if o.lead[q] < from && owned(q) {
							continue
						}
						o.res[q].Err = context.Cause(ctx)
						if o.remaining.Add(-1) == 0 {
							close(o.done)
						}
					}
				}
				release := len(o.followers[q]) > 0
				if release {
					// A leader waits for a prefix token (prefixesInFlight),
					// so that the prefixes its followers will read are
					// still cached when they come.
					select {
					case c.prefixes <- struct{}{}:
					case <-ctx.Done():
						failRest()
						return
					}
					o.left[q].Store(int32(len(o.followers[q])))
				}
				select {
				case jobs <- job{o: o, q: q, release: release, of: -1}:
				case <-ctx.Done():
					if release {
						<-c.prefixes
					}
					failRest()
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := jobs
			for {
				// A follower whose leader is answered goes before any new
				// query, so that it finds the leader's prefix still cached.
				j, ok := ready.pop()
				if !ok {
					select {
					case <-ready.wake:
						continue
					case j, ok = <-in:
						if !ok {
							in = nil // the feeder has ended; followers may still come
							continue
						}
					case <-quit:
						return
					}
				}
				r := &j.o.res[j.q]
				if ctx.Err() != nil {
					r.Err = context.Cause(ctx)
				} else {
					r.Answer, r.Err = c.ask(qctx(j.o, j.q), j.o.g.Queries[j.q], st)
				}
				if j.of >= 0 && j.o.left[j.of].Add(-1) == 0 {
					<-c.prefixes // the last follower of a leader sent to a worker
				}
				if j.release {
					fs := j.o.followers[j.q]
					js := make([]job, len(fs))
					for k, f := range fs {
						js[k] = job{o: j.o, q: f, of: j.q}
					}
					ready.push(js...)
				}
				if j.o.remaining.Add(-1) == 0 {
					close(j.o.done)
				}
			}
		}()
	}
	var doneErr error
	failed := 0
	for o := range opened {
		<-o.done
		for _, k := range o.keys {
			c.pool.release(k)
		}
		for _, r := range o.res {
			if r.Err != nil {
				failed++
			}
		}
		if doneErr == nil {
			if err := done(o.g, o.res); err != nil {
				doneErr = err
				cancel(err)
			}
		}
		<-slots
	}
	close(quit) // every group is done: no follower is left to queue
	wg.Wait()
	stats.Failed = failed
	stats.Requests, stats.Retries = st.requests.Load(), st.retries.Load()
	stats.StoreHits, stats.Images = st.storeHits.Load(), st.images.Load()
	stats.Elapsed = time.Since(start)
	stats.Endpoints = st.endpoints(c.pool)
	switch {
	case feedErr != nil:
		return stats, feedErr
	case doneErr != nil:
		return stats, doneErr
	}
	return stats, ctx.Err()
}

// prefixCounts counts a group's queries with frames, and those whose frames
// equal an earlier query's.
func prefixCounts(qs []Query) (withImages, shared int) {
	seen := map[[32]byte]bool{}
	for _, q := range qs {
		if len(q.Frames) == 0 {
			continue
		}
		withImages++
		k := framesKey(q.Frames)
		if seen[k] {
			shared++
		}
		seen[k] = true
	}
	return withImages, shared
}

// framesKey is a digest of a frame sequence: the frames' digests in order.
func framesKey(frames []*Image) [32]byte {
	b := make([]byte, 0, 32*len(frames))
	for _, f := range frames {
		d := f.sum()
		b = append(b, d[:]...)
	}
	return sumBytes(b)
}
