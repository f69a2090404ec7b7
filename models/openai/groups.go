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
		Elapsed: s.Elapsed + o.Elapsed,
	}
}

// counters are one call's running counts; a nil *counters counts nothing.
type counters struct {
	requests, retries, storeHits, images atomic.Int64
}

// request counts one HTTP attempt carrying images images.
func (c *counters) request(images int) {
	if c != nil {
		c.requests.Add(1)
		c.images.Add(int64(images))
	}
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
// groups' order and, within each, the queries' order. Queries are issued in
// that order, group after group, with up to Config.MaxConcurrent in flight:
// a group's queries are all sent before the next group's first, so that
// the server sees a video's requests together. A query that fails has its
// error in its result and the others go on; once ctx ends, the queries not
// yet sent fail with ctx.Err(). The answers do not depend on MaxConcurrent.
func (c *Client) AskGroups(ctx context.Context, groups []Group) ([][]QueryResult, Stats) {
	start := time.Now()
	st := &counters{}
	res := make([][]QueryResult, len(groups))
	var stats Stats
	type job struct{ g, q int }
	jobs := make(chan job)
	for g := range groups {
		res[g] = make([]QueryResult, len(groups[g].Queries))
		stats.Queries += len(groups[g].Queries)
		w, s := prefixCounts(groups[g].Queries)
		stats.WithImages += w
		stats.SharedPrefix += s
	}
	var wg sync.WaitGroup
	for range min(c.cfg.MaxConcurrent, max(stats.Queries, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := &res[j.g][j.q]
				if err := ctx.Err(); err != nil {
					r.Err = err
					continue
				}
				r.Answer, r.Err = c.ask(ctx, groups[j.g].Queries[j.q], st)
			}
		}()
	}
	for g := range groups {
		for q := range groups[g].Queries {
			jobs <- job{g, q}
		}
	}
	close(jobs)
	wg.Wait()
	for g := range res {
		for q := range res[g] {
			if res[g][q].Err != nil {
				stats.Failed++
			}
		}
	}
	stats.Requests, stats.Retries = st.requests.Load(), st.retries.Load()
	stats.StoreHits, stats.Images = st.storeHits.Load(), st.images.Load()
	stats.Elapsed = time.Since(start)
	return res, stats
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
