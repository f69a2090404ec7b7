package asr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/audio"
)

// Config says where the server is and how to talk to it.
type Config struct {
	// Server is the manifest entry's settings (models.RoleSpec
	// ServerSettings): the base URL ("http://127.0.0.1:8000/v1"), the model
	// name, concurrency, timeout, retries and whether a remote server is
	// allowed.
	Server models.ServerSettings
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Language is sent with each request, as a code ("en"; "<|en|>", the
	// manifest's other spelling, is sent as "en"); default "en". The ONNX
	// path detects a language the manifest leaves out.
	Language string
	// Backoff is the wait before the first retry, doubling up to 8 s
	// (default 250 ms); a Retry-After header in seconds wins.
	Backoff time.Duration
}

// Client transcribes through the server. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	http     *http.Client
	slots    chan struct{}
}

// New checks cfg and returns a client; a base URL off the loopback is
// refused unless cfg.Server.AllowRemote is set.
func New(cfg Config) (*Client, error) {
	s := cfg.Server
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil, fmt.Errorf("asr server %q: %w", s.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("asr server %q: want http(s)://HOST:PORT/v1", s.URL)
	}
	if !s.AllowRemote && !loopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("asr server %q: %s is not a loopback address; vidscreen sends nothing off this machine unless the manifest sets server_allow_remote", s.URL, u.Hostname())
	}
	if s.Model == "" {
		return nil, fmt.Errorf("asr server %q: no server_model", s.URL)
	}
	if s.Concurrency <= 0 {
		s.Concurrency = models.DefaultServerConcurrency
	}
	if s.Timeout <= 0 {
		s.Timeout = models.DefaultServerTimeout
	}
	if s.Retries < 0 {
		s.Retries = 0
	}
	cfg.Server = s
	cfg.Language = strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(cfg.Language)), "<|"), "|>")
	if cfg.Language == "" {
		cfg.Language = "en"
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 250 * time.Millisecond
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !s.AllowRemote {
		dialer.Control = loopbackOnly
	}
	return &Client{
		cfg:      cfg,
		endpoint: strings.TrimRight(s.URL, "/") + "/audio/transcriptions",
		http: &http.Client{
			Transport: &http.Transport{Proxy: nil, DialContext: dialer.DialContext, MaxIdleConnsPerHost: s.Concurrency},
			CheckRedirect: func(req *http.Request, _ []*http.Request) error {
				return fmt.Errorf("asr server redirected to %s; redirects are not followed", req.URL.Redacted())
			},
		},
		slots: make(chan struct{}, s.Concurrency),
	}, nil
}

// Name identifies the served model for cache keys and config.json, as
// models/served names its roles: the model and the protocol, never the URL
// (the same model on another port reuses a run) nor the key.
func (c *Client) Name() string {
	return fmt.Sprintf("served:asr:%s:protocol=%d:language=%s", c.cfg.Server.Model, protocol, c.cfg.Language)
}

// protocol numbers the request form (30 s WAV windows, the fields sent):
// change it with the form.
const protocol = 1

// Transcribe sends the track in 30 s windows (what Whisper reads in one
// pass, and what the ONNX path transcribes; servers differ in how they cut
// longer files) and joins the windows' texts with spaces. An empty track
// asks nothing and is "".
func (c *Client) Transcribe(ctx context.Context, samples []float32) (string, error) {
	var texts []string
	for lo := 0; lo < len(samples); lo += audio.ChunkSamples {
		hi := min(len(samples), lo+audio.ChunkSamples)
		t, err := c.window(ctx, samples[lo:hi], lo/audio.ChunkSamples)
		if err != nil {
			return "", err
		}
		if t = strings.TrimSpace(t); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, " "), nil
}

// boundary is fixed so the same samples are the same request bytes.
const boundary = "vidscreen-asr-8c1d5a0f6e2b"

// body builds the multipart request of one window.
func (c *Client) body(samples []float32) ([]byte, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.SetBoundary(boundary); err != nil {
		return nil, err
	}
	for _, kv := range [][2]string{{"model", c.cfg.Server.Model}, {"language", c.cfg.Language}, {"response_format", "json"}, {"temperature", "0"}} {
		if err := w.WriteField(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	f, err := w.CreateFormFile("file", "audio.wav")
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(wav(samples, audio.SampleRate)); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// window transcribes one window, retrying 429s, 5xx, timeouts and
// connection errors with exponential backoff.
func (c *Client) window(ctx context.Context, samples []float32, k int) (string, error) {
	body, err := c.body(samples)
	if err != nil {
		return "", err
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-c.slots }()
	wait := c.cfg.Backoff
	for attempt := 0; ; attempt++ {
		text, retryAfter, err := c.once(ctx, body)
		if err == nil {
			return text, nil
		}
		var perm *permanentError
		if errors.As(err, &perm) || ctx.Err() != nil || attempt >= c.cfg.Server.Retries {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("asr server %s, window %d (%d s of audio), after %d attempts: %w", c.endpoint, k, len(samples)/audio.SampleRate, attempt+1, err)
		}
		d := wait
		if retryAfter > 0 {
			d = retryAfter
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		wait = min(2*wait, 8*time.Second)
	}
}

// permanentError is a reply a retry will not change: a 4xx other than 429,
// or a body that is not the JSON asked for.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// once sends one attempt.
func (c *Client) once(ctx context.Context, body []byte) (string, time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Server.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", 0, &permanentError{err}
	}
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return "", 0, fmt.Errorf("reading the reply: %w", err)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return "", time.Duration(ra) * time.Second, fmt.Errorf("status %d: %s", resp.StatusCode, message(raw))
	}
	if resp.StatusCode != http.StatusOK {
		return "", 0, &permanentError{fmt.Errorf("status %d: %s", resp.StatusCode, message(raw))}
	}
	var out struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Text == nil {
		return "", 0, &permanentError{fmt.Errorf("reply is not a transcription (want JSON with \"text\"): %.200q", raw)}
	}
	return *out.Text, 0, nil
}

// message returns a server's error message: the OpenAI form
// {"error": {"message": ...}} or {"message": ...}, else the body.
func message(raw []byte) string {
	var e struct {
		Error   any    `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil {
		if m, ok := e.Error.(map[string]any); ok {
			if s, ok := m["message"].(string); ok {
				return s
			}
		}
		if s, ok := e.Error.(string); ok {
			return s
		}
		if e.Message != "" {
			return e.Message
		}
	}
	return fmt.Sprintf("%.200q", raw)
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackOnly refuses a connection to any address that is not loopback.
func loopbackOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("asr: refusing to connect to %s: not a loopback address", address)
	}
	return nil
}
