package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestModelsCheckServed: models check asks each served entry's server for
// /v1/models, one one-token question and the question with a frame, and
// says what it found: the mode and form that work, whether images are
// read, or the problem (a model the server does not list, a server that is
// not there, a text model behind a role that sends frames), which makes
// the exit status 2.
func TestModelsCheckServed(t *testing.T) {
	t.Parallel()
	needORT(t)
	blue := func(*openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Top: map[string]float64{"B": 0.9, "A": 0.1}, Text: "B"}
	}
	good := openaitest.New(openaitest.Config{Models: []string{"qwen-vl"}, Answer: blue})
	defer good.Close()
	plain := openaitest.New(openaitest.Config{Models: []string{"llama"}, Answer: blue, RefusePrefill: true, Logprobs: openaitest.LogprobsIgnored})
	defer plain.Close()
	text := openaitest.New(openaitest.Config{Models: []string{"qwen-vl"}, Answer: blue, TextOnly: true})
	defer text.Close()
	// vLLM's LLaVA-NeXT-Video takes video only; its InternVL on InternLM2
	// images only.
	videoOnly := openaitest.New(openaitest.Config{Models: []string{"qwen-vl"}, Answer: blue, VideoOnly: true})
	defer videoOnly.Close()
	imagesOnly := openaitest.New(openaitest.Config{Models: []string{"qwen-vl"}, Answer: blue, ImagesOnly: true})
	defer imagesOnly.Close()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String() + "/v1"
	l.Close()
	for _, tc := range []struct {
		name, lm, vlm string
		frames        string // vlm_reader's server_frames
		code          int
		want          []string
	}{
		{"vLLM-like", good.BaseURL(), good.BaseURL(), "", 0, []string{`mode logprobs, log-probabilities yes, "Answer:" prefill yes, answered "blue"`, "/v1/models lists qwen-vl; max_model_len 32768"}},
		{"no logprobs, no prefill", plain.BaseURL(), good.BaseURL(), "", 0, []string{`mode generate, log-probabilities no, "Answer:" prefill no, answered "blue"`}},
		{"a model not served", good.BaseURL(), plain.BaseURL(), "", 2, []string{"(not the model named)", `set server_model`}},
		{"no server there", dead, good.BaseURL(), "", 2, []string{"problem: list models:", dead}},
		// A text model serves lm_reader (its refusal of a frame is said, no
		// problem), not vlm_reader, which sends frames.
		{"a text model as lm_reader", text.BaseURL(), good.BaseURL(), "", 0, []string{"a question with a frame: refused (qwen-vl is not a multimodal model)", "a question with a frame: answered"}},
		{"a text model as vlm_reader", good.BaseURL(), text.BaseURL(), "", 2, []string{"problem: the server refused a question with a frame (qwen-vl is not a multimodal model) and with a video (qwen-vl is not a multimodal model); vlm_reader sends frames"}},
		// Each server's accepted kinds are said; a vlm_reader sending the
		// kind refused is a problem that names the server_frames to set.
		{"both kinds", good.BaseURL(), good.BaseURL(), "", 0, []string{"accepts: text, images, video; frames sent as images (server_frames)\n", "a question with two frames as one video: answered"}},
		{"a video-only model, frames as images", good.BaseURL(), videoOnly.BaseURL(), "", 2, []string{
			"a question with a frame: refused (At most 0 image(s) may be provided in one prompt.)", "accepts: text, video; frames sent as images (server_frames); set \"server_frames\": \"video\"",
			`problem: the server refused frames as images (At most 0 image(s) may be provided in one prompt.) and took them as one video: set "server_frames": "video"`}},
		{"a video-only model, frames as video", good.BaseURL(), videoOnly.BaseURL(), "video", 0, []string{"accepts: text, video; frames sent as video (server_frames)\n"}},
		{"an images-only model, frames as video", good.BaseURL(), imagesOnly.BaseURL(), "video", 2, []string{
			"a question with two frames as one video: refused (At most 0 video(s) may be provided in one prompt.)", `set "server_frames": "images"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			lmModel := map[string]string{good.BaseURL(): "qwen-vl", plain.BaseURL(): "llama", text.BaseURL(): "qwen-vl", dead: "x"}[tc.lm]
			frames := ""
			if tc.frames != "" {
				frames = fmt.Sprintf(`, "server_frames": %q`, tc.frames)
			}
			man := fmt.Sprintf(`{"roles": {"lm_reader": {"server": %q, "server_model": %q, "server_retries": 0},
				"vlm_reader": {"server": %q, "server_model": "qwen-vl", "server_retries": 0%s}}}`, tc.lm, lmModel, tc.vlm, frames)
			os.WriteFile(filepath.Join(dir, "models.json"), []byte(man), 0o644)
			code, stdout, stderr := runModels("", "check", "--roles", "lm_reader,vlm_reader", dir)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("report lacks %q:\n%s", w, stdout)
				}
			}
			code, stdout, _ = runModels("", "check", "--json", "--roles", "lm_reader,vlm_reader", dir)
			var rep struct {
				Served []servedCheck `json:"served"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Served) != 2 || code != tc.code {
				t.Fatalf("JSON report (exit %d): %v\n%s", code, err, stdout)
			}
			if v := rep.Served[1]; tc.frames != "" && v.Frames != tc.frames {
				t.Errorf("JSON report: vlm_reader's server_frames %q, want %q", v.Frames, tc.frames)
			}
		})
	}
}
