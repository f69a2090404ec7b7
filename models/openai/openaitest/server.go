package openaitest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// A Reply is what the model "believes" about one request.
type Reply struct {
	// Top are the first position's candidate tokens and their
	// probabilities (normalised by the server; zeros are left out). The
	// sampled token is the most likely one (ties: the smaller token).
	Top map[string]float64
	// Text is what a generating request (max_tokens above 1) gets as its
	// message content; empty means the sampled token.
	Text string
}

// A Fault is how the server misbehaves on one attempt; the zero Fault is
// none.
type Fault struct {
	// Status, when set, is answered instead of a reply, with an OpenAI
	// error body; RetryAfter, when set, goes in the Retry-After header.
	Status     int
	RetryAfter string
	// Delay is slept before answering (past the client's timeout, a
	// timeout); the server stops waiting when the client goes away.
	Delay time.Duration
	// Torn declares the whole reply's Content-Length, sends half of it and
	// closes the connection.
	Torn bool
	// Truncated sends the first half of the reply as a complete body.
	Truncated bool
	// Malformed sends a body that is not JSON.
	Malformed bool
	// Body, when set, is sent with status 200 in place of the reply: JSON
	// of the wrong shape, such as {"choices":[]}.
	Body string
	// NoLogprobs drops the log-probabilities from this reply, as a flaky
	// server might, the rest of it as usual.
	NoLogprobs bool
}

// Logprobs modes: how the server treats a request for log-probabilities.
const (
	LogprobsGiven   = iota // returned, as vLLM does
	LogprobsIgnored        // the field is ignored: no logprobs in the reply, as some servers do
	LogprobsRefused        // a 400 naming logprobs
)

// Config sets the server up. The zero Config serves model "test-model" and
// answers "A".
type Config struct {
	// Models are the ids /v1/models lists and requests may name; empty
	// means "test-model".
	Models []string
	// Answer decides each request's reply; nil answers "A" with
	// probability 1.
	Answer func(r *Request) Reply
	// Fault, when set, is asked before each reply; attempt counts the times
	// this exact body has been received, from 1.
	Fault func(r *Request, attempt int) Fault
	// Logprobs is LogprobsGiven, LogprobsIgnored or LogprobsRefused.
	Logprobs int
	// RefusePrefill answers continue_final_message with vLLM's 400.
	RefusePrefill bool
	// Delay is slept before every reply (a slow server).
	Delay time.Duration
	// ContextLength, when positive, is the model's context in tokens (vllm
	// serve --max-model-len, sglang --context-length): a request whose
	// prompt (Tokens) and max_tokens exceed it is refused with a 400 in the
	// flavour's words. ImageTokens is what one image costs (256 when 0).
	ContextLength, ImageTokens int
	// MaxImages, when positive, is vLLM's --limit-mm-per-prompt
	// '{"image": N}': a request with more images is refused with a 400.
	MaxImages int
	// Flavor is FlavorVLLM (the zero value) or FlavorSGLang: whose error
	// bodies and messages the server writes.
	Flavor int
	// TextOnly serves a text model: a request with images is refused with
	// vLLM's 400 "<model> is not a multimodal model".
	TextOnly bool
	// VideoOnly serves a model vLLM takes video for and not images
	// (LLaVA-NeXT-Video: its processor's limits are {"video": 1}): a
	// request with an image part is refused with vLLM's 400 "At most 0
	// image(s) may be provided in one prompt.", one with two videos with
	// "At most 1 video(s) ...".
	VideoOnly bool
	// ImagesOnly serves a model that takes images and not video (vLLM's
	// InternVL on an InternLM2 language model, whose processor has no
	// video token): a request with a video part is refused with "At most 0
	// video(s) may be provided in one prompt."
	ImagesOnly bool
}

// Flavors: the server whose error bodies the test server writes. vLLM
// writes {"error": {"message", "type", "param", "code"}}; SGLang (and vLLM
// before 0.10) {"object": "error", "message", "type", "param", "code"}.
const (
	FlavorVLLM = iota
	FlavorSGLang
)

// A Server is a running test server.
type Server struct {
	*httptest.Server
	cfg Config

	mu       sync.Mutex
	log      []Request
	attempts map[[32]byte]int
}

// New starts a server; Close stops it.
func New(cfg Config) *Server {
	if len(cfg.Models) == 0 {
		cfg.Models = []string{"test-model"}
	}
	if cfg.Answer == nil {
		cfg.Answer = func(*Request) Reply { return Reply{Top: map[string]float64{"A": 1}} }
	}
	s := &Server{cfg: cfg, attempts: map[[32]byte]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the API root clients are given: the server's URL and "/v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns a copy of every request received so far, in the order
// they arrived.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Count is how many requests were received on path ("/v1/chat/completions").
func (s *Server) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.Path == path {
			n++
		}
	}
	return n
}

// Reset forgets the requests received and the attempt counts.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
	s.attempts = map[[32]byte]int{}
}

func (s *Server) record(r *Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, *r)
	k := sha256.Sum256(append([]byte(r.Path+"\n"), r.Body...))
	s.attempts[k]++
	return s.attempts[k]
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		return
	}
	r, perr := parseRequest(hr.Method, hr.URL.Path, body)
	attempt := s.record(r)
	if s.cfg.Delay > 0 && !sleep(hr, s.cfg.Delay) {
		return
	}
	var f Fault
	if s.cfg.Fault != nil && hr.Method == http.MethodPost {
		f = s.cfg.Fault(r, attempt)
	}
	if f.Delay > 0 && !sleep(hr, f.Delay) {
		return
	}
	if f.Status != 0 {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		s.writeError(w, f.Status, fmt.Sprintf("injected fault %d", f.Status), "")
		return
	}
	var reply []byte
	status := http.StatusOK
	switch {
	case hr.URL.Path == "/v1/models" && hr.Method == http.MethodGet:
		reply = s.models()
	case hr.Method != http.MethodPost || hr.URL.Path != "/v1/chat/completions" && hr.URL.Path != "/v1/completions":
		s.writeError(w, http.StatusNotFound, "Not Found", "")
		return
	case perr != nil:
		s.writeError(w, http.StatusBadRequest, perr.Error(), "")
		return
	default:
		reply, status = s.complete(r, f.NoLogprobs)
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(reply)
			return
		}
	}
	switch {
	case f.Body != "":
		reply = []byte(f.Body)
	case f.Malformed:
		reply = []byte("<html><body>502 upstream hiccup</body></html>")
	case f.Truncated:
		reply = reply[:len(reply)/2]
	case f.Torn:
		tear(w, reply)
		return
	case r.Stream && strings.HasSuffix(hr.URL.Path, "/chat/completions"):
		streamChat(w, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(reply)
}

// sleep waits d, or until the client goes away (false).
func sleep(hr *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-hr.Context().Done():
		return false
	}
}

// tear promises the whole reply and closes the connection halfway.
func tear(w http.ResponseWriter, reply []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("openaitest: the response writer cannot be hijacked")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(reply))
	buf.Write(reply[:len(reply)/2])
	buf.Flush()
}

// writeError answers an OpenAI error body, as the server's flavour writes
// them.
func (s *Server) writeError(w http.ResponseWriter, status int, msg, param string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(s.errorBody(status, msg, param))
}

func (s *Server) errorBody(status int, msg, param string) []byte {
	typ := map[int]string{400: "BadRequestError", 404: "NotFoundError", 429: "RateLimitError"}[status]
	if typ == "" {
		typ = "InternalServerError"
	}
	var p any
	if param != "" {
		p = param
	}
	if s.cfg.Flavor == FlavorSGLang {
		return mustJSON(map[string]any{"object": "error", "message": msg, "type": typ, "param": p, "code": status})
	}
	return mustJSON(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": p, "code": status}})
}

// Tokens is what the server counts a request's prompt as: a token per four
// bytes of its messages' text (or prompt), at least one, and ImageTokens
// per image or video frame.
func (s *Server) Tokens(r *Request) int {
	per := s.cfg.ImageTokens
	if per == 0 {
		per = 256
	}
	return max(len(r.Text())/4, 1) + per*(r.Images()+r.VideoFrames())
}

// tooLong is the refusal of a request over the model's image limit or
// context, in the flavour's words ("" when it fits).
func (s *Server) tooLong(r *Request) string {
	if s.cfg.MaxImages > 0 && r.Images() > s.cfg.MaxImages {
		return fmt.Sprintf("At most %d image(s) may be provided in one prompt.", s.cfg.MaxImages)
	}
	n := s.Tokens(r)
	if s.cfg.ContextLength <= 0 || n+r.MaxTokens <= s.cfg.ContextLength {
		return ""
	}
	if s.cfg.Flavor == FlavorSGLang {
		return fmt.Sprintf("The input (%d tokens) is longer than the model's context length (%d tokens).", n, s.cfg.ContextLength)
	}
	return fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
		s.cfg.ContextLength, n+r.MaxTokens, n, r.MaxTokens)
}

func (s *Server) models() []byte {
	owner := map[int]string{FlavorVLLM: "vllm", FlavorSGLang: "sglang"}[s.cfg.Flavor]
	ctx := 32768
	if s.cfg.ContextLength > 0 {
		ctx = s.cfg.ContextLength
	}
	var data []any
	for _, m := range s.cfg.Models {
		data = append(data, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": owner, "root": m, "parent": nil, "max_model_len": ctx})
	}
	return mustJSON(map[string]any{"object": "list", "data": data})
}

func (s *Server) knows(model string) bool {
	for _, m := range s.cfg.Models {
		if m == model {
			return true
		}
	}
	return false
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// vllmPrefillRefusal is what vLLM answers when a chat template cannot
// continue the final message.
const vllmPrefillRefusal = "continue_final_message is set but the final message does not appear in the chat after applying the chat template! This can happen if the chat template deletes portions of the final message. Please verify the chat template and final message in your chat to ensure they are compatible."

// complete answers a completion request, or an error body and its status;
// noLogprobs leaves out the log-probabilities asked for (Fault.NoLogprobs).
func (s *Server) complete(r *Request, noLogprobs bool) ([]byte, int) {
	chat := strings.HasSuffix(r.Path, "/chat/completions")
	switch {
	case !s.knows(r.Model):
		return s.errorBody(404, fmt.Sprintf("The model `%s` does not exist.", r.Model), "model"), 404
	case r.MaxTokens < 1:
		return s.errorBody(400, "max_tokens must be at least 1, got "+fmt.Sprint(r.MaxTokens), "max_tokens"), 400
	case r.TopLogprobs > 20:
		return s.errorBody(400, fmt.Sprintf("Requested top logprobs of %d cannot be greater than 20.", r.TopLogprobs), "top_logprobs"), 400
	case chat && r.ContinueFinalMessage && (r.AddGenerationPrompt == nil || *r.AddGenerationPrompt):
		return s.errorBody(400, "Cannot set both `continue_final_message` and `add_generation_prompt` to True.", ""), 400
	case chat && r.ContinueFinalMessage && r.Messages[len(r.Messages)-1].Role != "assistant":
		return s.errorBody(400, vllmPrefillRefusal, ""), 400
	case chat && r.ContinueFinalMessage && s.cfg.RefusePrefill:
		return s.errorBody(400, vllmPrefillRefusal, ""), 400
	case r.Logprobs && s.cfg.Logprobs == LogprobsRefused:
		return s.errorBody(400, "logprobs is not supported by this server", "logprobs"), 400
	case s.cfg.TextOnly && (r.Images() > 0 || r.Videos() > 0):
		return s.errorBody(400, r.Model+" is not a multimodal model", ""), 400
	case s.cfg.VideoOnly && r.Images() > 0:
		return s.errorBody(400, "At most 0 image(s) may be provided in one prompt.", "image"), 400
	case s.cfg.VideoOnly && r.Videos() > 1:
		return s.errorBody(400, "At most 1 video(s) may be provided in one prompt.", "video"), 400
	case s.cfg.ImagesOnly && r.Videos() > 0:
		return s.errorBody(400, "At most 0 video(s) may be provided in one prompt.", "video"), 400
	case s.tooLong(r) != "":
		return s.errorBody(400, s.tooLong(r), ""), 400
	}
	rep := s.cfg.Answer(r)
	top := rank(rep.Top)
	if len(top) == 0 {
		top = []ranked{{"", 0}}
	}
	content := top[0].token
	if r.MaxTokens > 1 && rep.Text != "" {
		content = rep.Text
	}
	withLogprobs := r.Logprobs && s.cfg.Logprobs == LogprobsGiven && !noLogprobs
	n := min(r.TopLogprobs, len(top))
	id := digest(r.Body)
	if chat {
		choice := map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "reasoning_content": nil, "content": content, "tool_calls": []any{}},
			"logprobs":      nil,
			"finish_reason": "length",
			"stop_reason":   nil,
		}
		if withLogprobs {
			var alts []any
			for _, t := range top[:n] {
				alts = append(alts, map[string]any{"token": t.token, "logprob": t.logprob, "bytes": byteList(t.token)})
			}
			if alts == nil {
				alts = []any{}
			}
			choice["logprobs"] = map[string]any{"content": []any{map[string]any{
				"token": top[0].token, "logprob": top[0].logprob, "bytes": byteList(top[0].token), "top_logprobs": alts,
			}}}
		}
		return mustJSON(map[string]any{
			"id": "chatcmpl-" + id, "object": "chat.completion", "created": 0, "model": r.Model,
			"choices": []any{choice},
			"usage":   map[string]any{"prompt_tokens": len(r.Body) / 4, "total_tokens": len(r.Body)/4 + 1, "completion_tokens": 1},
		}), 200
	}
	choice := map[string]any{"index": 0, "text": content, "logprobs": nil, "finish_reason": "length", "stop_reason": nil}
	if withLogprobs {
		alts := map[string]float64{}
		for _, t := range top[:n] {
			alts[t.token] = t.logprob
		}
		choice["logprobs"] = map[string]any{
			"text_offset": []int{0}, "token_logprobs": []float64{top[0].logprob},
			"tokens": []string{top[0].token}, "top_logprobs": []any{alts},
		}
	}
	return mustJSON(map[string]any{
		"id": "cmpl-" + id, "object": "text_completion", "created": 0, "model": r.Model,
		"choices": []any{choice},
		"usage":   map[string]any{"prompt_tokens": len(r.Body) / 4, "total_tokens": len(r.Body)/4 + 1, "completion_tokens": 1},
	}), 200
}
