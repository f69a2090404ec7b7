package run

import (
	"slices"
	"sync"

	"github.com/vidscreen/vidscreen/models/letters"
)

// serverFailures collects the items whose served reader's server failed
// after its retries while the attackers ran (attack.Prediction.Failure).
// Units run concurrently, so the set is guarded; it joins the run's
// failures (audit.fail) only once every unit has run, so that which
// attacker saw the failure first, and so the concurrency, changes nothing:
// the frame attackers' records are kept or dropped by the video stage's
// failures alone.
type serverFailures struct {
	mu    sync.Mutex
	items map[int32]string
}

// add records that item i failed for reason; the first reason stays.
func (s *serverFailures) add(i int32, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.items == nil {
		s.items = map[int32]string{}
	}
	if _, ok := s.items[i]; !ok {
		s.items[i] = reason
	}
}

// into fails each recorded item in a, in item order (a reason the video
// stage gave first stays).
func (s *serverFailures) into(a *audit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]int32, 0, len(s.items))
	for i := range s.items {
		keys = append(keys, i)
	}
	slices.Sort(keys)
	for _, i := range keys {
		a.fail(int(i), s.items[i])
	}
}

// failUnanswered fails, with reason letters.FailureServer, each item some
// of whose prompts a served VLM's server failed on (a nil row of
// features.ReadVLM's scores, which it did not store). It runs in the video
// stage, before the units: the frame attackers then abstain there and keep
// no records, as on a failed video.
func (a *audit) failUnanswered(scores []map[string][]float64) {
	for i, m := range scores {
		for _, sc := range m {
			if sc == nil {
				a.fail(i, letters.FailureServer)
				break
			}
		}
	}
}
