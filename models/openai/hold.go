package openai

import (
	"strings"
	"sync"

	"github.com/vidscreen/vidscreen/models/letters"
)

// leaders says, for each query of a group, which query it waits for: the
// first query of the group whose prompt starts the same way (sharedStart),
// or itself. AskStream sends a query that waits (a follower) only once its
// leader is answered, so that a server with a prefix cache has computed
// the shared prefix, and cached it, before the followers arrive: sent
// together, they are admitted in the same engine step as the leader, or in
// the next while it is still being computed, and vLLM reuses a block only
// once it is computed, so each recomputes most of the prefix
// (bench/served.sh measured 2.2x fewer prefill tokens than item order on
// 4-item videos against a saturated server, where one request at a time
// gives 3.6x). followers lists each leader's followers in order (nil when
// no query waits).
func leaders(qs []Query) (lead []int, followers map[int][]int) {
	lead = make([]int, len(qs))
	first := map[[32]byte]int{}
	for i, q := range qs {
		lead[i] = i
		k, ok := sharedStart(q)
		if !ok {
			continue
		}
		l, seen := first[k]
		if !seen {
			first[k] = i
			continue
		}
		lead[i] = l
		if followers == nil {
			followers = map[int][]int{}
		}
		followers[l] = append(followers[l], i)
	}
	return lead, followers
}

// sharedStart names the long start a query's prompt shares with the other
// queries of its video: its first frame (the image comes first in the
// request), or, for a text query, the video's captions, description or
// transcript, which the template puts before the question (KindExamples'
// context is the item's own neighbours, shared with no other). Other text
// queries have none worth waiting for: their shared start (the template,
// a question) is short, and the wait would cost more than it saves.
func sharedStart(q Query) ([32]byte, bool) {
	if len(q.Frames) > 0 {
		return q.Frames[0].sum(), true
	}
	p := q.Prompt
	if p.Kind == letters.KindExamples || p.Context == "" && len(p.Captions) == 0 {
		return [32]byte{}, false
	}
	return sumBytes([]byte(string(p.Kind) + "\x00" + p.Context + "\x00" + strings.Join(p.Captions, "\x00"))), true
}

// prefixesInFlight bounds the prefixes a client holds open, given the
// requests it may have in flight: a quarter of them, at least 2. A prefix
// is open from its leader's sending to its last follower's answer, and
// holding followers saves prefill only if the leader's blocks are still in
// the server's prefix cache when the followers are admitted; what evicts
// them meanwhile is the other leaders the server computes, which this
// bounds: 256 in flight, every one a 32-frame leader of 4,800 tokens, are
// 1.2M tokens, over the KV cache of an H200 serving a 7B VLM beside the
// ONNX roles (about 700,000 tokens, docs/scale.md), where 64 open prefixes
// (a quarter) are 307,000. The followers, mostly cached, keep the other
// slots busy. (Giving the token back once the leader is answered, so that
// only leaders in flight count, let the client send later leaders ahead of
// a video's followers when short of CPU: bench/served.sh computed 3.27M
// tokens of 9.58M where this gives 2.49M.)
func prefixesInFlight(inFlight int) int { return max(2, inFlight/4) }

// readyQueue holds the jobs whose leader has been answered, which AskStream's
// workers take before any new job: unbounded, so that the worker that
// answered a leader never blocks handing its followers over. wake carries
// at least one token whenever the queue may be non-empty.
type readyQueue[J any] struct {
	mu   sync.Mutex
	jobs []J
	wake chan struct{}
}

func newReadyQueue[J any](workers int) *readyQueue[J] {
	return &readyQueue[J]{wake: make(chan struct{}, max(workers, 1))}
}

// push queues js in order and wakes a worker for each (as many as the
// wake channel holds; a woken worker drains the queue).
func (r *readyQueue[J]) push(js ...J) {
	if len(js) == 0 {
		return
	}
	r.mu.Lock()
	r.jobs = append(r.jobs, js...)
	r.mu.Unlock()
	for range js {
		select {
		case r.wake <- struct{}{}:
		default:
			return
		}
	}
}

// pop takes the first queued job, if any.
func (r *readyQueue[J]) pop() (J, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var j J
	if len(r.jobs) == 0 {
		return j, false
	}
	j = r.jobs[0]
	var zero J
	r.jobs[0] = zero
	r.jobs = r.jobs[1:]
	if len(r.jobs) == 0 {
		r.jobs = nil // let the backing array go
	}
	return j, true
}
