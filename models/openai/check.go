package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/vidscreen/vidscreen/models/letters"
)

// A CheckReport is what Check found at a server.
type CheckReport struct {
	// URL is the API root asked.
	URL string
	// Models are the ids /v1/models lists; ModelServed says whether the
	// configured model is among them.
	Models      []string
	ModelServed bool
	// MaxModelLen is the context, in tokens, /v1/models gives for the
	// configured model (vLLM's and SGLang's max_model_len; 0 when the
	// server does not say), which bounds the frames a prompt can carry.
	MaxModelLen int
	// Logprobs says whether a one-token completion came back with
	// log-probabilities; Prefill whether the server accepted
	// continue_final_message (the authors' "Answer:" turn).
	Logprobs, Prefill bool
	// Mode is the mode Ask will use: ModeLogprobs or ModeGenerate.
	Mode string
	// Reply is the test question's answer as Ask read it.
	Reply Answer
	// Images says whether the server took a question with a frame (a
	// vision-language model: what a vlm_reader needs); ImagesRefusal is its
	// message when it did not (vLLM's text models answer 400).
	Images        bool
	ImagesRefusal string
	// Video says whether the server took the question with two frames as
	// one video_url part (FramesVideo: vLLM's video/jpeg frame list);
	// VideoRefusal is its message when it did not (vLLM's image-only
	// models answer "At most 0 video(s) may be provided in one prompt.",
	// SGLang reads a video data URL as a container file only).
	Video        bool
	VideoRefusal string
}

// Inputs lists the input kinds the server accepted for the model: "text"
// (a check that returned no error), then "images" and "video".
func (r CheckReport) Inputs() []string {
	out := []string{"text"}
	if r.Images {
		out = append(out, FramesImages)
	}
	if r.Video {
		out = append(out, FramesVideo)
	}
	return out
}

// Frames is how a frames role should send its frames to this server:
// FramesImages where images are taken (the Video-Index authors' form),
// FramesVideo where only video is, "" where neither.
func (r CheckReport) Frames() string {
	switch {
	case r.Images:
		return FramesImages
	case r.Video:
		return FramesVideo
	}
	return ""
}

// Check asks cfg's server what it serves (GET /models), probes it as Ask
// does before its first query (Probe: one text question, to find out
// whether log-probabilities and continue_final_message work), then the question with one small frame, to
// find out whether it reads images, and with two frames as one video part,
// to find out whether it reads video (vLLM's LLaVA-NeXT-Video reads video
// only). It uses no store. An error means the
// server could not be asked, or failed the text question, or does not serve
// the model; a server that works only in a fallback form, or without
// images, is no error: the report says which.
func Check(ctx context.Context, cfg Config) (CheckReport, error) {
	cfg.Store = nil
	c, err := New(cfg)
	if err != nil {
		return CheckReport{}, err
	}
	rep := CheckReport{URL: c.base}
	data, err := c.exchange(ctx, "/models", nil, "models check")
	if err != nil {
		return rep, fmt.Errorf("list models: %w", err)
	}
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return rep, &ServerError{URL: c.base + "/models", Request: "models check", Status: http.StatusOK, Message: fmt.Sprintf("%v (reply starts %q)", err, excerpt(data)), Attempts: 1, Err: err, malformed: true}
	}
	for _, m := range list.Data {
		rep.Models = append(rep.Models, m.ID)
		if m.ID == cfg.Model {
			rep.MaxModelLen = m.MaxModelLen
		}
	}
	rep.ModelServed = slices.Contains(rep.Models, cfg.Model)
	if !rep.ModelServed {
		return rep, fmt.Errorf("%s serves %q, not %q: set server_model to one of them", c.base, rep.Models, cfg.Model)
	}
	a, err := c.Probe(ctx)
	if err != nil {
		return rep, fmt.Errorf("one-token completion: %w", err)
	}
	rep.Reply, rep.Mode, rep.Prefill = a, a.Mode, a.Prefill
	rep.Logprobs = a.Mode == ModeLogprobs
	blue := make([]byte, 3*32*32)
	for i := 2; i < len(blue); i += 3 {
		blue[i] = 255
	}
	frame, err := EncodeFrame(blue, 32, 32, 0)
	if err != nil {
		return rep, err
	}
	q := Query{
		ID:     "models check, with a frame",
		Frames: []*Image{frame},
		Prompt: letters.Parts{Kind: letters.KindVisual, Question: "What colour is the image?",
			Options: []string{"green", "blue", "red", "black"}, Frames: 1},
	}
	if rep.Images, rep.ImagesRefusal, err = probe(ctx, c, q); err != nil {
		return rep, fmt.Errorf("a question with a frame: %w", err)
	}
	// Two frames: Qwen2-VL's video processor pairs frames in time
	// (temporal_patch_size 2), and a video is frames.
	vcfg := cfg
	vcfg.Frames = FramesVideo
	cv, err := New(vcfg)
	if err != nil {
		return rep, err
	}
	// What the text question found out (a refused prefill, no
	// log-probabilities) holds for the video question too.
	cv.prefill.Store(c.prefill.Load())
	cv.logprobs.Store(c.logprobs.Load())
	q.ID, q.Frames = "models check, with a video", []*Image{frame, frame}
	q.Prompt.Question, q.Prompt.Frames = "What colour is the video?", 2
	if rep.Video, rep.VideoRefusal, err = probe(ctx, cv, q); err != nil {
		return rep, fmt.Errorf("a question with a video: %w", err)
	}
	return rep, nil
}

// probe asks q: true when answered, the server's message when it refused
// (a ServerError), an error when it could not be asked.
func probe(ctx context.Context, c *Client, q Query) (bool, string, error) {
	_, err := c.Ask(ctx, q)
	var se *ServerError
	switch {
	case err == nil:
		return true, "", nil
	case errors.As(err, &se):
		return false, se.Message, nil
	}
	return false, "", err
}
