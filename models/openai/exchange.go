package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// exchange POSTs body to the server's path ("/chat/completions"; a nil body
// is a GET) and returns the 2xx reply's bytes, which are
// complete JSON. It retries 5xx and 429 replies, connection failures,
// attempts that outlive Config.Timeout and torn replies (a body cut short,
// by a closed connection or by truncated JSON) up to MaxRetries times,
// waiting Backoff, doubling up to MaxBackoff, or what a Retry-After header
// says. Every failure it returns is a *ServerError, except that an ended ctx
// returns ctx.Err() at once, whether a request is in flight or the client
// is waiting to retry. name labels the request in errors (a query ID).
func (c *Client) exchange(ctx context.Context, path string, body []byte, name string) ([]byte, error) {
	return c.exchangeCounted(ctx, path, body, name, 0, nil)
}

// exchangeCounted is exchange counting each attempt, its images and the
// retries into st.
//
// With several endpoints (Config.BaseURLs) each attempt goes where pool.pick
// says, and an attempt failing as a server fails takes its endpoint out of
// service; when another is in service the request goes there at once,
// without waiting, and such a move (at most one per other endpoint) is not
// counted against MaxRetries, so a dead replica costs its requests no
// retries.
func (c *Client) exchangeCounted(ctx context.Context, path string, body []byte, name string, images int, st *counters) ([]byte, error) {
	affinity := affinityOf(ctx)
	moves := 0
	for attempt := 1; ; attempt++ {
		ep := c.pool.pick(affinity)
		e := c.pool.eps[ep]
		url := e.base + path
		st.request(images, ep)
		e.requests.Add(1)
		data, err := c.once(ctx, e, url, body)
		c.pool.done(ep)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			c.pool.answered(ep)
			st.answered(ep)
			return data, nil
		}
		se := &ServerError{URL: url, Request: label(name, requestKey(path, body)), Attempts: attempt}
		wait := c.backoff(attempt - moves) // the moves to other replicas waited for nothing
		var minOut time.Duration
		var sterr *statusError
		var fe *faultError
		switch {
		case errors.As(err, &sterr):
			se.Status, se.Message, se.body = sterr.code, serverMessage(sterr.body), sterr.body
			if !sterr.retryable() {
				c.pool.answered(ep) // a refusal is a reply
				st.answered(ep)
				return nil, se
			}
			if sterr.retryAfter > 0 {
				wait = min(sterr.retryAfter, c.cfg.Timeout)
				minOut = wait
			}
		case errors.As(err, &fe):
			se.Status, se.Message, se.Err, se.malformed = fe.status, fe.msg, fe.err, fe.malformed
			if !fe.retryable {
				c.pool.answered(ep)
				st.answered(ep)
				return nil, se
			}
		default:
			se.Message, se.Err = err.Error(), err
			return nil, se
		}
		st.failure(ep)
		if c.pool.failed(ep, minOut) && moves < len(c.pool.eps)-1 {
			moves++ // another replica is in service: go there now
			st.retry()
			continue
		}
		if attempt-moves > c.cfg.MaxRetries {
			return nil, se
		}
		st.retry()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// backoff is the wait after the attempt-th failure: Backoff, doubling, at
// most MaxBackoff.
func (c *Client) backoff(attempt int) time.Duration {
	wait := c.cfg.Backoff << (attempt - 1)
	if wait > c.cfg.MaxBackoff || wait <= 0 {
		wait = c.cfg.MaxBackoff
	}
	return wait
}

// faultError is a failed attempt that is not a status reply: no connection,
// no reply in time, a torn reply (retryable) or a malformed one (not).
type faultError struct {
	status    int
	msg       string
	err       error
	retryable bool
	malformed bool
}

func (e *faultError) Error() string { return e.msg }

// once sends one attempt to endpoint e, holding one of its concurrency
// slots while it is in flight.
func (c *Client) once(ctx context.Context, e *endpoint, url string, body []byte) ([]byte, error) {
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-e.slots }()
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	method := http.MethodPost
	var rd io.Reader
	if body == nil {
		method = http.MethodGet
	} else {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	timedOut := func() error {
		return &faultError{msg: fmt.Sprintf("no reply within %v", c.cfg.Timeout), err: context.DeadlineExceeded, retryable: true}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if strings.Contains(err.Error(), "not a loopback address") || strings.Contains(err.Error(), "redirects are not followed") {
			return nil, err
		}
		if ctx.Err() == nil && actx.Err() != nil {
			return nil, timedOut()
		}
		return nil, &faultError{msg: "cannot reach the server: " + err.Error(), err: err, retryable: true}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			return nil, timedOut()
		}
		return nil, &faultError{status: resp.StatusCode, msg: "reply torn: " + err.Error(), err: err, retryable: true}
	}
	if resp.StatusCode/100 != 2 {
		return nil, &statusError{code: resp.StatusCode, body: data, retryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	}
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	return data, nil
}

// checkJSON tells a torn reply (JSON that ends early: the server died while
// writing) from a malformed one (JSON that is wrong where it stands).
func checkJSON(data []byte) error {
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) || len(bytes.TrimSpace(data)) == 0 {
		return &faultError{status: http.StatusOK, msg: fmt.Sprintf("reply torn: %d bytes of JSON end early", len(data)), err: err, retryable: true}
	}
	return &faultError{status: http.StatusOK, msg: fmt.Sprintf("%v (reply starts %q)", err, excerpt(data)), err: err, malformed: true}
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil {
		if s > 0 {
			return time.Duration(s) * time.Second
		}
		return 0
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
