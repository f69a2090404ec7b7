// Package served runs the audit's model roles on an OpenAI-compatible
// server (vLLM, SGLang, the llama.cpp server) behind the interfaces the
// attackers already use for ONNX models, so that one attacker file serves
// both: Letters is an lm_reader (attack.LetterReader), VLM a vlm_reader or
// screen_reader (features.VLMScorer), Captioner a captioner
// (features.Captioner).
//
// A request the server fails after the client's retries fails its own
// prompt only: Score returns no scores for it (nil), which the readers
// answer as an item without scores, and Stats counts it under the reason
// "server". A server that has answered nothing and refused the first
// requests it was sent stops the run with an error naming its URL and its
// message (Refused), since every later request would fail the same way.
//
// Frames go to the server at a long side of 448 pixels (the Video-Index
// authors' size), first in the message, then the prompt's text, so that the
// requests of one video share a prefix the server's cache can reuse; Stats
// counts how many do.
package served
