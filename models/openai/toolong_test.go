package openai

import (
	"context"
	"errors"
	"github.com/vidscreen/vidscreen/models/letters"
	"testing"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestTooLongIsTold: the servers' refusals of a prompt over their context
// or image limit match ErrTooLong (and ErrServer), in vLLM's and SGLang's
// error bodies as the test server writes them and in the words of the
// servers' own messages; other refusals and faults do not, whatever they
// say.
func TestTooLongIsTold(t *testing.T) {
	t.Parallel()
	ask := func(cfg openaitest.Config, frames int) error {
		s := openaitest.New(cfg)
		defer s.Close()
		c := newTestClient(t, s, Config{})
		_, err := c.Ask(context.Background(), Query{ID: "q", Frames: testFrames(t, frames), Prompt: letters.Parts{Kind: letters.KindVisual, Options: []string{"x", "y"}}})
		return err
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"vLLM's context, served", ask(openaitest.Config{ContextLength: 300, ImageTokens: 100}, 4), true},
		{"SGLang's context, served", ask(openaitest.Config{ContextLength: 300, ImageTokens: 100, Flavor: openaitest.FlavorSGLang}, 4), true},
		{"vLLM's image limit, served", ask(openaitest.Config{MaxImages: 2}, 4), true},
		{"within both, served", ask(openaitest.Config{ContextLength: 100000, MaxImages: 8}, 4), false},
		{"vLLM V1's multimodal length", &ServerError{Status: 400, Message: "The prompt (total length 25938) is too long to fit into the model (context length 4096). Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens."}, true},
		{"vLLM's image limit, per request", &ServerError{Status: 400, Message: "At most 32 image(s) may be provided in one request."}, true},
		{"a model that takes no image (vLLM's LLaVA-NeXT-Video)", &ServerError{Status: 400, Message: "At most 0 image(s) may be provided in one prompt."}, false},
		{"a model that takes no video", &ServerError{Status: 400, Message: "At most 0 video(s) may be provided in one prompt."}, false},
		{"a model that takes no image, served", ask(openaitest.Config{VideoOnly: true}, 4), false},
		{"llama.cpp's context", &ServerError{Status: 400, Message: "the request exceeds the available context size, try increasing it"}, true},
		{"a 413", &ServerError{Status: 413, Message: "This model's maximum context length is 4096 tokens."}, true},
		{"a 500 that says it", &ServerError{Status: 500, Message: "This model's maximum context length is 4096 tokens."}, false},
		{"a logprobs refusal", &ServerError{Status: 400, Message: "logprobs is not supported by this server"}, false},
		{"an unknown model", &ServerError{Status: 404, Message: "The model `m` does not exist."}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				if tc.want {
					t.Fatal("no error; want a refusal")
				}
				return
			}
			if got := errors.Is(tc.err, ErrTooLong); got != tc.want || !errors.Is(tc.err, ErrServer) {
				t.Errorf("%v: too long %v, want %v (and a server error)", tc.err, got, tc.want)
			}
		})
	}
}
