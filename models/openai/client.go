package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Config says where the server is and how to talk to it.
type Config struct {
	// BaseURL is the API root, as servers print it: "http://127.0.0.1:8000/v1".
	BaseURL string
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
	// MaxConcurrent bounds the requests in flight from this client; 0 means 8.
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
}

// A Client sends scoring requests to one server. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	http     *http.Client
	slots    chan struct{}
}

// New checks cfg and returns a client. It refuses a non-loopback base URL
// unless cfg.AllowRemote is set.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("openai base URL %q: %w", cfg.BaseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("openai base URL %q: scheme must be http or https", cfg.BaseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("openai base URL %q: no host", cfg.BaseURL)
	}
	if !cfg.AllowRemote && !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("openai base URL %q: %s is not a loopback address; vidscreen sends nothing off this machine unless remote servers are allowed explicitly", cfg.BaseURL, u.Hostname())
	}
	if cfg.Model == "" {
		return nil, errors.New("openai: no model name")
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
		endpoint: strings.TrimRight(cfg.BaseURL, "/") + path,
		http: &http.Client{
			Transport: transport,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				return fmt.Errorf("openai: server redirected to %s; redirects are not followed", req.URL.Redacted())
			},
		},
		slots: make(chan struct{}, cfg.MaxConcurrent),
	}, nil
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

// statusError is a non-2xx reply.
type statusError struct {
	code       int
	body       string
	retryAfter time.Duration
}

func (e *statusError) Error() string {
	return fmt.Sprintf("server answered %d %s: %s", e.code, http.StatusText(e.code), e.body)
}

func (e *statusError) retryable() bool {
	return e.code >= 500 || e.code == http.StatusTooManyRequests
}

// post sends body to the endpoint, retrying on 5xx, 429 and connection
// errors with doubling waits, and decodes the JSON reply into out. It holds
// one of the client's concurrency slots while a request is in flight.
func (c *Client) post(ctx context.Context, body []byte, out any) error {
	var last error
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, body, out)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		last = err
		wait := c.cfg.Backoff << attempt
		if wait > c.cfg.MaxBackoff || wait <= 0 {
			wait = c.cfg.MaxBackoff
		}
		var se *statusError
		switch {
		case errors.As(err, &se):
			if !se.retryable() {
				return err
			}
			if se.retryAfter > 0 {
				wait = min(se.retryAfter, c.cfg.MaxBackoff)
			}
		case isConnError(err):
		default:
			return err
		}
		if attempt >= c.cfg.MaxRetries {
			return fmt.Errorf("after %d attempts: %w", attempt+1, last)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// connError marks a failure to reach the server, worth retrying.
type connError struct{ err error }

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

func isConnError(err error) bool {
	var ce *connError
	return errors.As(err, &ce)
}

func (c *Client) once(ctx context.Context, body []byte, out any) error {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.slots }()
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if strings.Contains(err.Error(), "not a loopback address") || strings.Contains(err.Error(), "redirects are not followed") {
			return err
		}
		return &connError{err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return &connError{fmt.Errorf("read reply: %w", err)}
	}
	if resp.StatusCode/100 != 2 {
		se := &statusError{code: resp.StatusCode, body: excerpt(data)}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			se.retryAfter = time.Duration(s) * time.Second
		}
		return se
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode reply from %s: %w (reply starts %q)", c.endpoint, err, excerpt(data))
	}
	return nil
}

// excerpt is the start of a reply body, for error messages.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
