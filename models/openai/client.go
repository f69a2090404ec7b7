package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Config says where the server is and how to talk to it.
type Config struct {
	// BaseURL is the API root, as servers print it: "http://127.0.0.1:8000/v1".
	BaseURL string
	// BaseURLs, in place of BaseURL, are the API roots of several replicas
	// of one model (eight vLLM servers, one a GPU). Requests are spread
	// over them (pool: least outstanding, a group's frames kept on one, a
	// failing one out of service for a while); the replies' store keys do
	// not name the replica, so the answers are those of one server.
	BaseURLs []string
	// Model is the served model name sent with each request.
	Model string
	// Chat sends chat completions (prompts as messages, the server applies
	// the chat template) instead of plain completions.
	Chat bool
	// TopLogprobs is how many candidates to ask for; 0 means 20, the most
	// vLLM and the OpenAI API allow by default.
	TopLogprobs int
	// APIKey, when set, is sent as a bearer token (servers started with --api-key).
	APIKey string
	// AllowRemote permits a base URL that is not a loopback address.
	AllowRemote bool
	// MaxConcurrent bounds the requests in flight from this client to each
	// endpoint (BaseURL, or each of BaseURLs); 0 means 8.
	MaxConcurrent int
	// MaxRetries is how many times a request that failed with a 5xx or 429
	// status or a connection error is tried again; 0 means 4, negative none.
	MaxRetries int
	// Backoff is the wait before the first retry, doubling each time up to
	// MaxBackoff; 0 means 250ms and 8s. A Retry-After header in seconds wins.
	Backoff, MaxBackoff time.Duration
	// Timeout bounds one attempt; 0 means 5 minutes (a cold server compiles
	// its graphs on the first request).
	Timeout time.Duration
	// Seed is sent with every Ask, so that a server that honours it answers
	// the same way each run (with temperature 0 it rarely matters).
	Seed int64
	// Mode fixes how Ask reads replies: ModeLogprobs (an error when the
	// server gives none), ModeGenerate (never ask for them), or "" for
	// log-probabilities, falling back to generation on a server without.
	Mode string
	// Store, when set, holds every reply; Ask sends nothing it has answered.
	Store *Store
	// ParseReply reads a generated reply (ModeGenerate) into the index of
	// the option it names among options, as shown, or -1. Nil means a
	// leading option letter only; the harness passes answer.Parse's rules.
	ParseReply func(reply string, options []string) int
	// ChatTemplateKwargs, when set, is sent with every Ask and every chat
	// Generate as chat_template_kwargs, which vLLM, SGLang and the llama.cpp server pass
	// to the chat template: {"enable_thinking": false} for the Qwen3 models,
	// whose template would otherwise let a generated reply spend its 16
	// tokens thinking.
	ChatTemplateKwargs map[string]any
	// Frames is how a query's frames go to the server: FramesImages ("" too)
	// as one image_url part each, or FramesVideo as one video_url part
	// holding them all (vLLM's video/jpeg data URL), for a model the server
	// takes video for and not images (vLLM's LLaVA-NeXT-Video). It applies
	// to Ask's queries; Generate and LetterLogProbs send the caller's
	// Messages as they are, images as image_url parts.
	Frames string
}

// A Client sends scoring requests to one server, or to the replicas of one
// model. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	http     *http.Client
	pool     *pool  // the endpoints, one per base URL
	base     string // the first base URL without a trailing slash, for messages
	path     string // "/completions" or "/chat/completions", for LetterLogProbs and Generate

	// What this client has learned of its server, so that a refused form is
	// not offered again: formUnknown, formWorks or formRefused.
	prefill, logprobs atomic.Int32

	// prefixes bounds the shared frame prefixes in flight (hold.go): one
	// token per leader sent whose followers are not all answered.
	prefixes chan struct{}

	flights flights       // requests in flight through the store, by key
	probe   chan struct{} // held by the one query asking while the forms are unknown
	probed  probeState    // the probe's answer or failure (probe.go)
}

// New checks cfg and returns a client. It refuses a non-loopback base URL
// unless cfg.AllowRemote is set.
func New(cfg Config) (*Client, error) {
	bases := append([]string(nil), cfg.BaseURLs...)
	switch {
	case len(bases) == 0:
		bases = []string{cfg.BaseURL}
	case cfg.BaseURL != "":
		return nil, fmt.Errorf("openai: base URL %q given beside %d base URLs; give one or the other", cfg.BaseURL, len(bases))
	}
	seen := map[string]bool{}
	for i, b := range bases {
		if err := checkBaseURL(b, cfg.AllowRemote); err != nil {
			return nil, err
		}
		b = strings.TrimRight(b, "/")
		if seen[b] {
			return nil, fmt.Errorf("openai base URL %q: listed twice", b)
		}
		seen[b] = true
		bases[i] = b
	}
	if cfg.Model == "" {
		return nil, errors.New("openai: no model name")
	}
	if cfg.Frames != "" && cfg.Frames != FramesImages && cfg.Frames != FramesVideo {
		return nil, fmt.Errorf("openai: frames %q is neither %q nor %q", cfg.Frames, FramesImages, FramesVideo)
	}
	if cfg.TopLogprobs == 0 {
		cfg.TopLogprobs = 20
	}
	if cfg.TopLogprobs < 0 {
		return nil, fmt.Errorf("openai: top logprobs %d is negative", cfg.TopLogprobs)
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 8
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 4
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 250 * time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 8 * time.Second
	}
	if cfg.Mode != "" && cfg.Mode != ModeLogprobs && cfg.Mode != ModeGenerate {
		return nil, fmt.Errorf("openai: mode %q; want %q, %q or empty", cfg.Mode, ModeLogprobs, ModeGenerate)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Minute
	}
	path := "/completions"
	if cfg.Chat {
		path = "/chat/completions"
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !cfg.AllowRemote {
		dialer.Control = loopbackOnly
	}
	transport := &http.Transport{
		Proxy:               nil, // never through a proxy: the request must stay on this machine
		DialContext:         dialer.DialContext,
		MaxIdleConnsPerHost: cfg.MaxConcurrent,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Client{
		cfg:      cfg,
		endpoint: bases[0] + path,
		http: &http.Client{
			Transport: transport,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				return fmt.Errorf("openai: server redirected to %s; redirects are not followed", req.URL.Redacted())
			},
		},
		pool:     newPool(bases, cfg.MaxConcurrent, cfg.Backoff),
		prefixes: make(chan struct{}, prefixesInFlight(cfg.MaxConcurrent*len(bases))),
		base:     bases[0],
		path:     path,
		probe:    make(chan struct{}, 1),
	}, nil
}

// checkBaseURL checks one API root: http(s), a host, on the loopback
// unless allowRemote.
func checkBaseURL(base string, allowRemote bool) error {
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("openai base URL %q: %w", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("openai base URL %q: scheme must be http or https", base)
	}
	if u.Host == "" {
		return fmt.Errorf("openai base URL %q: no host", base)
	}
	if !allowRemote && !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("openai base URL %q: %s is not a loopback address; vidscreen sends nothing off this machine unless remote servers are allowed explicitly", base, u.Hostname())
	}
	return nil
}

// isLoopbackHost reports whether host names this machine: "localhost" or a
// loopback IP address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackOnly refuses a connection to any address that is not loopback,
// whatever name it was resolved from.
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("openai: refusing to connect to %s: not a loopback address", address)
	}
	return nil
}

// post sends body to the client's scoring or generation endpoint and decodes
// the JSON reply into out.
func (c *Client) post(ctx context.Context, body []byte, out any) error {
	data, err := c.exchange(ctx, c.path, body, "")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &ServerError{URL: c.endpoint, Request: requestKey(c.path, body)[:16], Status: http.StatusOK, Message: fmt.Sprintf("%v (reply starts %q)", err, excerpt(data)), Attempts: 1, Err: err, malformed: true}
	}
	return nil
}
