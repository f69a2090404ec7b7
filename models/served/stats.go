package served

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai"
)

// Stats count what one served role asked its server. They are timings and
// counts of this process, reported in stages.json, never in the outputs
// compared between runs. Safe for concurrent use.
type Stats struct {
	mu sync.Mutex
	s  StatsSnapshot
	// firstErr is the first failure, kept for Refused's message.
	firstErr error
	// active counts the calls in flight; since is when the count last rose
	// from 0, so Seconds is the time some call was in flight (calls of
	// several videos at once are not counted twice).
	active int
	since  time.Time
	// client is the role's client, whose endpoints' counts Snapshot reads
	// (nil in tests of the counts alone).
	client *lazyClient
}

// StatsSnapshot is a copy of Stats at one moment.
type StatsSnapshot struct {
	// Role and Model name the role and the served model; URL its server
	// (the first replica's, with several).
	Role  string `json:"role"`
	Model string `json:"model"`
	URL   string `json:"server"`
	// Endpoints count, per server (each replica of models.json's servers,
	// in order; one without), the HTTP requests it was sent, those that
	// failed as a server fails (and took it out of service for a while),
	// and those it answered.
	Endpoints []openai.EndpointStats `json:"endpoints,omitempty"`
	// Queries is how many prompts were asked (or frames captioned); Failed
	// how many of them failed after the retries (reason "server").
	Queries int `json:"queries"`
	Failed  int `json:"failed"`
	// Requests is how many HTTP requests went out (retries and second forms
	// included), Retries how many were retries, StoreHits how many replies
	// came from the response store instead.
	Requests  int64 `json:"requests"`
	Retries   int64 `json:"retries"`
	StoreHits int64 `json:"store_hits"`
	// Images is how many images the requests sent carried.
	Images int64 `json:"images"`
	// WithImages is how many queries carried frames, PrefixShared how many
	// of them carried exactly the frames an earlier query of their group
	// (one video's) carried, whose prefix the server's cache holds.
	WithImages   int `json:"with_images"`
	PrefixShared int `json:"prefix_shared"`
	// Seconds is the wall time during which some call to the server was in
	// flight (the feature stage scores several videos at once; their
	// calls' overlap counts once).
	Seconds float64 `json:"seconds"`
	// Mode is how letters were read: "logprobs" or "generate" (a short
	// reply parsed by the answer rules); "" before the first answer.
	Mode string `json:"mode,omitempty"`
	// Prefill says whether the answer turn was prefilled with "Answer:"
	// (false when the server refused continue_final_message).
	Prefill bool `json:"prefill"`
	// Floored is how many answered queries read from log-probabilities had
	// an option letter absent from the server's top candidates, which got
	// the authors' floor, log(1e-6) (openai.LogFloor), as their margins do.
	Floored int `json:"floored"`
	// ChatTemplateKwargs is the chat_template_kwargs every request carried
	// (the manifest's server_chat_template_kwargs, canonical JSON); "" for
	// none.
	ChatTemplateKwargs string `json:"chat_template_kwargs,omitempty"`
	// Frames is "video" when the role sent each prompt's frames as one
	// video part (models.json's server_frames); "" for images.
	Frames string `json:"frames,omitempty"`
	// Refitted is how many times a VLM query the server refused as too long
	// for its model was asked again with every second frame (each such
	// query also counts again in Queries).
	Refitted int `json:"refitted"`
}

// newStats starts the counts of one role, served as cfg says by lc's
// client.
func newStats(cfg Config, lc *lazyClient) *Stats {
	s := cfg.Server
	st := &Stats{s: StatsSnapshot{Role: cfg.Role, Model: s.Model, URL: s.URL, ChatTemplateKwargs: s.ChatTemplateKwargs}, client: lc}
	for _, u := range cfg.Endpoints() {
		st.s.Endpoints = append(st.s.Endpoints, openai.EndpointStats{URL: strings.TrimRight(u, "/")})
	}
	if s.Frames == models.ServerFramesVideo {
		st.s.Frames = s.Frames
	}
	return st
}

func (st *Stats) role() string { return st.s.Role } // set once, never written after

// Snapshot returns the counts so far.
func (st *Stats) Snapshot() StatsSnapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.s
	if st.client != nil {
		if c := st.client.made.Load(); c != nil {
			s.Endpoints = c.EndpointStats()
		}
	}
	s.Endpoints = append([]openai.EndpointStats(nil), s.Endpoints...)
	return s
}

// PrefixShare is the share of queries whose frames an earlier query of
// their group carried (0 without queries).
func (s StatsSnapshot) PrefixShare() float64 {
	if s.Queries == 0 {
		return 0
	}
	return float64(s.PrefixShared) / float64(s.Queries)
}

// RequestsPerSecond is requests over Seconds (0 when nothing was timed).
func (s StatsSnapshot) RequestsPerSecond() float64 {
	if s.Seconds <= 0 {
		return 0
	}
	return float64(s.Requests) / s.Seconds
}

// record adds one call's counts.
func (st *Stats) record(g openai.Stats, failed int, firstErr error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.Queries += g.Queries
	st.s.Failed += failed
	st.s.Requests += g.Requests
	st.s.Retries += g.Retries
	st.s.StoreHits += g.StoreHits
	st.s.Images += g.Images
	st.s.WithImages += g.WithImages
	st.s.PrefixShared += g.SharedPrefix
	if st.firstErr == nil && firstErr != nil {
		st.firstErr = firstErr
	}
}

// FirstError is the first query the server failed after its retries (nil
// when none), for a caller that stops at a failure to name it.
func (st *Stats) FirstError() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.firstErr
}

// addFloored counts n answers with a floored letter.
func (st *Stats) addFloored(n int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.Floored += n
}

// addRefitted counts n queries asked again with fewer frames.
func (st *Stats) addRefitted(n int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.Refitted += n
}

// recordGenerate adds a call of n generations (a captioner's frames).
func (st *Stats) recordGenerate(n, failed int, firstErr error) {
	st.record(openai.Stats{Queries: n, Requests: int64(n), Images: int64(n), WithImages: n}, failed, firstErr)
	st.setMode(openai.ModeGenerate, false)
}

// begin and end bracket one call to the server, for Seconds.
func (st *Stats) begin() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.active == 0 {
		st.since = time.Now()
	}
	st.active++
}

func (st *Stats) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.active--
	if st.active == 0 {
		st.s.Seconds += time.Since(st.since).Seconds()
	}
}

// setMode records how the role's letters were read.
func (st *Stats) setMode(mode string, prefill bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.Mode, st.s.Prefill = mode, prefill
}

// refusalWindow is how many queries a server must have failed, answering
// none, before the run stops: fewer could be a transient fault on the
// first video, whose items fail alone.
const refusalWindow = 8

// ErrRefused is what Refused's error matches with errors.Is.
var ErrRefused = errors.New("the server refused every request")

// Refused returns an error naming the server and its first message when it
// has failed every query so far and at least min(refusalWindow, sent) of
// them, where final says the run sent all it will (so a run of fewer
// queries than the window still stops when none was answered); nil
// otherwise.
func (st *Stats) Refused(final bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.s
	if s.Failed == 0 || s.Failed < s.Queries || (s.Failed < refusalWindow && !final) {
		return nil
	}
	at := s.URL
	if len(s.Endpoints) > 1 {
		urls := make([]string, len(s.Endpoints))
		for i, e := range s.Endpoints {
			urls[i] = e.URL
		}
		at = "every replica (" + strings.Join(urls, ", ") + ")"
	}
	return fmt.Errorf("%w: %s at %s (model %s) failed all %d of its queries; the first: %v", ErrRefused, s.Role, at, s.Model, s.Failed, st.firstErr)
}
