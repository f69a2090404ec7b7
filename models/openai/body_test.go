package openai

import (
	"encoding/json"
	"testing"
)

// The hand-written body is what encoding/json writes for the same request.
func TestChatBodyIsWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	frames := testFrames(t, 2)
	no := false
	tests := []chatRequest{
		{Model: "Qwen/Qwen3-VL-8B-Instruct", Messages: []Message{{Role: "user", Parts: []Part{{Image: frames[0]}, {Image: frames[1]}, {Text: "Q: \"quoted\" <tag> & é\n\tA. x"}}}, {Role: "assistant", Content: "Answer:"}},
			MaxTokens: 1, Seed: -3, Logprobs: true, TopLogprobs: 20, ContinueFinalMessage: true, AddGenerationPrompt: &no},
		{Model: "m", Messages: []Message{{Role: "user", Content: "plain \u2028 text"}}, MaxTokens: 16, Temperature: 0.5,
			ChatTemplateKwargs: map[string]any{"enable_thinking": false, "a": []int{1}}},
	}
	for i, r := range tests {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.appendJSON(nil); err != nil || string(got) != string(want) {
			t.Errorf("request %d:\n got %.300s\nwant %.300s", i, got, want)
		}
	}
}
