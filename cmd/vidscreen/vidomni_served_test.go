package main

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestVidomniVerifyServedVLM: verify --method vlm with a vlm_reader that
// models.json serves asks its server (no ONNX model, no --server flag),
// one question per sentence with the video's frames first, in the
// authors' form (the paper's verification prompt and the question, the
// two labels as options, max_tokens 1 and top_logprobs 20), frames at 448
// on the long side; each sentence's label is the letter the server's
// log-probabilities favour. A server that fails a sentence after its
// retries stops verify with exit 1, naming the pair.
func TestVidomniVerifyServedVLM(t *testing.T) {
	t.Parallel()
	video := sharedVideo(t, "big_buck_bunny_0_30_h264_640.mp4")
	videos := filepath.Dir(video)
	labels := vidomniLabels(t, videos)
	asked := regexp.MustCompile(`What is the label of sentence_(\d+)\?`)
	hallucinated := []string{"red sports car", "Snow covers", "reads the news"}
	answer := func(r *openaitest.Request) openaitest.Reply {
		text := r.User()
		m := asked.FindStringSubmatch(text)
		if m == nil {
			return openaitest.Reply{Top: map[string]float64{"A": 1}}
		}
		k, _ := strconv.Atoi(m[1])
		sentence := regexp.MustCompile(fmt.Sprintf(`(?m)^Sentence %d: (.*)$`, k)).FindStringSubmatch(text)
		if sentence != nil && slices.ContainsFunc(hallucinated, func(h string) bool { return strings.Contains(sentence[1], h) }) {
			return openaitest.Reply{Top: map[string]float64{"B": 0.8, "A": 0.2}}
		}
		return openaitest.Reply{Top: map[string]float64{"A": 0.7, " A": 0.1, "B": 0.2}}
	}
	var failing atomic.Bool
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-vl"}, Answer: answer, Fault: func(r *openaitest.Request, _ int) openaitest.Fault {
		if failing.Load() && strings.Contains(r.User(), "Snow covers") {
			return openaitest.Fault{Status: 503}
		}
		return openaitest.Fault{}
	}})
	defer srv.Close()
	dir := t.TempDir()
	manifest := fmt.Sprintf(`{"roles": {"vlm_reader": {"server": %q, "server_model": "fake-vl", "server_retries": 1, "server_api_key_env": "VIDSCREEN_TEST_KEY"}}}`, srv.BaseURL())
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "verdicts.jsonl")
	args := []string{"vidomni", "verify", "--method", "vlm", "--models", dir, "--labels", labels, "--videos", videos, "--frames", "2", "--out", out}
	code, stdout, stderr := runWithKey(servedKey, args...)
	if code != 0 {
		t.Fatalf("verify: exit %d\n%s", code, stderr)
	}
	want := map[string][]int8{"bbb-a": {0, 1, 0, 0}, "bbb-b": {0, 0, 1}, "bars": {0, 1}}
	got := readVerdictLines(t, out)
	if len(got) != len(want) {
		t.Fatalf("%d verdicts, want %d (pair gone has no video): %+v", len(got), len(want), got)
	}
	for _, v := range got {
		if !slices.Equal(v.Labels, want[v.Pair]) || v.Verifier != "vlm_reader" {
			t.Errorf("verdict %+v, want labels %v by vlm_reader", v, want[v.Pair])
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 9 {
		t.Errorf("the server got %d questions, want one per sentence of the decoded pairs (9)", len(reqs))
	}
	for _, r := range reqs {
		u := r.User()
		if r.Model != "fake-vl" || r.MaxTokens != 1 || r.TopLogprobs != 20 || r.Images() != 2 || !r.ContinueFinalMessage {
			t.Errorf("request: model %s, max_tokens %d, top_logprobs %d, %d images, prefill %v", r.Model, r.MaxTokens, r.TopLogprobs, r.Images(), r.ContinueFinalMessage)
		}
		if !strings.Contains(u, "Sentence 1: ") || !strings.Contains(u, "A. 0 (faithful to the video)\nB. 1 (contains a hallucination)") || r.Messages[0].Parts[0] != "image_url" {
			t.Errorf("a question not in the authors' form, frames first:\n%s", u)
		}
		if bytes.Contains(r.Body, []byte(servedKey)) {
			t.Error("the request body holds the API key")
		}
		for _, im := range r.Messages[0].Images {
			c, err := jpeg.DecodeConfig(bytes.NewReader(im.Data))
			if err != nil || max(c.Width, c.Height) != 448 {
				t.Errorf("a frame of %dx%d (%v), want 448 on the long side", c.Width, c.Height, err)
			}
		}
	}
	if !strings.Contains(stdout, "vlm_reader served by "+srv.BaseURL()) || !strings.Contains(stdout, "9 questions") || !strings.Contains(stdout, "mode logprobs") {
		t.Errorf("stdout does not say what the server was asked:\n%s", stdout)
	}

	failing.Store(true)
	code, _, stderr = runWithKey(servedKey, args...)
	if code != 1 || !strings.Contains(stderr, "pair bbb-b") || !strings.Contains(stderr, "injected fault 503") {
		t.Errorf("a server failing a sentence: exit %d, want 1 naming the pair and the server's message:\n%s", code, stderr)
	}
}
