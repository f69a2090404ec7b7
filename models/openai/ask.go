package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/vidscreen/vidscreen/models/letters"
)

// Modes of an Answer: how the server's reply was read.
const (
	// ModeLogprobs: the letters' log-probabilities at the first generated
	// position (max_tokens 1, top_logprobs 20), merged per letter.
	ModeLogprobs = "logprobs"
	// ModeGenerate: a short reply (max_tokens 16) parsed by the answer
	// rules into one option, for a server that gives no log-probabilities.
	ModeGenerate = "generate"
)

// generateTokens bounds a generated reply: enough for "The answer is (B)."
const generateTokens = 16

// What a client has learned of its server's forms (Client.prefill and
// Client.logprobs).
const (
	formUnknown int32 = iota
	formWorks
	formRefused
)

// An Answer is a served reader's answer to one Query.
type Answer struct {
	// Mode is ModeLogprobs or ModeGenerate.
	Mode string
	// Prefill says whether the request carried the assistant turn
	// "Answer:" (continue_final_message); false when the server refused it
	// and the question was asked without.
	Prefill bool
	// Scores are per letter, in the order shown (Query.Order).
	Scores Scores
	// LogProbs and Found are per option in the original order: Scores with
	// Query.Order undone. In ModeGenerate the chosen option has 0 and is
	// Found, the others LogFloor (a one-hot score).
	LogProbs []float64
	Found    []bool
	// Choice is the original index of the best option; in ModeGenerate -1
	// when the reply names no option, or several ("B or C").
	Choice int
	// Reply is the generated text in ModeGenerate.
	Reply string
}

// Ask puts one query to the server and reads its answer. The client's
// first query is its probe (probeWith), asked alone, which finds the forms
// the server takes: the authors' form (a prefilled "Answer:" turn,
// continue_final_message true, add_generation_prompt false) unless the
// server refuses it, and log-probabilities unless the server gives none or
// Config.Mode says "generate". Every later query is asked in those forms,
// and a reply of another kind (no log-probabilities, a refusal of the
// prefilled turn) fails that query as a malformed reply or a refusal: the
// mode is decided once, so a server that drops log-probabilities now and
// then fails those queries rather than turning the rest of the run into
// generated answers.
//
// With a Config.Store, a request the store has answered is not sent, and a
// reply is stored before it is used, once it has been read as an answer: a
// refusal (a 4xx) and a reply of the wrong shape are never stored, so a
// resumed run asks them again. Failures of the server are *ServerError
// (errors.Is(err, ErrServer)); a cancelled ctx returns ctx.Err().
func (c *Client) Ask(ctx context.Context, q Query) (Answer, error) {
	return c.ask(ctx, q, nil)
}

func (c *Client) ask(ctx context.Context, q Query, st *counters) (Answer, error) {
	order, err := q.check()
	if err != nil {
		return Answer{}, err
	}
	if !c.formsKnown() {
		if a, err, asked := c.probeWith(ctx, q, order, st); asked {
			return a, err
		}
	}
	prefill := c.prefill.Load() == formWorks
	logprobs := c.cfg.Mode != ModeGenerate && c.logprobs.Load() == formWorks
	msgs, err := q.messages(order, prefill)
	if err != nil {
		return Answer{}, err
	}
	body, err := c.chatBody(msgs, prefill, logprobs)
	if err != nil {
		return Answer{}, fmt.Errorf("query %s: %w", q.ID, err)
	}
	read := func(data []byte) (Answer, error) {
		a, ok, err := c.readAnswer(q, order, data, logprobs, body)
		if err == nil && !ok {
			err = c.malformed(q, body, errors.New("reply has no logprobs, though the server gave them to the probe: the reader's mode is decided once, so this query fails"))
		}
		return a, err
	}
	// A refusal of the prompt as too long for the model is stored: it is
	// the server's verdict on these bytes, and decides what is asked
	// instead (a served VLM's fewer frames), so a resumed run must read it
	// as the first run did.
	chk := replyCheck{accept: func(data []byte) error { _, err := read(data); return err }, keepRefusal: (*ServerError).tooLong}
	reply, err := c.fetch(ctx, "/chat/completions", body, q.ID, len(q.Frames), st, chk)
	if err != nil {
		return Answer{}, err
	}
	a, err := read(reply)
	if err != nil {
		return Answer{}, err
	}
	a.Prefill = prefill
	return a, nil
}

// formsKnown reports whether this client knows both whether its server
// takes the prefilled turn and, unless it never asks for them, whether it
// gives log-probabilities.
func (c *Client) formsKnown() bool {
	return c.prefill.Load() != formUnknown && (c.cfg.Mode == ModeGenerate || c.logprobs.Load() != formUnknown)
}

// refuses reports whether a server error is a refusal of a request field:
// a 400 or 422 (vLLM, SGLang and strict pydantic servers) whose message names
// one of fields.
func refuses(se *ServerError, fields ...string) bool {
	if se.Status != http.StatusBadRequest && se.Status != http.StatusUnprocessableEntity {
		return false
	}
	for _, f := range fields {
		if strings.Contains(se.Message, f) {
			return true
		}
	}
	return false
}

// chatRequest is the body of a chat completion, fields in a fixed order so
// that the same query is the same bytes (and the same store key) each time.
type chatRequest struct {
	Model                string    `json:"model"`
	Messages             []Message `json:"messages"`
	MaxTokens            int       `json:"max_tokens"`
	Temperature          float64   `json:"temperature"`
	Seed                 int64     `json:"seed"`
	Logprobs             bool      `json:"logprobs,omitempty"`
	TopLogprobs          int       `json:"top_logprobs,omitempty"`
	ContinueFinalMessage bool      `json:"continue_final_message,omitempty"`
	AddGenerationPrompt  *bool     `json:"add_generation_prompt,omitempty"`
	// ChatTemplateKwargs is sent as JSON (encoding/json sorts its keys).
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
	// Video sends each message's run of images as one video_url part
	// (Config.Frames); encoding/json knows nothing of it, appendJSON does.
	Video bool `json:"-"`
}

func (c *Client) chatBody(msgs []Message, prefill, logprobs bool) ([]byte, error) {
	r := chatRequest{Model: c.cfg.Model, Messages: msgs, MaxTokens: generateTokens, Seed: c.cfg.Seed, ChatTemplateKwargs: c.cfg.ChatTemplateKwargs,
		Video: c.cfg.Frames == FramesVideo}
	if logprobs {
		r.MaxTokens, r.Logprobs, r.TopLogprobs = 1, true, c.cfg.TopLogprobs
	}
	if prefill {
		no := false
		r.ContinueFinalMessage, r.AddGenerationPrompt = true, &no
	}
	size := 256
	for _, m := range msgs {
		size += len(m.Content) + 64
		for _, p := range m.Parts {
			size += len(p.Text) + 64
			if p.Image != nil {
				size += base64.StdEncoding.EncodedLen(len(p.Image.Data)) + len(p.Image.MIME)
			}
		}
	}
	return r.appendJSON(make([]byte, 0, size))
}

// fetch returns the server's 2xx reply to body: from the store when it has
// one that accept takes, else from the server, stored before it is returned
// when accept takes it (accept reads the reply as the caller will: a 200 of
// the wrong shape is not stored). A refusal (a 4xx) is stored only when
// keepRefusal takes it: a verdict on the request's own bytes that decides
// what is asked next (the probe's refusal of a form, a prompt too long for
// the model: ErrTooLong). Other refusals and faults that may pass (5xx,
// 429, timeouts) are never stored, so that a resumed run asks again: a 401
// after a key change or a 404 after a renamed model is gone once the
// configuration is fixed.
func (c *Client) fetch(ctx context.Context, path string, body []byte, name string, images int, st *counters, chk replyCheck) ([]byte, error) {
	if c.cfg.Store == nil {
		return c.exchangeCounted(ctx, path, body, name, images, st)
	}
	key := requestKey(path, body)
	data, shared, err := c.flights.do(key, func() ([]byte, error) { return c.fetchStored(ctx, key, path, body, name, images, st, chk) })
	if shared {
		st.storeHit() // answered by the reply another query stored
	}
	return data, err
}

// fetchStored is fetch through the store, for one key at a time. A stored
// record accept does not take (a refusal or a malformed reply a run before
// this rule stored) is asked again and replaced by a good reply.
func (c *Client) fetchStored(ctx context.Context, key, path string, body []byte, name string, images int, st *counters, chk replyCheck) ([]byte, error) {
	r, ok, err := c.cfg.Store.Get(key)
	if err != nil {
		return nil, err
	}
	stale := false
	if ok {
		switch {
		case r.Status/100 == 2 && chk.accepts(r.Body):
			st.storeHit()
			return r.Body, nil
		case r.Status/100 == 4 && chk.keepRefusal != nil:
			se := &ServerError{URL: c.base + path, Request: label(name, key), Status: r.Status, Message: serverMessage(r.Body), Attempts: 1, body: r.Body}
			if chk.keepRefusal(se) {
				st.storeHit()
				return nil, se
			}
		}
		stale = true
	}
	data, err := c.exchangeCounted(ctx, path, body, name, images, st)
	var se *ServerError
	if errors.As(err, &se) && se.body != nil && se.Status/100 == 4 && chk.keepRefusal != nil && chk.keepRefusal(se) {
		put := c.cfg.Store.Put
		if stale {
			put = c.cfg.Store.Replace
		}
		if perr := put(key, StoredReply{Status: se.Status, Body: se.body}); perr != nil {
			return nil, perr
		}
	}
	if err != nil {
		return nil, err
	}
	if !chk.accepts(data) {
		return data, nil // the caller reads it and fails the query; nothing is stored
	}
	put := c.cfg.Store.Put
	if stale {
		put = c.cfg.Store.Replace
	}
	if perr := put(key, StoredReply{Status: http.StatusOK, Body: data}); perr != nil {
		return nil, perr
	}
	return data, nil
}

// A replyCheck says which replies fetch may store: those accept takes (nil
// takes every 2xx), and the refusals keepRefusal takes (nil: none).
type replyCheck struct {
	accept      func([]byte) error
	keepRefusal func(*ServerError) bool
}

func (chk replyCheck) accepts(data []byte) bool { return chk.accept == nil || chk.accept(data) == nil }

// malformed is the ServerError of a reply to q (sent as body) that is not
// the answer the protocol defines.
func (c *Client) malformed(q Query, body []byte, err error) error {
	return &ServerError{URL: c.base + "/chat/completions", Request: label(q.ID, requestKey("/chat/completions", body)), Status: http.StatusOK, Message: err.Error(), Attempts: 1, Err: err, malformed: true}
}

// readAnswer decodes a reply. ok is false when a logprobs request came back
// without log-probabilities (the server ignored the field).
func (c *Client) readAnswer(q Query, order []int, data []byte, logprobs bool, body []byte) (Answer, bool, error) {
	malformed := func(err error) error { return c.malformed(q, body, err) }
	ls := letterList(len(order))
	if logprobs {
		var resp completionResponse
		if err := json.Unmarshal(data, &resp); err != nil {
			return Answer{}, false, malformed(err)
		}
		if len(resp.Choices) == 0 {
			return Answer{}, false, malformed(errors.New("reply has no choices"))
		}
		if resp.Choices[0].Logprobs == nil || len(resp.Choices[0].Logprobs.Content) == 0 && len(resp.Choices[0].Logprobs.TopLogprobs) == 0 {
			if c.cfg.Mode == ModeLogprobs {
				return Answer{}, false, malformed(errors.New("reply has no logprobs, and the reader is configured for logprobs only"))
			}
			return Answer{}, false, nil
		}
		cands, err := resp.candidates()
		if err != nil {
			return Answer{}, false, malformed(err)
		}
		s := mergeLetters(cands, ls)
		a := Answer{Mode: ModeLogprobs, Scores: s}
		a.LogProbs, a.Found = unshuffle(s.LogProbs, s.Found, order)
		a.Choice = order[s.Best()]
		return a, true, nil
	}
	var resp struct {
		Choices []struct {
			Message *struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return Answer{}, false, malformed(err)
	}
	if len(resp.Choices) == 0 || resp.Choices[0].Message == nil || resp.Choices[0].Message.Content == nil {
		return Answer{}, false, malformed(errors.New("reply has no choices[0].message.content"))
	}
	reply := *resp.Choices[0].Message.Content
	parse := c.cfg.ParseReply
	if parse == nil {
		parse = leadingLetter
	}
	pick := -1
	if !namesSeveral(reply, len(ls)) { // "B or C" hedges: an abstention
		pick = parse(reply, presented(q.Prompt.Options, order))
	}
	s := Scores{Letters: ls, LogProbs: make([]float64, len(ls)), Found: make([]bool, len(ls)), Lowest: LogFloor}
	for i := range s.LogProbs {
		s.LogProbs[i] = LogFloor
	}
	a := Answer{Mode: ModeGenerate, Reply: reply, Choice: -1}
	if pick >= 0 && pick < len(ls) {
		s.LogProbs[pick], s.Found[pick] = 0, true
		a.Choice = order[pick]
	}
	a.Scores = s
	a.LogProbs, a.Found = unshuffle(s.LogProbs, s.Found, order)
	return a, true, nil
}

// unshuffle maps per-position values back to the original option order.
func unshuffle(lp []float64, found []bool, order []int) ([]float64, []bool) {
	olp, of := make([]float64, len(order)), make([]bool, len(order))
	for j, o := range order {
		olp[o], of[o] = lp[j], found[j]
	}
	return olp, of
}

// leadingLetter is the parser used when Config.ParseReply is nil: the
// reply's first word (after a repeated prefill "Answer:") is an option
// letter as the Video-Index authors read one (letters.LetterOf: "A",
// "(A)", "[A", "A.", "A:", "A)"), so "B. blue" is B and "Blue" is none.
// Callers in the harness pass harness/answer's full rules instead (models
// may not import the harness).
func leadingLetter(reply string, options []string) int {
	s := strings.TrimSpace(reply)
	s = strings.TrimPrefix(s, letters.DefaultPrefill)
	f := strings.Fields(s)
	if len(f) == 0 {
		return -1
	}
	l, ok := letters.LetterOf(f[0])
	if !ok {
		return -1
	}
	i := int(l - 'A')
	if i >= len(options) {
		return -1
	}
	return i
}

func label(name, key string) string {
	if name == "" {
		return key[:16]
	}
	return name + ", " + key[:16]
}
