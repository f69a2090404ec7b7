// Package openaitest is an OpenAI-compatible server for tests: it speaks
// /v1/models (with max_model_len), /v1/chat/completions and /v1/completions
// in the response shapes vLLM and SGLang give (chat logprobs as
// choices[0].logprobs.content[0].top_logprobs, entries with token, logprob
// and bytes; completions logprobs as tokens, token_logprobs and
// top_logprobs maps; "stream": true as server-sent chat.completion.chunk
// events ending "data: [DONE]"), and answers each request
// from a function of the request the test supplies, so a test decides what
// the "model" believes by reading the question or the images it was sent.
//
// On demand it misbehaves as real servers do: a status (429 with
// Retry-After, 500, 503), a delay past the client's timeout, a torn reply
// (the connection closed mid-body), truncated or malformed JSON, a mode
// that ignores logprobs or refuses them (400), a mode that refuses
// continue_final_message with vLLM's 400, a model context and an image
// limit whose overflow is refused with vLLM's or SGLang's 400 (Flavor: whose
// error bodies and words), and a slow mode. It records every
// request body it receives, faulted ones included, so tests assert exactly
// what a client sent.
//
// Everything it writes is a function of the request: ids are digests of
// the body, created is 0, so the same request gets the same bytes.
package openaitest
