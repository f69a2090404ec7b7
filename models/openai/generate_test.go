package openai

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		chat  bool
		reply string
		want  string
		req   GenerateRequest
	}{
		{"chat reads message.content", true, `{"choices": [{"message": {"role": "assistant", "content": "{\"sentence_1\": 1}\nbecause"}}]}`, "{\"sentence_1\": 1}\nbecause",
			GenerateRequest{Messages: []Message{{Role: "user", Parts: []Part{{Image: &Image{MIME: "image/png", Data: []byte{1}}}, {Text: "Describe"}}}}, Seed: 7}},
		{"completions read text", false, `{"choices": [{"text": "A dog runs."}]}`, "A dog runs.", GenerateRequest{Prompt: "Describe", MaxTokens: 64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := server(t, []byte(tt.reply), func(path string, req map[string]any) {
				if tt.chat != strings.HasSuffix(path, "/chat/completions") {
					t.Errorf("path %s", path)
				}
				if req["temperature"] != 0.0 || req["model"] != "m" || req["seed"] != float64(tt.req.Seed) {
					t.Errorf("request %v", req)
				}
				if want := float64(tt.req.MaxTokens); want == 0 && req["max_tokens"] != 2048.0 || want > 0 && req["max_tokens"] != want {
					t.Errorf("max_tokens %v", req["max_tokens"])
				}
			})
			c, err := New(Config{BaseURL: ts.URL + "/v1", Model: "m", Chat: tt.chat})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Generate(context.Background(), tt.req)
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	ts := server(t, []byte(`{"choices": []}`), nil)
	c, _ := New(Config{BaseURL: ts.URL, Model: "m", Chat: true})
	if _, err := c.Generate(context.Background(), GenerateRequest{Messages: []Message{{Role: "user", Content: "x"}}}); err == nil || !strings.Contains(err.Error(), "no choices") || !errors.Is(err, ErrServer) || !errors.Is(err, ErrMalformed) {
		t.Errorf("empty choices: %v, want a malformed reply, a server failure", err)
	}
	if _, err := c.Generate(context.Background(), GenerateRequest{Prompt: "x"}); err == nil {
		t.Error("a chat client sent a prompt without messages")
	}
}
