package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// streamChat answers a chat request that set "stream": true as vLLM and
// SGLang do: server-sent events, each "data: " and one
// chat.completion.chunk, the first carrying the assistant role with empty
// content, the second the content, its log-probabilities (when asked) and
// the finish reason, then "data: [DONE]". reply is the whole chat
// completion the request gets unstreamed, so both forms say the same.
func streamChat(w http.ResponseWriter, reply []byte) {
	var full struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			Logprobs     json.RawMessage `json:"logprobs"`
			FinishReason string          `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(reply, &full); err != nil || len(full.Choices) == 0 {
		panic(fmt.Sprintf("openaitest: its own reply does not decode: %v", err))
	}
	c := full.Choices[0]
	chunk := func(choice map[string]any) []byte {
		return mustJSON(map[string]any{"id": full.ID, "object": "chat.completion.chunk", "created": 0, "model": full.Model, "choices": []any{choice}})
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	lp := any(nil)
	if len(c.Logprobs) > 0 && string(c.Logprobs) != "null" {
		lp = c.Logprobs
	}
	for _, b := range [][]byte{
		chunk(map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": ""}, "logprobs": nil, "finish_reason": nil}),
		chunk(map[string]any{"index": 0, "delta": map[string]any{"content": c.Message.Content}, "logprobs": lp, "finish_reason": c.FinishReason, "stop_reason": nil}),
	} {
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
