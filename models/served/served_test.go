package served

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// fakeServer answers chat completions as a served reader would: the first
// token's top log-probabilities put 0.7 on the letter of the option whose
// text says "right" (0.1 each on two others), so the answer a test expects
// follows from the prompt. fail, when it returns true for a request's text,
// answers 500. It records every request's body.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	fail   func(text string) bool
}

func newFakeServer(t *testing.T, fail func(string) bool) *fakeServer {
	f := &fakeServer{fail: fail}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		text := textOf(body)
		if f.fail != nil && f.fail(text) {
			http.Error(w, `{"error": {"message": "engine dead"}}`, 500)
			return
		}
		if mt, _ := body["max_tokens"].(float64); mt > 1 {
			fmt.Fprintf(w, `{"choices": [{"message": {"content": "a frame of %d bytes"}}]}`, len(text))
			return
		}
		right := "Z"
		for _, line := range strings.Split(text, "\n") {
			if len(line) > 3 && line[1] == '.' && strings.Contains(line, "right") {
				right = line[:1]
			}
		}
		top := []map[string]any{{"token": right, "logprob": math.Log(0.7)}, {"token": " " + right, "logprob": math.Log(0.05)}, {"token": "B", "logprob": math.Log(0.1)}, {"token": "zzz", "logprob": math.Log(0.01)}}
		if right == "B" {
			top[2]["token"] = "A"
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"logprobs": map[string]any{"content": []any{map[string]any{"token": right, "logprob": math.Log(0.7), "top_logprobs": top}}}}}})
	}))
	t.Cleanup(f.Close)
	return f
}

// textOf joins the text parts of a request's messages.
func textOf(body map[string]any) string {
	var b strings.Builder
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		switch c := m.(map[string]any)["content"].(type) {
		case string:
			b.WriteString(c)
		case []any:
			for _, p := range c {
				if s, ok := p.(map[string]any)["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
	}
	return b.String()
}

// imagesOf counts a request's image parts and says whether they all come
// before its first text part.
func imagesOf(body map[string]any) (n int, first bool) {
	first = true
	text := false
	for _, m := range body["messages"].([]any) {
		c, ok := m.(map[string]any)["content"].([]any)
		if !ok {
			text = true
			continue
		}
		for _, p := range c {
			if p.(map[string]any)["type"] == "image_url" {
				n++
				first = first && !text
			} else {
				text = true
			}
		}
	}
	return n, first
}

func settings(url string, conc, retries int) models.ServerSettings {
	return models.ServerSettings{URL: url + "/v1", Model: "fake-vl", Concurrency: conc, Timeout: 10 * time.Second, Retries: retries}
}

func prompt(right int, n int) string {
	var b strings.Builder
	b.WriteString("Question: what happens?\nOptions:\n")
	for j := range n {
		o := "wrong"
		if j == right {
			o = "right"
		}
		fmt.Fprintf(&b, "%c. %s %d\n", 'A'+j, o, j)
	}
	b.WriteString("Answer with the option's letter.\nAnswer:")
	return b.String()
}

// TestLettersReadTheServersLogprobs: each prompt's best letter is the one
// the server's log-probabilities favour, variants merged and missing
// letters floored; the request is one token at temperature 0 with the top
// 20, carrying no image.
func TestLettersReadTheServersLogprobs(t *testing.T) {
	srv := newFakeServer(t, nil)
	l, err := NewLetters(Config{Role: "lm_reader", Server: settings(srv.URL, 8, 0)})
	if err != nil {
		t.Fatal(err)
	}
	var prompts []models.LetterPrompt
	for _, right := range []int{0, 1, 3, 2} {
		prompts = append(prompts, models.LetterPrompt{Text: prompt(right, 4), Options: 4})
	}
	got, err := l.Score(context.Background(), prompts)
	if err != nil {
		t.Fatal(err)
	}
	for i, right := range []int{0, 1, 3, 2} {
		best := 0
		for j, v := range got[i] {
			if v > got[i][best] {
				best = j
			}
		}
		if best != right {
			t.Errorf("prompt %d: best letter %d, want %d (scores %v)", i, best, right, got[i])
		}
		if want := math.Log(0.75); math.Abs(got[i][right]-want) > 1e-9 {
			t.Errorf("prompt %d: right letter %g, want log(0.7+0.05) = %g", i, got[i][right], want)
		}
	}
	if got[0][3] != -13.815510557964274 {
		t.Errorf("a letter outside the top 20: %g, want log(1e-6)", got[0][3])
	}
	for _, b := range srv.bodies {
		if n, _ := imagesOf(b); n != 0 || b["max_tokens"] != 1.0 || b["temperature"] != 0.0 || b["top_logprobs"] != 20.0 || b["model"] != "fake-vl" {
			t.Errorf("request %v: want no image, max_tokens 1, temperature 0, top_logprobs 20", b)
		}
	}
	if s := l.Stats().Snapshot(); s.Prompts != 4 || s.Failed != 0 || s.Mode != "logprobs" {
		t.Errorf("stats %+v", s)
	}
}

func frame(w, h int, shade byte) imageprep.Frame {
	pix := make([]byte, 3*w*h)
	for i := range pix {
		pix[i] = shade + byte(i%3)
	}
	return imageprep.Frame{Pix: pix, Width: w, Height: h}
}

// TestVLMSendsFramesFirst: a prompt of n frames is one request with n image
// parts before any text; frames are shrunk to LongSide; a repeated list of
// frames counts as sharing its group's prefix.
func TestVLMSendsFramesFirst(t *testing.T) {
	srv := newFakeServer(t, nil)
	v, err := NewVLM(Config{Role: "vlm_reader", Server: settings(srv.URL, 4, 0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	frames := []imageprep.Frame{frame(896, 504, 10), frame(896, 504, 20), frame(896, 504, 30)}
	b, err := v.Frames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	if b.N != 3 || b.W != 448 || b.H != 252 || b.C != 3 {
		t.Fatalf("batch %dx%dx%dx%d, want 3 frames at 448x252", b.N, b.C, b.H, b.W)
	}
	if b.Data[0] != 10 || b.Data[252*448] != 11 {
		t.Errorf("box filter of a flat frame: %g, %g; want 10, 11", b.Data[0], b.Data[252*448])
	}
	centre, _ := v.Frames(ctx, frames[1:2])
	vp := func(imgs models.ImageBatch, right int) models.VLMPrompt {
		return models.VLMPrompt{Text: strings.Repeat(models.ImagePlaceholder, imgs.N) + "\n" + prompt(right, 3), Images: imgs, Options: 3}
	}
	got, err := v.Score(ctx, []models.VLMPrompt{vp(centre, 2), vp(b, 1), vp(b, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for i, right := range []int{2, 1, 0} {
		if got[i][right] < got[i][(right+1)%3] {
			t.Errorf("prompt %d: %v, want letter %d best", i, got[i], right)
		}
	}
	counts := map[int]int{}
	for _, body := range srv.bodies {
		n, first := imagesOf(body)
		counts[n]++
		if !first {
			t.Errorf("a request with its images after text")
		}
	}
	if counts[1] != 1 || counts[3] != 2 {
		t.Errorf("image counts %v, want one request of 1 and two of 3", counts)
	}
	if s := v.Stats().Snapshot(); s.Images != 7 || s.PrefixShared != 1 || s.Prompts != 3 {
		t.Errorf("stats %+v, want 7 images and 1 prompt sharing its prefix", s)
	}
	if err := v.Fits(models.VLMPrompt{Text: "Q " + models.ImagePlaceholder, Images: centre}); err == nil {
		t.Error("a placeholder after text fits; want an error")
	}
}

// TestServerFailuresFailTheirPromptsOnly: prompts the server fails after
// its retries have no scores and are counted; the others are scored; a
// server failing every request stops the reader with ErrRefused naming it.
func TestServerFailuresFailTheirPromptsOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fail    func(string) bool
		prompts int
		failed  int
		refused bool
	}{
		{"none fail", nil, 10, 0, false},
		{"those of option C", func(s string) bool { return strings.Contains(s, "C. right") }, 10, 2, false},
		{"all, past the window", func(string) bool { return true }, 10, 10, true},
		{"all of fewer than the window", func(string) bool { return true }, 3, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, tc.fail)
			l, err := NewLetters(Config{Role: "lm_reader", Server: settings(srv.URL, 4, 1)})
			if err != nil {
				t.Fatal(err)
			}
			var ps []models.LetterPrompt
			for i := range tc.prompts {
				ps = append(ps, models.LetterPrompt{Text: prompt(i%4, 4), Options: 4})
			}
			got, err := l.Score(context.Background(), ps)
			if tc.refused {
				if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "engine dead") {
					t.Fatalf("error %v, want ErrRefused naming the URL and the server's message", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for i, row := range got {
				if row == nil {
					failed++
					if i%4 != 2 && tc.failed < tc.prompts {
						t.Errorf("prompt %d failed", i)
					}
				}
			}
			if failed != tc.failed || l.Stats().Snapshot().Failed != tc.failed {
				t.Errorf("%d failed (stats %d), want %d", failed, l.Stats().Snapshot().Failed, tc.failed)
			}
			if want := tc.failed == tc.prompts; (l.Stats().Refused(true) != nil) != want {
				t.Errorf("Refused(final) = %v, want refused %v", l.Stats().Refused(true), want)
			}
			if tc.failed > 0 && len(srv.bodies) != tc.prompts+tc.failed {
				t.Errorf("%d requests, want each failed one tried twice (server_retries 1)", len(srv.bodies))
			}
		})
	}
}

// TestSameScoresAtAnyConcurrency: the rows do not depend on how many
// requests are in flight.
func TestSameScoresAtAnyConcurrency(t *testing.T) {
	srv := newFakeServer(t, nil)
	var ps []models.LetterPrompt
	for i := range 40 {
		ps = append(ps, models.LetterPrompt{Text: prompt(i%5, 5), Options: 5})
	}
	var want string
	for _, conc := range []int{1, 8, 64} {
		l, err := NewLetters(Config{Role: "lm_reader", Server: settings(srv.URL, conc, 0)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Score(context.Background(), ps)
		if err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprint(got)
		if want == "" {
			want = s
		} else if s != want {
			t.Errorf("concurrency %d: scores differ from concurrency 1", conc)
		}
	}
}

// TestCaptionerCaptionsEachFrameAlone: one request per frame, one image
// each, no question, the reply as the caption.
func TestCaptionerCaptionsEachFrameAlone(t *testing.T) {
	srv := newFakeServer(t, nil)
	c, err := NewCaptioner(Config{Role: "captioner", Server: settings(srv.URL, 4, 0)}, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.CaptionFrames(context.Background(), []imageprep.Frame{frame(64, 48, 1), frame(64, 48, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 2 || caps[0].Text == "" || len(srv.bodies) != 2 {
		t.Fatalf("captions %+v from %d requests", caps, len(srv.bodies))
	}
	for _, b := range srv.bodies {
		if n, _ := imagesOf(b); n != 1 || strings.Contains(textOf(b), "Question") || b["max_tokens"] != float64(DefaultCaptionTokens) || b["seed"] != 7.0 {
			t.Errorf("caption request %v", b)
		}
	}
}
