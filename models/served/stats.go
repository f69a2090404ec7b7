package served

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Stats count what one served role asked its server. They are timings and
// counts of this process, reported in stages.json, never in the outputs
// compared between runs. Safe for concurrent use.
type Stats struct {
	mu sync.Mutex
	s  StatsSnapshot
	// firstErr is the first failure, kept for Refused's message.
	firstErr error
}

// StatsSnapshot is a copy of Stats at one moment.
type StatsSnapshot struct {
	// Role and Model name the role and the served model; URL its server.
	Role  string `json:"role"`
	Model string `json:"model"`
	URL   string `json:"server"`
	// Prompts is how many prompts were scored or captioned; Failed how many
	// of them failed after the retries (reason "server").
	Prompts int `json:"prompts"`
	Failed  int `json:"failed"`
	// Images is how many images the prompts carried.
	Images int `json:"images"`
	// PrefixShared is how many prompts carried the same images, in the same
	// order, as an earlier prompt of their group (one video's prompts), so
	// that the server's prefix cache holds their frames already.
	PrefixShared int `json:"prefix_shared"`
	// Seconds is the wall time spent in calls to the server, summed over
	// calls (calls of one role do not overlap in the feature stage's
	// order; concurrent ones are counted each).
	Seconds float64 `json:"seconds"`
	// Mode is how letters were read: "logprobs" (the first token's top
	// log-probabilities) or "generate" (a short reply parsed by the answer
	// rules); "" before the first request.
	Mode string `json:"mode,omitempty"`
	// Prefill says whether the answer turn was prefilled with "Answer:".
	Prefill bool `json:"prefill"`
}

// newStats starts the counts of one role.
func newStats(role, model, url string) *Stats {
	return &Stats{s: StatsSnapshot{Role: role, Model: model, URL: url}}
}

// Snapshot returns the counts so far.
func (st *Stats) Snapshot() StatsSnapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s
}

// PrefixShare is the share of prompts whose images an earlier prompt of
// their group carried (0 without prompts).
func (s StatsSnapshot) PrefixShare() float64 {
	if s.Prompts == 0 {
		return 0
	}
	return float64(s.PrefixShared) / float64(s.Prompts)
}

// RequestsPerSecond is prompts over Seconds (0 when nothing was timed).
func (s StatsSnapshot) RequestsPerSecond() float64 {
	if s.Seconds <= 0 {
		return 0
	}
	return float64(s.Prompts) / s.Seconds
}

// record adds one call's counts.
func (st *Stats) record(prompts, failed, images, shared int, took time.Duration, firstErr error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.Prompts += prompts
	st.s.Failed += failed
	st.s.Images += images
	st.s.PrefixShared += shared
	st.s.Seconds += took.Seconds()
	if st.firstErr == nil && firstErr != nil {
		st.firstErr = firstErr
	}
}

// setMode records how the role's letters were read.
func (st *Stats) setMode(mode string, prefill bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.Mode, st.s.Prefill = mode, prefill
}

// refusalWindow is how many requests a server must have failed, answering
// none, before the run stops: fewer could be a transient fault on the
// first video, whose items fail alone.
const refusalWindow = 8

// ErrRefused is what Refused's error matches with errors.Is.
var ErrRefused = errors.New("the server refused every request")

// Refused returns an error naming the server and its first message when it
// has failed every request so far and at least min(refusalWindow, sent)
// of them, where final says the run sent all it will (so a run of fewer
// requests than the window still stops when none was answered); nil
// otherwise.
func (st *Stats) Refused(final bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.s
	if s.Failed == 0 || s.Failed < s.Prompts || (s.Failed < refusalWindow && !final) {
		return nil
	}
	return fmt.Errorf("%w: %s at %s (model %s) failed all %d requests of %s; the first: %v", ErrRefused, s.Role, s.URL, s.Model, s.Failed, s.Role, st.firstErr)
}
