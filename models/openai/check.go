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
}

// Check asks cfg's server what it serves (GET /models), puts one text
// question to it as Ask would, to find out whether log-probabilities and
// continue_final_message work, and then the question with one small frame,
// to find out whether it reads images. It uses no store. An error means the
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
	a, err := c.Ask(ctx, Query{
		ID: "models check",
		Prompt: letters.Parts{Kind: letters.KindBlind, Question: "What colour is a clear daytime sky?",
			Options: []string{"green", "blue", "red", "black"}},
	})
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
	_, err = c.Ask(ctx, Query{
		ID:     "models check, with a frame",
		Frames: []*Image{frame},
		Prompt: letters.Parts{Kind: letters.KindVisual, Question: "What colour is the image?",
			Options: []string{"green", "blue", "red", "black"}, Frames: 1},
	})
	var se *ServerError
	switch {
	case err == nil:
		rep.Images = true
	case errors.As(err, &se):
		rep.ImagesRefusal = se.Message
	default:
		return rep, fmt.Errorf("a question with a frame: %w", err)
	}
	return rep, nil
}
