package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
)

// MaxBody bounds a request body: 32 frames at 448 px in base64 are about
// 2 MB; a body past this is refused (413), so memory stays bounded.
const MaxBody = 64 << 20

// A Server answers OpenAI-compatible requests as vidscreen's client sends
// them (/v1/models, /v1/chat/completions with logprobs, top_logprobs and
// continue_final_message), in vLLM's response shapes, through an Engine
// that takes the time a GPU server would. GET /stats gives the engine's
// Counts with the requests received twice; POST /reset (with ?cache=1 the
// prefix cache too) starts a new measurement.
type Server struct {
	Model  string
	Engine *Engine
	tok    *Tokenizer

	mu   sync.Mutex
	seen map[uint64]uint8 // request digests, to count requests asked twice
	dups int64
	full bool // seen reached maxSeen: later bodies are not remembered
}

// maxSeen bounds the digests remembered (about 40 bytes each): past it,
// AskedTwice counts only repeats of the bodies remembered.
const maxSeen = 1 << 22

// NewServer serves model through e, counting images as tok does.
func NewServer(model string, e *Engine, tok *Tokenizer) *Server {
	return &Server{Model: model, Engine: e, tok: tok, seen: map[uint64]uint8{}}
}

// Stats is what GET /stats returns.
type Stats struct {
	Counts
	// AskedTwice counts requests whose body had been received before;
	// SeenFull says the server stopped remembering bodies (past 4M).
	AskedTwice int64 `json:"asked_twice"`
	SeenFull   bool  `json:"seen_full,omitempty"`
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	d, full := s.dups, s.full
	s.mu.Unlock()
	return Stats{Counts: s.Engine.Counts(), AskedTwice: d, SeenFull: full}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/v1/models" && r.Method == http.MethodGet:
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{map[string]any{
			"id": s.Model, "object": "model", "created": 0, "owned_by": "vllm", "root": s.Model, "parent": nil, "max_model_len": 32768}}})
	case r.URL.Path == "/stats" && r.Method == http.MethodGet:
		writeJSON(w, 200, s.Stats())
	case r.URL.Path == "/reset" && r.Method == http.MethodPost:
		s.Engine.Reset(r.URL.Query().Get("cache") == "1")
		s.mu.Lock()
		s.seen, s.dups, s.full = map[uint64]uint8{}, 0, false
		s.mu.Unlock()
		writeJSON(w, 200, map[string]any{"reset": true})
	case r.URL.Path == "/v1/chat/completions" && r.Method == http.MethodPost:
		s.chat(w, r)
	default:
		writeError(w, 404, "Not Found")
	}
}

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	MaxTokens            *int  `json:"max_tokens"`
	Logprobs             bool  `json:"logprobs"`
	TopLogprobs          int   `json:"top_logprobs"`
	ContinueFinalMessage bool  `json:"continue_final_message"`
	AddGenerationPrompt  *bool `json:"add_generation_prompt"`
}

type part struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		writeError(w, 413, fmt.Sprintf("request body: %v", err))
		return
	}
	s.note(body)
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, 400, fmt.Sprintf("request body is not JSON: %v", err))
		return
	}
	switch {
	case req.Model != s.Model:
		writeError(w, 404, fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	case len(req.Messages) == 0:
		writeError(w, 400, "messages is required")
		return
	case req.TopLogprobs > 20:
		writeError(w, 400, fmt.Sprintf("Requested top logprobs of %d cannot be greater than 20.", req.TopLogprobs))
		return
	}
	gen := req.AddGenerationPrompt == nil || *req.AddGenerationPrompt
	if req.ContinueFinalMessage && gen {
		writeError(w, 400, "Cannot set both `continue_final_message` and `add_generation_prompt` to True.")
		return
	}
	turns := make([]Turn, len(req.Messages))
	user := ""
	for i, m := range req.Messages {
		turns[i].Role = m.Role
		var str string
		if json.Unmarshal(m.Content, &str) == nil {
			turns[i].Parts = []Part{{Text: str}}
		} else {
			var parts []part
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				writeError(w, 400, fmt.Sprintf("messages[%d]: content is neither a string nor a list of parts", i))
				return
			}
			for j, p := range parts {
				switch {
				case p.Type == "text":
					turns[i].Parts = append(turns[i].Parts, Part{Text: p.Text})
				case p.Type == "image_url" && p.ImageURL != nil:
					turns[i].Parts = append(turns[i].Parts, Part{ImageURL: p.ImageURL.URL})
				default:
					writeError(w, 400, fmt.Sprintf("messages[%d].content[%d]: part type %q is not served here", i, j, p.Type))
					return
				}
			}
		}
		if m.Role == "user" {
			user = ""
			for _, p := range turns[i].Parts {
				user += p.Text
			}
		}
	}
	if req.ContinueFinalMessage && req.Messages[len(req.Messages)-1].Role != "assistant" {
		writeError(w, 400, "continue_final_message is set but the final message does not appear in the chat after applying the chat template!")
		return
	}
	prompt, err := s.tok.Tokens(turns, req.ContinueFinalMessage, gen)
	if err != nil {
		writeError(w, 400, err.Error())
		return
	}
	done, ok := s.Engine.Submit(prompt)
	if !ok {
		w.Header().Set("Retry-After", "1")
		writeError(w, 429, "the server's queue is full")
		return
	}
	select {
	case <-done:
	case <-r.Context().Done():
		return
	}
	writeJSON(w, 200, s.reply(body, user, prompt, req.Logprobs, min(req.TopLogprobs, 20)))
}

// note counts a body received before.
func (s *Server) note(body []byte) {
	d := sha256.Sum256(body)
	k := binary.LittleEndian.Uint64(d[:8])
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[k] > 0 {
		s.dups++
		return
	}
	if len(s.seen) >= maxSeen {
		s.full = true
		return
	}
	s.seen[k] = 1
}

// reply is vLLM's chat completion: the first token's candidates are the
// option letters the user turn lists, with probabilities drawn from a hash
// of the request, so the same request gets the same bytes.
func (s *Server) reply(body []byte, user string, p Prompt, logprobs bool, top int) map[string]any {
	n := 0
	for _, line := range strings.Split(user, "\n") {
		if len(line) >= 3 && line[1] == '.' && line[2] == ' ' && line[0] == "ABCDEFGHIJKLMNOP"[n%16] {
			n++
		}
	}
	n = max(n, 2)
	h := fnv.New64a()
	h.Write(body)
	x := h.Sum64()
	weights := make([]float64, n)
	total := 0.0
	for i := range weights {
		x = x*6364136223846793005 + 1442695040888963407
		weights[i] = 0.05 + float64(x>>11)/(1<<53)
		total += weights[i]
	}
	type cand struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
		Bytes   []int   `json:"bytes"`
	}
	var cands []cand
	best := 0
	for i, wt := range weights {
		if wt > weights[best] {
			best = i
		}
		tok := " " + string(rune('A'+i))
		cands = append(cands, cand{tok, math.Log(wt / total), []int{32, 'A' + i}})
	}
	if len(cands) > top {
		cands = cands[:top]
	}
	choice := map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": " " + string(rune('A'+best))},
		"logprobs": nil, "finish_reason": "length", "stop_reason": nil}
	if logprobs {
		choice["logprobs"] = map[string]any{"content": []any{map[string]any{
			"token": " " + string(rune('A'+best)), "logprob": math.Log(weights[best] / total), "bytes": []int{32, 'A' + best}, "top_logprobs": cands}}}
	}
	d := sha256.Sum256(body)
	return map[string]any{"id": fmt.Sprintf("chatcmpl-%x", d[:12]), "object": "chat.completion", "created": 0, "model": s.Model,
		"choices": []any{choice}, "usage": map[string]any{"prompt_tokens": len(p.Tokens), "completion_tokens": 1, "total_tokens": len(p.Tokens) + 1}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"error":{"message":"encoding the reply failed","code":500}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "BadRequestError", "param": nil, "code": status}})
}
