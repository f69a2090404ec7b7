package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vidscreen/vidscreen/models/letters"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// testFrames are n distinct encoded frames: frame i is a flat image whose
// red level is 10*i, so a server can tell them apart by their bytes.
func testFrames(t testing.TB, n int) []*Image {
	t.Helper()
	out := make([]*Image, n)
	for i := range out {
		pix := make([]byte, 3*64*48)
		for p := 0; p < len(pix); p += 3 {
			pix[p], pix[p+1], pix[p+2] = byte(10*i), 100, 200
		}
		im, err := EncodeFrame(pix, 64, 48, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = im
	}
	return out
}

// believes answers, with probability 0.7, the letter shown beside the option
// text want, and spreads the rest over the other letters and " " variants.
func believes(want string) func(r *openaitest.Request) openaitest.Reply {
	return func(r *openaitest.Request) openaitest.Reply {
		top := map[string]float64{"The": 0.05}
		for _, line := range strings.Split(r.User(), "\n") {
			l, text, ok := strings.Cut(line, ". ")
			if !ok || len(l) != 1 {
				continue
			}
			if text == want {
				top[" "+l] = 0.5
				top[l] = 0.2
			} else {
				top[" "+l] = 0.05
			}
		}
		return openaitest.Reply{Top: top, Text: letterFor(r.User(), want) + ". " + want}
	}
}

func letterFor(user, want string) string {
	for _, line := range strings.Split(user, "\n") {
		if l, text, ok := strings.Cut(line, ". "); ok && text == want {
			return l
		}
	}
	return "?"
}

func newTestClient(t testing.TB, s *openaitest.Server, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL, cfg.Model, cfg.Chat = s.BaseURL(), "test-model", true
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAskSendsTheAuthorsForm(t *testing.T) {
	t.Parallel()
	frames := testFrames(t, 3)
	opts := []string{"red", "blue", "green", "black"}
	tests := []struct {
		name      string
		q         Query
		wantParts []string
		wantText  []string // lines of the text part, in order
	}{
		{
			name:      "a frames reader sends the frames first, then one text part",
			q:         Query{Frames: frames, Prompt: letters.Parts{Kind: letters.KindVisual, Question: "What colour is the car?", Options: opts}},
			wantParts: []string{"image_url", "image_url", "image_url", "text"},
			wantText:  []string{"You are given 3 frame(s) sampled from a video. Answer the question based on these frames.", "", "Question: What colour is the car?", "Options:", "A. red", "B. blue", "C. green", "D. black", "Answer with the option letter only."},
		},
		{
			name:     "a blind reader sends text alone, as a string",
			q:        Query{Prompt: letters.Parts{Kind: letters.KindBlind, Question: "What colour is the car?", Options: opts}, Order: []int{2, 0, 3, 1}},
			wantText: []string{"You are given NO frames from the video. Answer the question from the text alone.", "", "Question: What colour is the car?", "Options:", "A. green", "B. red", "C. black", "D. blue", "Answer with the option letter only."},
		},
		{
			name:     "an options-only reader has no question line",
			q:        Query{Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: opts[:2]}, Order: []int{1, 0}},
			wantText: []string{"You are given NO frames from the video and NO question text. Using only the answer options below, choose the option most likely to be correct.", "", "Options:", "A. blue", "B. red", "Answer with the option letter only."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openaitest.New(openaitest.Config{})
			defer s.Close()
			c := newTestClient(t, s, Config{Seed: 7})
			if _, err := c.Ask(context.Background(), tt.q); err != nil {
				t.Fatal(err)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Path != "/v1/chat/completions" || r.Model != "test-model" || r.MaxTokens != 1 || r.Temperature == nil || *r.Temperature != 0 ||
				r.Seed == nil || *r.Seed != 7 || !r.Logprobs || r.TopLogprobs != 20 || !r.ContinueFinalMessage || r.AddGenerationPrompt == nil || *r.AddGenerationPrompt ||
				r.Stream { // unstreamed (vLLM's and SGLang's default): one JSON reply
				t.Errorf("parameters: %s", r.Body)
			}
			if len(r.Messages) != 2 || r.Messages[0].Role != "user" || r.Messages[1].Role != "assistant" || r.Messages[1].Text != "Answer:" {
				t.Fatalf("messages: %+v", r.Messages)
			}
			u := r.Messages[0]
			if !slices.Equal(u.Parts, tt.wantParts) {
				t.Errorf("parts %v, want %v", u.Parts, tt.wantParts)
			}
			for i, im := range u.Images {
				if im.MIME != "image/jpeg" || string(im.Data) != string(frames[i].Data) {
					t.Errorf("image %d: %s, %d bytes, not frame %d's JPEG", i, im.MIME, len(im.Data), i)
				}
			}
			if got := strings.Split(u.Text, "\n"); !slices.Equal(got, tt.wantText) {
				t.Errorf("text\n%q\nwant\n%q", got, tt.wantText)
			}
		})
	}
}

// The server's belief is about an option's text; the answer maps the letter
// it shows back to the original option under every order.
func TestAskReadsLogprobsUnderEveryOrder(t *testing.T) {
	t.Parallel()
	s := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer s.Close()
	c := newTestClient(t, s, Config{})
	opts := []string{"red", "blue", "green", "black"}
	for _, order := range [][]int{nil, {1, 0, 2, 3}, {3, 2, 1, 0}, {2, 3, 0, 1}} {
		a, err := c.Ask(context.Background(), Query{Prompt: letters.Parts{Kind: letters.KindBlind, Question: "Sky?", Options: opts}, Order: order})
		if err != nil {
			t.Fatal(err)
		}
		if a.Mode != ModeLogprobs || !a.Prefill || a.Choice != 1 {
			t.Errorf("order %v: mode %s prefill %v choice %d, want logprobs, true, 1", order, a.Mode, a.Prefill, a.Choice)
		}
		// The server normalises 0.05 ("The") + 0.7 (blue) + 3 x 0.05 = 0.9;
		// p(blue) merges " X" (0.5) and "X" (0.2).
		if want := math.Log(0.7 / 0.9); math.Abs(a.LogProbs[1]-want) > 1e-9 || !a.Found[1] {
			t.Errorf("order %v: log p(blue) %v, want %v", order, a.LogProbs[1], want)
		}
		if want := math.Log(0.05 / 0.9); math.Abs(a.LogProbs[0]-want) > 1e-9 {
			t.Errorf("order %v: log p(red) %v, want %v", order, a.LogProbs[0], want)
		}
	}
}

// A letter none of whose variants is in the top 20 gets log(1e-6), and the
// answer says it was floored.
func TestAskFloorsMissingLetters(t *testing.T) {
	t.Parallel()
	s := openaitest.New(openaitest.Config{Answer: func(*openaitest.Request) openaitest.Reply {
		top := map[string]float64{"A": 0.6, " B": 0.1}
		for i := range 30 { // crowd C and D out of the top 20
			top[fmt.Sprintf("tok%02d", i)] = 0.01
		}
		return openaitest.Reply{Top: top}
	}})
	defer s.Close()
	c := newTestClient(t, s, Config{})
	a, err := c.Ask(context.Background(), Query{Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"w", "x", "y", "z"}}})
	if err != nil {
		t.Fatal(err)
	}
	if a.LogProbs[2] != LogFloor || a.LogProbs[3] != LogFloor || a.Found[2] || a.Found[3] || !a.Found[0] || !a.Found[1] || a.Scores.Floored() != 2 {
		t.Errorf("log probs %v found %v", a.LogProbs, a.Found)
	}
	if LogFloor != math.Log(1e-6) {
		t.Errorf("LogFloor %v", LogFloor)
	}
}

func TestAskFallsBackToWhatTheServerAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		cfg         openaitest.Config
		mode        string
		wantMode    string
		wantPrefill bool
		// wantFirst and wantLater: the requests the first and the second
		// query send, as "p" (prefill) or "-" and "l" (logprobs) or "g".
		wantFirst, wantLater []string
	}{
		{name: "vLLM takes the authors' form", wantMode: ModeLogprobs, wantPrefill: true, wantFirst: []string{"pl"}, wantLater: []string{"pl"}},
		{name: "a server refusing continue_final_message is asked once more without", cfg: openaitest.Config{RefusePrefill: true},
			wantMode: ModeLogprobs, wantFirst: []string{"pl", "-l"}, wantLater: []string{"-l"}},
		{name: "a server ignoring logprobs gets a short generation", cfg: openaitest.Config{Logprobs: openaitest.LogprobsIgnored},
			wantMode: ModeGenerate, wantPrefill: true, wantFirst: []string{"pl", "pg"}, wantLater: []string{"pg"}},
		{name: "a server refusing logprobs gets a short generation", cfg: openaitest.Config{Logprobs: openaitest.LogprobsRefused},
			wantMode: ModeGenerate, wantPrefill: true, wantFirst: []string{"pl", "pg"}, wantLater: []string{"pg"}},
		{name: "refusing both", cfg: openaitest.Config{Logprobs: openaitest.LogprobsRefused, RefusePrefill: true},
			wantMode: ModeGenerate, wantFirst: []string{"pl", "-l", "-g"}, wantLater: []string{"-g"}},
		{name: "generate mode never asks for logprobs", mode: ModeGenerate, wantMode: ModeGenerate, wantPrefill: true, wantFirst: []string{"pg"}, wantLater: []string{"pg"}},
	}
	form := func(r openaitest.Request) string {
		s := "-"
		if r.ContinueFinalMessage {
			s = "p"
		}
		if r.Logprobs && r.MaxTokens == 1 {
			return s + "l"
		}
		if r.Logprobs || r.MaxTokens != generateTokens {
			return s + "?"
		}
		return s + "g"
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Answer = believes("blue")
			s := openaitest.New(tt.cfg)
			defer s.Close()
			c := newTestClient(t, s, Config{Mode: tt.mode})
			q := Query{ID: "item-1", Prompt: letters.Parts{Kind: letters.KindBlind, Question: "Sky?", Options: []string{"red", "blue", "green"}}, Order: []int{2, 1, 0}}
			for i, want := range [][]string{tt.wantFirst, tt.wantLater} {
				s.Reset()
				a, err := c.Ask(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, r := range s.Requests() {
					got = append(got, form(r))
				}
				if !slices.Equal(got, want) {
					t.Errorf("query %d sent %v, want %v", i+1, got, want)
				}
				if a.Mode != tt.wantMode || a.Prefill != tt.wantPrefill || a.Choice != 1 {
					t.Errorf("query %d: mode %s prefill %v choice %d, want %s %v 1", i+1, a.Mode, a.Prefill, a.Choice, tt.wantMode, tt.wantPrefill)
				}
				if a.Mode == ModeGenerate && (a.Reply != "B. blue" || a.LogProbs[1] != 0 || a.LogProbs[0] != LogFloor || !a.Found[1] || a.Found[0]) {
					t.Errorf("generated answer %+v", a)
				}
			}
		})
	}
}

func TestGeneratedRepliesParse(t *testing.T) {
	t.Parallel()
	opts := []string{"red", "blue", "green"}
	tests := []struct {
		reply string
		parse func(string, []string) int
		want  int
	}{
		{reply: " B", want: 1},
		{reply: "Answer: (C) green", want: 2},
		{reply: "A.", want: 0},
		{reply: "Blue", want: -1},
		{reply: "D", want: -1},
		{reply: "", want: -1},
		{reply: "The answer is B.", want: -1},
		{reply: "The answer is B.", parse: func(s string, o []string) int { return strings.Index("ABC", s[len(s)-2:len(s)-1]) }, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.reply, func(t *testing.T) {
			s := openaitest.New(openaitest.Config{Answer: func(*openaitest.Request) openaitest.Reply {
				return openaitest.Reply{Top: map[string]float64{"x": 1}, Text: tt.reply}
			}})
			defer s.Close()
			c := newTestClient(t, s, Config{Mode: ModeGenerate, ParseReply: tt.parse})
			a, err := c.Ask(context.Background(), Query{Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: opts}})
			if err != nil {
				t.Fatal(err)
			}
			if tt.reply == "" {
				tt.reply = "x" // an empty Text is the sampled token
			}
			if a.Choice != tt.want || a.Reply != tt.reply {
				t.Errorf("reply %q: choice %d, want %d", a.Reply, a.Choice, tt.want)
			}
		})
	}
}

func TestAskChecksTheQuery(t *testing.T) {
	t.Parallel()
	s := openaitest.New(openaitest.Config{})
	defer s.Close()
	c := newTestClient(t, s, Config{})
	tests := []struct {
		q    Query
		want string
	}{
		{Query{ID: "q1", Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"a"}}}, "query q1: 1 options"},
		{Query{ID: "q2", Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"a", " "}}}, "query q2: option 1 is empty"},
		{Query{ID: "q3", Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"a", "b"}}, Order: []int{0, 0}}, "not a permutation"},
		{Query{ID: "q4", Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"a", "b"}}, Order: []int{0}}, "order [0] for 2 options"},
		{Query{ID: "q5", Prompt: letters.Parts{Kind: letters.KindVisual, Options: []string{"a", "b"}}, Frames: []*Image{{}}}, "query q5: frame 0 is empty"},
	}
	for _, tt := range tests {
		if _, err := c.Ask(context.Background(), tt.q); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.q.ID, err, tt.want)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent for bad queries", n)
	}
}

func TestFaults(t *testing.T) {
	fail := func(n int, f openaitest.Fault) func(*openaitest.Request, int) openaitest.Fault {
		return func(_ *openaitest.Request, attempt int) openaitest.Fault {
			if attempt <= n {
				return f
			}
			return openaitest.Fault{}
		}
	}
	tests := []struct {
		name         string
		fault        func(*openaitest.Request, int) openaitest.Fault
		retries      int
		wantAttempts int
		wantErr      string // "" for success
		malformed    bool
	}{
		{name: "a 500 is retried", fault: fail(2, openaitest.Fault{Status: 500}), retries: 4, wantAttempts: 3},
		{name: "a 429 is retried", fault: fail(1, openaitest.Fault{Status: 429, RetryAfter: "0"}), retries: 4, wantAttempts: 2},
		{name: "a timeout is retried", fault: fail(1, openaitest.Fault{Delay: 2 * time.Second}), retries: 4, wantAttempts: 2},
		{name: "a connection closed mid-body is retried", fault: fail(2, openaitest.Fault{Torn: true}), retries: 4, wantAttempts: 3},
		{name: "truncated JSON is retried", fault: fail(1, openaitest.Fault{Truncated: true}), retries: 4, wantAttempts: 2},
		{name: "a 503 past the retries is a server error", fault: fail(9, openaitest.Fault{Status: 503}), retries: 2, wantAttempts: 3,
			wantErr: "/v1/chat/completions (request item-7, "},
		{name: "a torn reply past the retries is a server error", fault: fail(9, openaitest.Fault{Torn: true}), retries: 1, wantAttempts: 2, wantErr: "reply torn"},
		{name: "a 400 is not retried", fault: fail(9, openaitest.Fault{Status: 400}), retries: 4, wantAttempts: 1, wantErr: "server answered 400 Bad Request: injected fault 400"},
		{name: "malformed JSON is an error naming the request, not retried", fault: fail(9, openaitest.Fault{Malformed: true}), retries: 4, wantAttempts: 1,
			wantErr: "(request item-7, ", malformed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openaitest.New(openaitest.Config{Fault: tt.fault, Answer: believes("b")})
			defer s.Close()
			c := newTestClient(t, s, Config{MaxRetries: tt.retries, Timeout: 300 * time.Millisecond})
			a, err := c.Ask(context.Background(), Query{ID: "item-7", Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"a", "b"}}})
			if n := len(s.Requests()); n != tt.wantAttempts {
				t.Errorf("%d attempts, want %d", n, tt.wantAttempts)
			}
			if tt.wantErr == "" {
				if err != nil || a.Choice != 1 {
					t.Errorf("answer %+v, err %v", a, err)
				}
				return
			}
			var se *ServerError
			if !errors.Is(err, ErrServer) || !errors.As(err, &se) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err %v, want a ServerError containing %q", err, tt.wantErr)
			}
			if se.URL != s.BaseURL()+"/chat/completions" || se.Attempts != tt.wantAttempts || errors.Is(err, ErrMalformed) != tt.malformed {
				t.Errorf("server error %+v", se)
			}
		})
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	s := openaitest.New(openaitest.Config{Fault: func(_ *openaitest.Request, attempt int) openaitest.Fault {
		if attempt == 1 {
			return openaitest.Fault{Status: 429, RetryAfter: "1"}
		}
		return openaitest.Fault{}
	}})
	defer s.Close()
	c := newTestClient(t, s, Config{MaxBackoff: 10 * time.Millisecond})
	start := time.Now()
	if _, err := c.Ask(context.Background(), Query{Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"a", "b"}}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %v; the server said Retry-After: 1", d)
	}
	if got := retryAfter("Wed, 21 Oct 2015 07:28:30 GMT", time.Date(2015, 10, 21, 7, 28, 0, 0, time.UTC)); got != 30*time.Second {
		t.Errorf("an HTTP-date Retry-After: %v", got)
	}
}

func TestCancelStopsAtOnce(t *testing.T) {
	tests := []struct {
		name  string
		fault openaitest.Fault
	}{
		{"while a request is in flight", openaitest.Fault{Delay: time.Minute}},
		{"while waiting to retry", openaitest.Fault{Status: 503, RetryAfter: "60"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openaitest.New(openaitest.Config{Fault: func(*openaitest.Request, int) openaitest.Fault { return tt.fault }})
			defer s.Close()
			c := newTestClient(t, s, Config{Timeout: time.Hour})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			_, err := c.Ask(ctx, Query{Prompt: letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"a", "b"}}})
			if !errors.Is(err, context.Canceled) || errors.Is(err, ErrServer) {
				t.Errorf("err %v, want context.Canceled alone", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("stopped after %v", d)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      openaitest.Config
		model    string
		want     CheckReport
		wantErr  string
		wantReqs int
	}{
		{name: "vLLM with everything", model: "test-model", want: CheckReport{Models: []string{"test-model"}, ModelServed: true, Logprobs: true, Prefill: true, Mode: ModeLogprobs, Images: true, Video: true}, wantReqs: 4},
		{name: "no continue_final_message", cfg: openaitest.Config{RefusePrefill: true}, model: "test-model",
			want: CheckReport{Models: []string{"test-model"}, ModelServed: true, Logprobs: true, Mode: ModeLogprobs, Images: true, Video: true}, wantReqs: 5},
		{name: "no logprobs", cfg: openaitest.Config{Logprobs: openaitest.LogprobsIgnored}, model: "test-model",
			want: CheckReport{Models: []string{"test-model"}, ModelServed: true, Prefill: true, Mode: ModeGenerate, Images: true, Video: true}, wantReqs: 5},
		{name: "a text model", cfg: openaitest.Config{Fault: func(r *openaitest.Request, _ int) openaitest.Fault {
			if r.Images()+r.Videos() > 0 {
				return openaitest.Fault{Status: 400}
			}
			return openaitest.Fault{}
		}}, model: "test-model",
			want: CheckReport{Models: []string{"test-model"}, ModelServed: true, Logprobs: true, Prefill: true, Mode: ModeLogprobs, ImagesRefusal: "injected fault 400", VideoRefusal: "injected fault 400"}, wantReqs: 4},
		{name: "another model", cfg: openaitest.Config{Models: []string{"Qwen/Qwen3-8B", "x"}}, model: "Qwen/Qwen3-VL-8B-Instruct",
			wantErr: `serves ["Qwen/Qwen3-8B" "x"], not "Qwen/Qwen3-VL-8B-Instruct"`, wantReqs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Answer = believes("blue")
			s := openaitest.New(tt.cfg)
			defer s.Close()
			rep, err := Check(context.Background(), Config{BaseURL: s.BaseURL(), Model: tt.model})
			if n := len(s.Requests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.URL != s.BaseURL() || !slices.Equal(rep.Models, tt.want.Models) || rep.ModelServed != tt.want.ModelServed ||
				rep.Logprobs != tt.want.Logprobs || rep.Prefill != tt.want.Prefill || rep.Mode != tt.want.Mode || rep.Reply.Choice != 1 ||
				rep.Images != tt.want.Images || rep.ImagesRefusal != tt.want.ImagesRefusal {
				b, _ := json.Marshal(rep)
				t.Errorf("report %s", b)
			}
		})
	}
}
