package metrics

// A ServedReader is a reader role a local inference server answered, and
// how its answers were read: the protocol falls back from
// log-probabilities to a short generation, and from the prefilled
// "Answer:" turn to none, when the server refuses them, and letter margins
// mean different things in each, so a card says which one each reader
// used.
type ServedReader struct {
	// Role is the manifest role ("lm_reader", "vlm_reader#2", "captioner").
	Role string `json:"role"`
	// Model is the served model (the manifest's server_model).
	Model string `json:"model"`
	// Mode is "logprobs" (the letters' log-probabilities of the first
	// token) or "generate" (a short reply read by the answer rules); ""
	// when the run asked the role nothing and no earlier run of the
	// directory recorded it.
	Mode string `json:"mode"`
	// Prefill says whether the answer turn was prefilled with "Answer:"
	// (continue_final_message).
	Prefill bool `json:"prefill"`
	// ChatTemplateKwargs is the chat_template_kwargs its requests carried
	// (models.json's server_chat_template_kwargs, canonical JSON: Qwen3's
	// {"enable_thinking":false}); "" for none. It changes what the model
	// reads, so a card says it beside the mode.
	ChatTemplateKwargs string `json:"chat_template_kwargs,omitempty"`
}

// WithServed sets every card's ServedReaders: the readers are the run's,
// the same for each benchmark.
func WithServed(cards []Card, rs []ServedReader) {
	if len(rs) == 0 {
		return
	}
	for k := range cards {
		cards[k].ServedReaders = rs
	}
}
