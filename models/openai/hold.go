package openai

import "sync"

// leaders says, for each query of a group, which query it waits for: the
// first query of the group whose frames start with the same image (the
// same bytes), or itself. AskStream sends a query that waits (a follower)
// only once its leader is answered, so that a server with a prefix cache
// has computed the shared image prefix, and cached it, before the
// followers arrive: sent together, they are admitted in the same engine
// step as the leader, or in the next while it is still being computed,
// and vLLM reuses a block only once it is computed, so each recomputes
// most of the frames (bench/served.sh measured 2.2x fewer prefill tokens
// than item order on 4-item videos against a saturated server, where the
// ideal is 3.6x). Text queries (no frames) never wait: their shared prefix
// (the template, a question) is short and the wait would cost more than
// it saves. followers lists each leader's followers in order (nil when no
// query waits).
func leaders(qs []Query) (lead []int, followers map[int][]int) {
	lead = make([]int, len(qs))
	first := map[[32]byte]int{}
	for i, q := range qs {
		lead[i] = i
		if len(q.Frames) == 0 {
			continue
		}
		k := q.Frames[0].sum()
		l, ok := first[k]
		if !ok {
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

// prefixesInFlight bounds the leaders (queries with followers) a client has
// in flight, given the requests it may have in flight: a quarter of them,
// at least 2. Holding followers saves prefill only if the leader's blocks
// are still in the server's prefix cache when they are admitted, and what
// can evict them meanwhile is what the server computes before them: the
// requests queued ahead of them, sent before the leader was answered. The
// followers, sent the moment it is, are ahead of any leader sent later, so
// only the leaders in flight then count: 256 in flight, every one a
// 32-frame leader of 4,800 tokens, are 1.2M tokens, over the KV cache of an
// H200 serving a 7B VLM beside the ONNX roles (about 700,000 tokens,
// docs/scale.md), where 64 (a quarter) are 307,000. The followers, mostly
// cached, keep the other slots busy.
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
