// Package openai asks a local OpenAI-compatible server (vLLM, SGLang, the
// llama.cpp server) for the log-probabilities of option letters, so that the
// lm_reader and vlm_reader roles can be served by a model too large or too
// new for ONNX Runtime.
//
// One request per prompt asks for one token (max_tokens 1, temperature 0)
// with the top log-probabilities of that first position, on /completions
// (logprobs N) or /chat/completions (logprobs true, top_logprobs N). The
// candidates whose text is a letter once surrounding white space and an
// opening parenthesis are removed (" A", "A", "\nA", "(A") are merged per
// letter by log-sum-exp; a letter with no candidate gets LogFloor, log(1e-6),
// the Video-Index authors' floor, and is marked as floored. For a
// vision-language model, chat messages carry frames as PNG data URLs
// (RGBImage), between text parts.
//
// Nothing leaves the machine by default: New refuses a base URL whose host is
// not a loopback address (localhost, 127.0.0.0/8, ::1), the dialer refuses to
// connect to any other address whatever a name resolves to, proxies from the
// environment are ignored, and redirects are not followed. Config.AllowRemote
// lifts this for a server the user names explicitly.
package openai
