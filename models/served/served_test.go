package served

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// favourRight is a model that puts 0.7 on the letter of the option whose
// text says "right" (0.05 more on " X"), 0.1 on another letter, so the
// answer a test expects follows from the prompt.
func favourRight(r *openaitest.Request) openaitest.Reply {
	right := "Z"
	for _, line := range strings.Split(r.User(), "\n") {
		if len(line) > 3 && line[1] == '.' && strings.Contains(line, "right") {
			right = line[:1]
		}
	}
	other := "B"
	if right == "B" {
		other = "A"
	}
	return openaitest.Reply{Top: map[string]float64{right: 0.7, " " + right: 0.05, other: 0.1, "zzz": 0.15}}
}

func settings(url string, conc, retries int) models.ServerSettings {
	return models.ServerSettings{URL: url, Model: "test-model", Concurrency: conc, Timeout: 10 * time.Second, Retries: retries}
}

// prompt writes a prompt as the harness does (attack's letterPrompt).
func prompt(right, n int, question, context string) letters.Prompt {
	p := letters.Parts{Kind: letters.KindBlind, Question: question, Context: context}
	switch {
	case context != "":
		p.Kind = letters.KindVideoCaption
	case question == "":
		p.Kind = letters.KindOptionsOnly
	}
	for j := range n {
		o := "wrong"
		if j == right {
			o = "right"
		}
		p.Options = append(p.Options, fmt.Sprintf("%s %d", o, j))
	}
	return letters.New(p)
}

// vprompt is prompt with images, as features' vlmPrompt makes it.
func vprompt(imgs models.ImageBatch, right, n int, question string) models.VLMPrompt {
	p := prompt(right, n, question, "")
	p.Parts.Kind, p.Parts.Frames = letters.KindVisual, imgs.N
	return models.VLMPrompt{Text: strings.Repeat(models.ImagePlaceholder, imgs.N) + p.Text, Images: imgs, Options: n, Parts: p.Parts}
}

func best(row []float64) int {
	b := 0
	for j, v := range row {
		if v > row[b] {
			b = j
		}
	}
	return b
}

// TestLettersAskTheAuthorsForm: each reader's prompt is put to the server
// as one user turn (what it is given, the question when it has one, the
// options) and the prefilled "Answer:" turn; the best letter is the one the
// server's log-probabilities favour, variants merged, absent letters at the
// floor.
func TestLettersAskTheAuthorsForm(t *testing.T) {
	srv := openaitest.New(openaitest.Config{Answer: favourRight})
	defer srv.Close()
	l, err := NewLetters(Config{Role: "lm_reader", Server: settings(srv.BaseURL(), 8, 0)})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name              string
		right             int
		question, context string
		given             string
	}{
		{"options-only", 0, "", "", "NO question text"},
		{"blind", 1, "What is the man doing?", "", "Answer the question from the text alone."},
		{"captions", 3, "Why?", "frame 1: a man\nframe 2: a dog", "a text description of a video INSTEAD of the video"},
	}
	var ps []letters.Prompt
	for _, c := range cases {
		ps = append(ps, prompt(c.right, 4, c.question, c.context))
	}
	got, err := l.Score(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != len(cases) {
		t.Fatalf("%d requests for %d prompts", len(reqs), len(cases))
	}
	for i, c := range cases {
		if best(got[i]) != c.right || math.Abs(got[i][c.right]-math.Log(0.75)) > 1e-9 || got[i][2] != openai.LogFloor {
			t.Errorf("%s: scores %v, want letter %d at log(0.75) and C floored", c.name, got[i], c.right)
		}
		var r *openaitest.Request
		for k := range reqs {
			if strings.Contains(reqs[k].User(), fmt.Sprintf("%c. right", 'A'+c.right)) {
				r = &reqs[k]
			}
		}
		if r == nil {
			t.Fatalf("%s: no request", c.name)
		}
		user := r.User()
		if r.Images() != 0 || !strings.Contains(user, c.given) || strings.Contains(user, "Question:") != (c.question != "") ||
			strings.Contains(user, "frame 1: a man") != (c.context != "") || strings.Contains(user, "Answer:") {
			t.Errorf("%s: user turn %q", c.name, user)
		}
		if last := r.Messages[len(r.Messages)-1]; last.Role != "assistant" || last.Text != "Answer:" || !r.ContinueFinalMessage || r.MaxTokens != 1 || r.TopLogprobs != 20 || *r.Temperature != 0 {
			t.Errorf("%s: want the prefilled turn, max_tokens 1, top_logprobs 20, temperature 0: %+v", c.name, r)
		}
	}
	if s := l.Stats().Snapshot(); s.Queries != 3 || s.Failed != 0 || s.Mode != openai.ModeLogprobs || !s.Prefill || s.Requests != 3 {
		t.Errorf("stats %+v", s)
	}
}

func frame(w, h int, shade byte) imageprep.Frame {
	pix := make([]byte, 3*w*h)
	for i := range pix {
		pix[i] = shade + byte(i%7)
	}
	return imageprep.Frame{Pix: pix, Width: w, Height: h}
}

// TestVLMSendsFramesFirst: a prompt of n frames is one request with n JPEG
// image parts before its text, in the prompt's order; a frame shown in
// several prompts is encoded once; a repeated list of frames counts as
// sharing its group's prefix.
func TestVLMSendsFramesFirst(t *testing.T) {
	srv := openaitest.New(openaitest.Config{Answer: favourRight})
	defer srv.Close()
	v, err := NewVLM(Config{Role: "vlm_reader", Server: settings(srv.BaseURL(), 4, 0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	frames := []imageprep.Frame{frame(896, 504, 10), frame(896, 504, 60), frame(896, 504, 120)}
	all, err := v.Frames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	centre, _ := v.Frames(ctx, frames[1:2])
	shuffled, _ := v.Frames(ctx, []imageprep.Frame{frames[2], frames[0], frames[1]})
	vp := func(imgs models.ImageBatch, right int) models.VLMPrompt {
		return vprompt(imgs, right, 3, "What happens?")
	}
	got, err := v.Score(ctx, []models.VLMPrompt{vp(centre, 2), vp(all, 1), vp(all, 0), vp(shuffled, 1)})
	if err != nil {
		t.Fatal(err)
	}
	for i, right := range []int{2, 1, 0, 1} {
		if best(got[i]) != right {
			t.Errorf("prompt %d: %v, want letter %d best", i, got[i], right)
		}
	}
	want, _ := openai.EncodeFrame(frames[1].Pix, 896, 504, 0)
	counts := map[int]int{}
	var orders []string
	for _, r := range srv.Requests() {
		counts[r.Images()]++
		u := r.Messages[0]
		if u.Parts[len(u.Parts)-1] != "text" || strings.Count(strings.Join(u.Parts, ","), "text") != 1 {
			t.Errorf("parts %v: want the images, then one text", u.Parts)
		}
		if !strings.Contains(u.Text, fmt.Sprintf("given %d frame(s) sampled", r.Images())) {
			t.Errorf("user text %q does not say what it is given", u.Text)
		}
		for _, im := range u.Images {
			if im.MIME != "image/jpeg" {
				t.Errorf("image %s", im.MIME)
			}
		}
		if r.Images() == 1 && string(u.Images[0].Data) != string(want.Data) {
			t.Error("the centre frame is not EncodeFrame's bytes")
		}
		if r.Images() == 3 {
			var o []string
			for _, im := range u.Images {
				for k, f := range frames {
					if e, _ := openai.EncodeFrame(f.Pix, 896, 504, 0); string(e.Data) == string(im.Data) {
						o = append(o, fmt.Sprint(k))
					}
				}
			}
			orders = append(orders, strings.Join(o, ""))
		}
	}
	if counts[1] != 1 || counts[3] != 3 {
		t.Errorf("image counts %v, want one request of 1 and three of 3", counts)
	}
	if strings.Join(orders, " ") != "012 012 201" && strings.Join(orders, " ") != "012 201 012" && strings.Join(orders, " ") != "201 012 012" {
		t.Errorf("frame orders %v, want 012 twice and the shuffle 201", orders)
	}
	if s := v.Stats().Snapshot(); s.Images != 10 || s.PrefixShared != 1 || s.WithImages != 4 {
		t.Errorf("stats %+v, want 10 images and 1 of 4 queries sharing its prefix", s)
	}
	if len(v.frames.byHandle) != 3 {
		t.Errorf("%d frames encoded, want 3", len(v.frames.byHandle))
	}
	if err := v.Fits(models.VLMPrompt{Text: "Q " + models.ImagePlaceholder, Images: centre, Options: 3}); err == nil {
		t.Error("a raw-text prompt fits; want an error")
	}
}

// TestServerFailuresFailTheirPromptsOnly: prompts the server fails after
// the retries have no scores and are counted; the others are scored; a
// server failing every request stops the reader with ErrRefused naming its
// URL and its message.
func TestServerFailuresFailTheirPromptsOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fail    func(string) bool
		prompts int
		failed  int
		refused bool
	}{
		{"none fail", func(string) bool { return false }, 10, 0, false},
		{"those answered C", func(s string) bool { return strings.Contains(s, "C. right") }, 10, 2, false},
		{"all, past the window", func(string) bool { return true }, 10, 10, true},
		{"all of fewer than the window", func(string) bool { return true }, 3, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(openaitest.Config{Answer: favourRight, Fault: func(r *openaitest.Request, attempt int) openaitest.Fault {
				if tc.fail(r.User()) {
					return openaitest.Fault{Status: 500}
				}
				return openaitest.Fault{}
			}})
			defer srv.Close()
			s := settings(srv.BaseURL(), 4, 1)
			l, err := NewLetters(Config{Role: "lm_reader", Server: s})
			if err != nil {
				t.Fatal(err)
			}
			var ps []letters.Prompt
			for i := range tc.prompts {
				ps = append(ps, prompt(i%4, 4, "q", ""))
			}
			got, err := l.Score(context.Background(), ps)
			if tc.refused {
				if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), srv.BaseURL()) {
					t.Fatalf("error %v, want ErrRefused naming the URL", err)
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
				} else if best(row) != i%4 {
					t.Errorf("prompt %d answered %d", i, best(row))
				}
			}
			st := l.Stats().Snapshot()
			if failed != tc.failed || st.Failed != tc.failed || st.Retries != int64(tc.failed) {
				t.Errorf("%d failed, stats %+v; want %d failed, each retried once", failed, st, tc.failed)
			}
			if want := tc.failed == tc.prompts; (l.Stats().Refused(true) != nil) != want {
				t.Errorf("Refused(final) = %v, want refused %v", l.Stats().Refused(true), want)
			}
		})
	}
}

// TestResumeAsksNothingTwice: with a response store, a second reader over
// the same store (a resumed run) sends no request and gives the same
// scores; a different served model shares nothing.
func TestResumeAsksNothingTwice(t *testing.T) {
	srv := openaitest.New(openaitest.Config{Answer: favourRight, Models: []string{"test-model", "other-model"}})
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "replies.store")
	var ps []letters.Prompt
	for i := range 12 {
		ps = append(ps, prompt(i%3, 3, fmt.Sprintf("q%d", i), ""))
	}
	score := func(model string) ([][]float64, int) {
		st := NewStore(path)
		defer st.Close()
		s := settings(srv.BaseURL(), 8, 0)
		s.Model = model
		l, err := NewLetters(Config{Role: "lm_reader", Server: s, Store: st})
		if err != nil {
			t.Fatal(err)
		}
		before := srv.Count("/v1/chat/completions")
		got, err := l.Score(context.Background(), ps)
		if err != nil {
			t.Fatal(err)
		}
		return got, srv.Count("/v1/chat/completions") - before
	}
	first, n1 := score("test-model")
	again, n2 := score("test-model")
	_, n3 := score("other-model")
	if n1 != 12 || n2 != 0 || n3 != 12 {
		t.Errorf("requests %d, %d on resuming, %d for another model; want 12, 0, 12", n1, n2, n3)
	}
	if fmt.Sprint(first) != fmt.Sprint(again) {
		t.Error("the resumed scores differ")
	}
}

// TestSameScoresAtAnyConcurrency: the rows do not depend on how many
// requests are in flight.
func TestSameScoresAtAnyConcurrency(t *testing.T) {
	srv := openaitest.New(openaitest.Config{Answer: favourRight})
	defer srv.Close()
	var ps []letters.Prompt
	for i := range 40 {
		ps = append(ps, prompt(i%5, 5, "q", ""))
	}
	var want string
	for _, conc := range []int{1, 8, 64} {
		l, err := NewLetters(Config{Role: "lm_reader", Server: settings(srv.BaseURL(), conc, 0)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Score(context.Background(), ps)
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprint(got); want == "" {
			want = s
		} else if s != want {
			t.Errorf("concurrency %d: scores differ from concurrency 1", conc)
		}
	}
}

// TestCaptionerCaptionsEachFrameAlone: one request per frame, one image
// each, no question, the reply as the caption.
func TestCaptionerCaptionsEachFrameAlone(t *testing.T) {
	srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Text: fmt.Sprintf("a frame of %d bytes", len(r.Messages[0].Images[0].Data))}
	}})
	defer srv.Close()
	c, err := NewCaptioner(Config{Role: "captioner", Server: settings(srv.BaseURL(), 4, 0)}, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.CaptionFrames(context.Background(), []imageprep.Frame{frame(64, 48, 1), frame(64, 48, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 2 || !strings.HasPrefix(caps[0].Text, "a frame of") || srv.Count("/v1/chat/completions") != 2 {
		t.Fatalf("captions %+v", caps)
	}
	for _, r := range srv.Requests() {
		if r.Images() != 1 || strings.Contains(r.Text(), "Question") || r.MaxTokens != DefaultCaptionTokens || *r.Seed != 7 {
			t.Errorf("caption request %+v", r)
		}
	}
}

// TestPartsOf: a served reader asks a prompt's parts; raw text or what
// the authors' form cannot ask is a caller's error.
func TestPartsOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    letters.Prompt
		n    int
		err  bool
	}{
		{"options-only", prompt(0, 2, "", ""), 2, false},
		{"blind", prompt(1, 2, "Why?", ""), 2, false},
		{"captions", prompt(1, 2, "Why?", "c1\nc2"), 2, false},
		{"too few options", prompt(0, 2, "q", ""), 3, true},
		{"raw text", letters.Prompt{Text: "Options:\nA. one\nB. two\nAnswer:", Options: 2}, 2, true},
		{"one option", prompt(0, 1, "q", ""), 1, true},
		{"an empty option", letters.New(letters.Parts{Kind: letters.KindBlind, Question: "q", Options: []string{"one", "  "}}), 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := partsOf(tc.p.Parts, tc.n)
			if tc.err {
				if !errors.Is(err, errPrompt) {
					t.Fatalf("error %v, want errPrompt", err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.p.Parts) {
				t.Errorf("%+v, %v; want %+v", got, err, tc.p.Parts)
			}
		})
	}
}
