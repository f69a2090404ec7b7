package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// A GenerateRequest asks for a whole reply: Prompt for plain completions,
// Messages for chat.
type GenerateRequest struct {
	Prompt   string
	Messages []Message
	// MaxTokens bounds the reply; 0 means 2048 (a dense caption of the
	// VidOmni-Bench kind runs to about 600 words).
	MaxTokens int
	// Seed is sent with the request, so that a server that honours it
	// (vLLM, the llama.cpp server) answers the same way each run.
	Seed int64
}

// Generate sends one request with temperature 0 and returns the reply's
// text: choices[0].message.content for chat, choices[0].text otherwise.
// Unlike LetterLogProbs it reads what the model writes, for prompts whose
// answer is free text (a dense caption, a verification reply in a format
// the caller parses).
func (c *Client) Generate(ctx context.Context, r GenerateRequest) (string, error) {
	max := r.MaxTokens
	if max == 0 {
		max = 2048
	}
	if max < 0 {
		return "", fmt.Errorf("generate: max tokens %d is negative", max)
	}
	req := map[string]any{"model": c.cfg.Model, "max_tokens": max, "temperature": 0, "seed": r.Seed}
	if c.cfg.Chat {
		if len(r.Messages) == 0 {
			return "", errors.New("generate: chat client given a request with no messages")
		}
		req["messages"] = r.Messages
		if len(c.cfg.ChatTemplateKwargs) > 0 {
			// As Ask sends them: a Qwen3 captioner would otherwise think
			// aloud before its caption.
			req["chat_template_kwargs"] = c.cfg.ChatTemplateKwargs
		}
	} else {
		if r.Prompt == "" {
			return "", errors.New("generate: completions client given a request with no prompt")
		}
		req["prompt"] = r.Prompt
	}
	body, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	var resp struct {
		Choices []struct {
			Text    *string `json:"text"`
			Message *struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := c.post(ctx, body, &resp); err != nil {
		return "", fmt.Errorf("generate at %s: %w", c.endpoint, err)
	}
	// A reply of the wrong shape is the server's failure (ErrServer and
	// ErrMalformed): a captioner fails that frame's items and goes on, as
	// for any other fault of the server.
	malformed := func(msg string) error {
		return fmt.Errorf("generate at %s: %w", c.endpoint, &ServerError{URL: c.endpoint, Request: requestKey(c.path, body)[:16], Status: http.StatusOK, Message: msg, Attempts: 1, malformed: true})
	}
	if len(resp.Choices) == 0 {
		return "", malformed("reply has no choices")
	}
	ch := resp.Choices[0]
	switch {
	case ch.Message != nil && ch.Message.Content != nil:
		return *ch.Message.Content, nil
	case ch.Text != nil:
		return *ch.Text, nil
	}
	return "", malformed("reply has neither message content nor text")
}
