package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func post(t *testing.T, s *Server, path, body string) (int, http.Header, []byte, error) {
	t.Helper()
	resp, err := http.Post(s.BaseURL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

const chatBody = `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/AA=="}},{"type":"text","text":"Q?\nA. x\nB. y"}]},{"role":"assistant","content":"Answer:"}],"max_tokens":1,"temperature":0,"seed":3,"logprobs":true,"top_logprobs":2,"continue_final_message":true,"add_generation_prompt":false}`

func TestChatReplyHasVLLMsShape(t *testing.T) {
	t.Parallel()
	s := New(Config{Models: []string{"m"}, Answer: func(r *Request) Reply {
		return Reply{Top: map[string]float64{" B": 3, "A": 1, "The": 0.5}}
	}})
	defer s.Close()
	code, _, body, err := post(t, s, "/chat/completions", chatBody)
	if err != nil || code != 200 {
		t.Fatalf("%d %v %s", code, err, body)
	}
	var v struct {
		Object  string
		Choices []struct {
			Message  struct{ Role, Content string }
			Logprobs struct {
				Content []struct {
					Token       string
					Logprob     float64
					Bytes       []int
					TopLogprobs []struct {
						Token   string
						Logprob float64
						Bytes   []int
					} `json:"top_logprobs"`
				}
			}
		}
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	c := v.Choices[0]
	first := c.Logprobs.Content[0]
	if v.Object != "chat.completion" || c.Message.Role != "assistant" || c.Message.Content != " B" || first.Token != " B" || len(first.TopLogprobs) != 2 {
		t.Fatalf("reply %s", body)
	}
	if got := first.TopLogprobs[1]; got.Token != "A" || math.Abs(got.Logprob-math.Log(1/4.5)) > 1e-12 || fmt.Sprint(got.Bytes) != "[65]" {
		t.Errorf("second candidate %+v", got)
	}
	r := s.Requests()[0]
	if r.Images() != 1 || r.Messages[0].Images[0].MIME != "image/jpeg" || r.User() != "Q?\nA. x\nB. y" || *r.Seed != 3 || r.TopLogprobs != 2 || !r.ContinueFinalMessage {
		t.Errorf("recorded %+v", r)
	}
	// The same request is the same bytes.
	_, _, again, _ := post(t, s, "/chat/completions", chatBody)
	if string(again) != string(body) {
		t.Errorf("a repeated request got other bytes")
	}
}

func TestCompletionsReplyHasVLLMsShape(t *testing.T) {
	t.Parallel()
	s := New(Config{Models: []string{"m"}, Answer: func(r *Request) Reply { return Reply{Top: map[string]float64{" A": 1, " B": 1}} }})
	defer s.Close()
	_, _, body, err := post(t, s, "/completions", `{"model":"m","prompt":"Q? A. x B. y\nAnswer:","max_tokens":1,"temperature":0,"logprobs":5}`)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Choices []struct {
			Text     string
			Logprobs struct {
				Tokens        []string
				TokenLogprobs []float64            `json:"token_logprobs"`
				TopLogprobs   []map[string]float64 `json:"top_logprobs"`
			}
		}
	}
	json.Unmarshal(body, &v)
	lp := v.Choices[0].Logprobs
	if v.Choices[0].Text != " A" || lp.Tokens[0] != " A" || math.Abs(lp.TokenLogprobs[0]-math.Log(0.5)) > 1e-12 || len(lp.TopLogprobs[0]) != 2 {
		t.Errorf("reply %s", body)
	}
}

func TestServerRefusesAsVLLMDoes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      Config
		body     string
		wantCode int
		wantMsg  string
	}{
		{"an unknown model", Config{}, strings.Replace(chatBody, `"m"`, `"other"`, 1), 404, "The model `other` does not exist."},
		{"continue_final_message refused", Config{RefusePrefill: true}, chatBody, 400, "continue_final_message is set but the final message does not appear"},
		{"continue_final_message with add_generation_prompt", Config{}, strings.Replace(chatBody, `"add_generation_prompt":false`, `"add_generation_prompt":true`, 1), 400, "Cannot set both"},
		{"logprobs refused", Config{Logprobs: LogprobsRefused}, chatBody, 400, "logprobs is not supported"},
		{"too many top logprobs", Config{}, strings.Replace(chatBody, `"top_logprobs":2`, `"top_logprobs":21`, 1), 400, "cannot be greater than 20"},
		{"a remote image", Config{}, strings.Replace(chatBody, "data:image/jpeg;base64,/9j/AA==", "http://example.com/a.jpg", 1), 400, "is not a data URL"},
		{"not JSON", Config{}, "{", 400, "request body is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Models = []string{"m"}
			s := New(tt.cfg)
			defer s.Close()
			code, _, body, err := post(t, s, "/chat/completions", tt.body)
			var v struct{ Error struct{ Message string } }
			json.Unmarshal(body, &v)
			if err != nil || code != tt.wantCode || !strings.Contains(v.Error.Message, tt.wantMsg) {
				t.Errorf("%d %v %s; want %d %q", code, err, body, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

func TestFaultsOnDemand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault Fault
		check func(code int, h http.Header, body []byte, err error) string
	}{
		{"429 with Retry-After", Fault{Status: 429, RetryAfter: "2"}, func(code int, h http.Header, _ []byte, err error) string {
			if code != 429 || h.Get("Retry-After") != "2" {
				return fmt.Sprintf("%d %v", code, h)
			}
			return ""
		}},
		{"a torn reply", Fault{Torn: true}, func(_ int, _ http.Header, _ []byte, err error) string {
			if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
				return fmt.Sprintf("err %v, want unexpected EOF", err)
			}
			return ""
		}},
		{"truncated JSON", Fault{Truncated: true}, func(code int, _ http.Header, b []byte, err error) string {
			if err != nil || code != 200 || json.Valid(b) || len(b) == 0 {
				return fmt.Sprintf("%d %v %s", code, err, b)
			}
			return ""
		}},
		{"malformed JSON", Fault{Malformed: true}, func(code int, _ http.Header, b []byte, err error) string {
			if err != nil || code != 200 || json.Valid(b) {
				return fmt.Sprintf("%d %v %s", code, err, b)
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Config{Models: []string{"m"}, Fault: func(_ *Request, attempt int) Fault {
				if attempt == 1 {
					return tt.fault
				}
				return Fault{}
			}})
			defer s.Close()
			code, h, body, err := post(t, s, "/chat/completions", chatBody)
			if msg := tt.check(code, h, body, err); msg != "" {
				t.Error(msg)
			}
			if code, _, body, err := post(t, s, "/chat/completions", chatBody); code != 200 || err != nil || !json.Valid(body) {
				t.Errorf("second attempt: %d %v", code, err)
			}
		})
	}
}

func TestRecordsEveryRequestUnderLoad(t *testing.T) {
	t.Parallel()
	s := New(Config{Models: []string{"m"}})
	defer s.Close()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			post(t, s, "/chat/completions", strings.Replace(chatBody, `"seed":3`, fmt.Sprintf(`"seed":%d`, i), 1))
		}()
	}
	wg.Wait()
	resp, err := http.Get(s.BaseURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if s.Count("/v1/chat/completions") != 40 || s.Count("/v1/models") != 1 || !strings.Contains(string(b), `"id":"m"`) {
		t.Errorf("%d chat requests, %d model lists; models %s", s.Count("/v1/chat/completions"), s.Count("/v1/models"), b)
	}
	seeds := map[int64]bool{}
	for _, r := range s.Requests() {
		if r.Seed != nil {
			seeds[*r.Seed] = true
		}
	}
	if len(seeds) != 40 {
		t.Errorf("%d distinct seeds recorded", len(seeds))
	}
}

// TestContextRefusalsInEachFlavour: a request over the model's context is
// refused with a 400 in the flavour's body and words (vLLM: {"error":
// {...}} and "maximum context length"; SGLang: {"object": "error", ...}
// and "longer than the model's context length"), one over the image limit
// with vLLM's "At most N image(s)"; one within both is answered.
func TestContextRefusalsInEachFlavour(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
		code int
		want string // the message's start; "" for an answer
	}{
		{"vLLM, over the context", Config{ContextLength: 200, ImageTokens: 300}, 400, "This model's maximum context length is 200 tokens. However, you requested 306 tokens (305 in the messages, 1 in the completion)."},
		{"SGLang, over the context", Config{ContextLength: 200, ImageTokens: 300, Flavor: FlavorSGLang}, 400, "The input (305 tokens) is longer than the model's context length (200 tokens)."},
		{"at the image limit", Config{MaxImages: 1, ContextLength: 100000}, 200, ""},
		{"within the context", Config{ContextLength: 400, ImageTokens: 300}, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Models = []string{"m"}
			s := New(tc.cfg)
			defer s.Close()
			code, _, body, err := post(t, s, "/chat/completions", chatBody)
			if err != nil || code != tc.code {
				t.Fatalf("status %d (%v), want %d: %s", code, err, tc.code, body)
			}
			if tc.want == "" {
				return
			}
			var v struct {
				Object  string `json:"object"`
				Message string `json:"message"`
				Code    int    `json:"code"`
				Error   *struct {
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			json.Unmarshal(body, &v)
			msg := v.Message
			if tc.cfg.Flavor == FlavorSGLang {
				if v.Object != "error" || v.Code != 400 || v.Error != nil {
					t.Errorf("SGLang's body %s", body)
				}
			} else if v.Error == nil || v.Error.Type != "BadRequestError" || v.Object != "" {
				t.Errorf("vLLM's body %s", body)
			} else {
				msg = v.Error.Message
			}
			if !strings.HasPrefix(msg, tc.want) {
				t.Errorf("message %q, want %q", msg, tc.want)
			}
		})
	}
	s := New(Config{Models: []string{"m"}, MaxImages: 0})
	defer s.Close()
	two := strings.Replace(chatBody, `{"type":"text"`, `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/AA=="}},{"type":"text"`, 1)
	lim := New(Config{Models: []string{"m"}, MaxImages: 1})
	defer lim.Close()
	code, _, body, _ := post(t, lim, "/chat/completions", two)
	if code != 400 || !strings.Contains(string(body), "At most 1 image(s) may be provided in one prompt.") {
		t.Errorf("two images over a limit of one: %d %s", code, body)
	}
	if code, _, _, _ := post(t, s, "/chat/completions", two); code != 200 {
		t.Errorf("two images without a limit: %d", code)
	}
}

// TestChatStreamsAsServerSentEvents: "stream": true is answered as vLLM
// and SGLang answer it: text/event-stream, a chunk with the assistant
// role, a chunk with the content, its log-probabilities and the finish
// reason, then "data: [DONE]"; the same request unstreamed is one JSON
// reply saying the same.
func TestChatStreamsAsServerSentEvents(t *testing.T) {
	t.Parallel()
	s := New(Config{Models: []string{"m"}, Answer: func(r *Request) Reply {
		return Reply{Top: map[string]float64{" B": 3, "A": 1}}
	}})
	defer s.Close()
	body := strings.Replace(chatBody, `"max_tokens":1`, `"max_tokens":1,"stream":true`, 1)
	code, h, b, err := post(t, s, "/chat/completions", body)
	if err != nil || code != 200 || h.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %v %q: %s", code, err, h.Get("Content-Type"), b)
	}
	events := strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n\n")
	if len(events) != 3 || events[2] != "data: [DONE]" {
		t.Fatalf("events %q", events)
	}
	type chunk struct {
		Object  string
		Choices []struct {
			Delta struct {
				Role    *string
				Content string
			}
			Logprobs *struct {
				Content []struct {
					Token       string
					TopLogprobs []struct{ Token string } `json:"top_logprobs"`
				}
			}
			FinishReason *string `json:"finish_reason"`
		}
	}
	var first, second chunk
	for k, dst := range []*chunk{&first, &second} {
		data, ok := strings.CutPrefix(events[k], "data: ")
		if !ok || json.Unmarshal([]byte(data), dst) != nil || dst.Object != "chat.completion.chunk" || len(dst.Choices) != 1 {
			t.Fatalf("event %d: %q", k, events[k])
		}
	}
	if d := first.Choices[0]; d.Delta.Role == nil || *d.Delta.Role != "assistant" || d.FinishReason != nil || d.Logprobs != nil {
		t.Errorf("first chunk %+v", first)
	}
	d := second.Choices[0]
	if d.Delta.Content != " B" || d.FinishReason == nil || *d.FinishReason != "length" || d.Logprobs == nil || len(d.Logprobs.Content[0].TopLogprobs) != 2 {
		t.Errorf("second chunk %+v", second)
	}
	if r := s.Requests(); !r[0].Stream {
		t.Error("the request's stream field was not recorded")
	}
	code, h, b, _ = post(t, s, "/chat/completions", chatBody)
	if code != 200 || h.Get("Content-Type") != "application/json" || !strings.Contains(string(b), `"content":" B"`) {
		t.Errorf("unstreamed: %d %q %s", code, h.Get("Content-Type"), b)
	}
}
