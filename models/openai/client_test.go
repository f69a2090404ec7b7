package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// server answers every POST with reply after checking the request with check.
func server(t *testing.T, reply []byte, check func(path string, req map[string]any)) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body %q: %v", body, err)
		}
		if check != nil {
			check(r.URL.Path, req)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func lse(v ...float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Exp(x)
	}
	return math.Log(s)
}

func TestLetterLogProbsRecordedReplies(t *testing.T) {
	t.Parallel()
	abcd := []string{"A", "B", "C", "D"}
	tests := []struct {
		name       string
		fixture    string
		chat       bool
		wantPath   string
		want       []float64
		wantFound  []bool
		wantLowest float64
		wantBest   string
	}{
		{
			name: "vLLM completions merges \" A\" with \"A\"", fixture: "vllm_completions.json", wantPath: "/v1/completions",
			want:      []float64{lse(-1.6605978608131408, -4.410597860813141), lse(-0.4105978608131408, -2.9105978608131408), -3.4105978608131408, -4.035597860813141},
			wantFound: []bool{true, true, true, true}, wantLowest: -6.535597860813141, wantBest: "B",
		},
		{
			name: "vLLM chat, D present and a letter missing", fixture: "vllm_chat.json", chat: true, wantPath: "/v1/chat/completions",
			want:      []float64{-2.0, LogFloor, lse(-0.25, -3.5), -3.0},
			wantFound: []bool{true, false, true, true}, wantLowest: -3.5, wantBest: "C",
		},
		{
			name: "llama.cpp chat with token ids", fixture: "llamacpp_chat.json", chat: true, wantPath: "/v1/chat/completions",
			want:      []float64{lse(-0.10536051565782628, -3.2188758248682006), -3.506557897319982, -4.605170185988091, LogFloor},
			wantFound: []bool{true, true, true, false}, wantLowest: -4.605170185988091, wantBest: "A",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := server(t, fixture(t, tt.fixture), func(path string, req map[string]any) {
				if path != tt.wantPath {
					t.Errorf("path %s, want %s", path, tt.wantPath)
				}
				if req["model"] != "m" || req["max_tokens"] != 1.0 || req["temperature"] != 0.0 {
					t.Errorf("request %v", req)
				}
				if tt.chat && (req["logprobs"] != true || req["top_logprobs"] != 20.0 || req["messages"] == nil) {
					t.Errorf("chat request %v", req)
				}
				if !tt.chat && (req["logprobs"] != 20.0 || req["prompt"] != "Q? A. x B. y\nAnswer:") {
					t.Errorf("completions request %v", req)
				}
			})
			c, err := New(Config{BaseURL: ts.URL + "/v1", Model: "m", Chat: tt.chat})
			if err != nil {
				t.Fatal(err)
			}
			r := Request{Letters: abcd, Prompt: "Q? A. x B. y\nAnswer:", Messages: []Message{{Role: "user", Content: "Q?"}}}
			s, err := c.LetterLogProbs(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			for i := range abcd {
				if math.Abs(s.LogProbs[i]-tt.want[i]) > 1e-12 || s.Found[i] != tt.wantFound[i] {
					t.Errorf("%s: %v (found %v), want %v (found %v)", abcd[i], s.LogProbs[i], s.Found[i], tt.want[i], tt.wantFound[i])
				}
			}
			if s.Lowest != tt.wantLowest {
				t.Errorf("lowest %v, want %v", s.Lowest, tt.wantLowest)
			}
			if got := s.Letters[s.Best()]; got != tt.wantBest {
				t.Errorf("best %s, want %s", got, tt.wantBest)
			}
		})
	}
}

func TestNoLogprobsIsAClearError(t *testing.T) {
	t.Parallel()
	ts := server(t, fixture(t, "llamacpp_completions_nologprobs.json"), nil)
	c, _ := New(Config{BaseURL: ts.URL + "/v1", Model: "m"})
	_, err := c.LetterLogProbs(context.Background(), Request{Prompt: "x", Letters: []string{"A", "B"}})
	if err == nil || !strings.Contains(err.Error(), "reply has no logprobs") {
		t.Errorf("err = %v", err)
	}
}

func TestRefusesRemoteBaseURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://10.0.0.5:8000/v1", "https://api.openai.com/v1", "http://192.168.1.2/v1", "http://[2001:db8::1]:80/v1", "http://localhost.example.com/v1"} {
		if _, err := New(Config{BaseURL: u, Model: "m"}); err == nil || !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("New(%s): %v, want a refusal", u, err)
		}
	}
	for _, u := range []string{"http://localhost:8000/v1", "http://127.0.0.1:8000/v1", "http://127.3.2.1/v1", "http://[::1]:8080/v1"} {
		if _, err := New(Config{BaseURL: u, Model: "m"}); err != nil {
			t.Errorf("New(%s): %v", u, err)
		}
	}
	if _, err := New(Config{BaseURL: "http://10.0.0.5:8000/v1", Model: "m", AllowRemote: true}); err != nil {
		t.Errorf("AllowRemote: %v", err)
	}
	for _, u := range []string{"ftp://127.0.0.1/v1", "127.0.0.1:8000", "http:///v1"} {
		if _, err := New(Config{BaseURL: u, Model: "m"}); err == nil {
			t.Errorf("New(%s) accepted", u)
		}
	}
}

func TestDialerRefusesNonLoopbackAddresses(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{"127.0.0.1:80": true, "[::1]:80": true, "10.1.2.3:80": false, "93.184.216.34:443": false} {
		if err := loopbackOnly("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("loopbackOnly(%s) = %v", addr, err)
		}
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.RedirectHandler("http://127.0.0.1:1/elsewhere", http.StatusTemporaryRedirect))
	defer ts.Close()
	c, _ := New(Config{BaseURL: ts.URL, Model: "m", MaxRetries: -1})
	_, err := c.LetterLogProbs(context.Background(), Request{Prompt: "x", Letters: []string{"A"}})
	if err == nil || !strings.Contains(err.Error(), "redirects are not followed") {
		t.Errorf("err = %v", err)
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	ok := fixture(t, "vllm_completions.json")
	tests := []struct {
		name         string
		statuses     []int // replies before success; 0 means success
		maxRetries   int
		wantAttempts int32
		wantErr      string
	}{
		{name: "5xx then success", statuses: []int{503, 500, 0}, maxRetries: 4, wantAttempts: 3},
		{name: "429 is retried", statuses: []int{429, 0}, maxRetries: 4, wantAttempts: 2},
		{name: "400 is not retried", statuses: []int{400}, maxRetries: 4, wantAttempts: 1, wantErr: "400 Bad Request: bad prompt"},
		{name: "gives up after the last retry", statuses: []int{502, 502, 502}, maxRetries: 2, wantAttempts: 3, wantErr: "502 Bad Gateway: bad prompt (after 3 attempts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				if i < len(tt.statuses) && tt.statuses[i] != 0 {
					w.WriteHeader(tt.statuses[i])
					io.WriteString(w, "bad prompt")
					return
				}
				w.Write(ok)
			}))
			defer ts.Close()
			c, _ := New(Config{BaseURL: ts.URL + "/v1", Model: "m", MaxRetries: tt.maxRetries, Backoff: time.Millisecond})
			_, err := c.LetterLogProbs(context.Background(), Request{Prompt: "x", Letters: []string{"A", "B"}})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if n.Load() != tt.wantAttempts {
				t.Errorf("%d attempts, want %d", n.Load(), tt.wantAttempts)
			}
		})
	}
}

func TestContextEndsBackoff(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(503)
	}))
	defer ts.Close()
	c, _ := New(Config{BaseURL: ts.URL, Model: "m", Backoff: time.Hour, MaxBackoff: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.LetterLogProbs(ctx, Request{Prompt: "x", Letters: []string{"A"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("waited out the backoff instead of the context")
	}
}

// ScoreAll keeps at most MaxConcurrent requests in flight, returns results in
// order, and a failing request fails alone.
func TestScoreAllBoundsConcurrencyAndKeepsOrder(t *testing.T) {
	var inFlight, peak atomic.Int32
	var mu sync.Mutex
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		mu.Lock()
		peak.Store(max(peak.Load(), cur))
		mu.Unlock()
		var req struct{ Prompt string }
		json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(2 * time.Millisecond)
		if req.Prompt == "bad" {
			w.WriteHeader(422)
			return
		}
		// The prompt names the letter to make most likely.
		tok := " " + req.Prompt
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"logprobs": map[string]any{
			"tokens": []string{tok}, "token_logprobs": []float64{-0.1},
			"top_logprobs": []map[string]float64{{tok: -0.1, " Z": -5}},
		}}}})
	}))
	defer ts.Close()
	c, _ := New(Config{BaseURL: ts.URL + "/v1", Model: "m", MaxConcurrent: 3})
	letters := []string{"A", "B", "C"}
	var reqs []Request
	for i := 0; i < 30; i++ {
		p := letters[i%3]
		if i == 7 {
			p = "bad"
		}
		reqs = append(reqs, Request{Prompt: p, Letters: letters})
	}
	res := c.ScoreAll(context.Background(), reqs)
	for i, r := range res {
		if i == 7 {
			if r.Err == nil || !strings.Contains(r.Err.Error(), "422") {
				t.Errorf("request 7: err %v, want the 422", r.Err)
			}
			continue
		}
		if r.Err != nil {
			t.Errorf("request %d: %v", i, r.Err)
			continue
		}
		if got := letters[r.Scores.Best()]; got != letters[i%3] {
			t.Errorf("request %d: best %s, want %s", i, got, letters[i%3])
		}
	}
	if peak.Load() > 3 {
		t.Errorf("%d requests in flight, limit 3", peak.Load())
	}
}

func TestLetterChecks(t *testing.T) {
	t.Parallel()
	c, _ := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	for _, letters := range [][]string{nil, {"A", "A"}, {" A"}, {""}} {
		if _, err := c.LetterLogProbs(context.Background(), Request{Prompt: "x", Letters: letters}); err == nil || !strings.Contains(err.Error(), "letter") {
			t.Errorf("letters %q: %v", letters, err)
		}
	}
}

func TestLogSumExp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []float64
		want float64
	}{
		{[]float64{math.Log(0.25), math.Log(0.5)}, math.Log(0.75)},
		{[]float64{-1000, -1000}, -1000 + math.Log(2)}, // no underflow to -Inf
		{[]float64{math.Inf(-1)}, math.Inf(-1)},
	}
	for _, tt := range tests {
		if got := logSumExp(tt.in); math.Abs(got-tt.want) > 1e-12 && got != tt.want {
			t.Errorf("logSumExp(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func BenchmarkLetterLogProbs(b *testing.B) {
	reply, _ := os.ReadFile(filepath.Join("testdata", "vllm_completions.json"))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write(reply)
	}))
	defer ts.Close()
	c, _ := New(Config{BaseURL: ts.URL + "/v1", Model: "m", MaxConcurrent: 8})
	reqs := make([]Request, 64)
	for i := range reqs {
		reqs[i] = Request{Prompt: "Question? A. x B. y C. z D. w\nAnswer:", Letters: []string{"A", "B", "C", "D"}}
	}
	for b.Loop() {
		for _, r := range c.ScoreAll(context.Background(), reqs) {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(reqs))/b.Elapsed().Seconds(), "items/s")
}
