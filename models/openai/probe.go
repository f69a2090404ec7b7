package openai

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/vidscreen/vidscreen/models/letters"
)

// ProbeTimeout bounds each attempt of a client's probe: its first query,
// asked alone before any other to find out its server's forms. It is short,
// and apart from Config.Timeout (minutes, for a long VLM prompt on a busy
// server), so that a server that accepts connections and never answers is
// found in under a minute: at most probeRetries+1 attempts of ProbeTimeout,
// 15 s + 0.25 s + 15 s + 0.5 s + 15 s at the defaults. Every later query
// then fails at once, and the caller stops the run (models/served's
// refusal check). A warm vLLM or SGLang answers one question, even with 32
// frames, in a few seconds.
const ProbeTimeout = 15 * time.Second

// probeRetries bounds the retries of the probe's attempts (Config.MaxRetries
// when that is fewer).
const probeRetries = 2

// probeState is the probe's outcome where it must outlast the probe: the
// failure every later query of the client returns at once when the server
// gave no reply at all (no connection, no answer in time).
type probeState struct {
	mu  sync.Mutex
	err *ServerError
}

// probeQuery is Check's question: one any model answers "B" to, text
// only, so that it costs one short prefill.
var probeQuery = Query{
	ID: "models check",
	Prompt: letters.Parts{Kind: letters.KindBlind, Question: "What colour is a clear daytime sky?",
		Options: []string{"green", "blue", "red", "black"}},
}

// Probe asks probeQuery as a client's first query (see probeWith) and
// returns its answer; on a client whose forms are known it is asked as any
// query is. Check calls it.
func (c *Client) Probe(ctx context.Context) (Answer, error) {
	order, err := probeQuery.check()
	if err != nil {
		return Answer{}, err
	}
	if a, err, asked := c.probeWith(ctx, probeQuery, order, nil); asked {
		return a, err
	}
	return c.ask(ctx, probeQuery, nil)
}

// probeWith makes q the client's probe unless its forms are known (asked
// false): q is asked alone, one caller at a time, in the authors' form,
// falling back: a 400 naming continue_final_message drops the prefilled
// turn, one naming logprobs (or a reply without them) asks for a generated
// reply, unless Config.Mode fixes the mode. Its answer sets the client's
// forms, which every later query is asked in: a reply of another kind is
// then a failure of that query, never a switch (Ask). Its attempts are
// bounded by ProbeTimeout, at most probeRetries+1 of them. A probe the
// server failed with a reply (a 5xx, a refusal, a malformed reply) fails q
// alone, and the next query probes; one that got no reply at all fails q
// and every later query of the client at once.
func (c *Client) probeWith(ctx context.Context, q Query, order []int, st *counters) (a Answer, err error, asked bool) {
	select {
	case c.probe <- struct{}{}:
	case <-ctx.Done():
		return Answer{}, ctx.Err(), true
	}
	defer func() { <-c.probe }()
	if c.formsKnown() {
		return Answer{}, nil, false
	}
	c.probed.mu.Lock()
	dead := c.probed.err
	c.probed.mu.Unlock()
	if dead != nil {
		return Answer{}, &ServerError{URL: dead.URL, Request: q.ID, Message: "not asked: the server gave no reply to the probe, the client's first query (" + dead.Error() + ")", Attempts: 0, Err: dead}, true
	}
	a, err = c.findForms(ctx, q, order, st)
	var se *ServerError
	if errors.As(err, &se) && se.Status == 0 && !se.malformed && ctx.Err() == nil {
		c.probed.mu.Lock()
		c.probed.err = se
		c.probed.mu.Unlock()
	}
	return a, err, true
}

// findForms asks q in the first form the server takes and sets the
// client's forms from its answer.
func (c *Client) findForms(ctx context.Context, q Query, order []int, st *counters) (Answer, error) {
	pcfg := c.cfg
	pcfg.Timeout = min(ProbeTimeout, c.cfg.Timeout)
	pcfg.MaxRetries = min(probeRetries, c.cfg.MaxRetries)
	if c.cfg.MaxRetries < 0 {
		pcfg.MaxRetries = -1
	}
	pc, err := New(pcfg)
	if err != nil {
		return Answer{}, err
	}
	// The probe asks through the client's own replicas: one it finds dead
	// is out of service for the queries after it too, and its counts are
	// the client's.
	pc.pool = c.pool
	prefill, logprobs := true, c.cfg.Mode != ModeGenerate
	for {
		msgs, err := q.messages(order, prefill)
		if err != nil {
			return Answer{}, err
		}
		body, err := pc.chatBody(msgs, prefill, logprobs)
		if err != nil {
			return Answer{}, fmt.Errorf("query %s: %w", q.ID, err)
		}
		// A reply without log-probabilities is what the probe is for: it
		// is stored, so that a resumed run decides the same.
		// Its refusals of a form are stored too: with the reply, they are
		// the record of the forms it decided; so is a refusal of the
		// prompt as too long, as Ask stores it.
		chk := replyCheck{
			accept:      func(data []byte) error { _, _, err := pc.readAnswer(q, order, data, logprobs, body); return err },
			keepRefusal: func(se *ServerError) bool { return c.refusesForm(se, prefill, logprobs) || se.tooLong() },
		}
		reply, err := pc.fetch(ctx, "/chat/completions", body, q.ID, len(q.Frames), st, chk)
		var se *ServerError
		switch {
		case err == nil:
		case errors.As(err, &se) && c.refusesForm(se, prefill, logprobs):
			if prefill && refuses(se, prefillFields...) {
				prefill = false
			} else {
				logprobs = false
			}
			continue
		default:
			return Answer{}, err
		}
		a, ok, err := pc.readAnswer(q, order, reply, logprobs, body)
		if err != nil {
			return Answer{}, err
		}
		if !ok { // the server ignored logprobs: ask for a reply instead
			logprobs = false
			continue
		}
		a.Prefill = prefill
		c.prefill.Store(form(prefill))
		c.logprobs.Store(form(logprobs))
		return a, nil
	}
}

// prefillFields are the request fields a refusal of the prefilled turn
// names.
var prefillFields = []string{"continue_final_message", "add_generation_prompt"}

// refusesForm reports whether se refuses a form the probe can drop: the
// prefilled turn while it is offered, log-probabilities while they are
// asked for and Config.Mode does not require them.
func (c *Client) refusesForm(se *ServerError, prefill, logprobs bool) bool {
	return prefill && refuses(se, prefillFields...) || logprobs && c.cfg.Mode != ModeLogprobs && refuses(se, "logprobs")
}

// form is formWorks for true, formRefused for false.
func form(works bool) int32 {
	if works {
		return formWorks
	}
	return formRefused
}
