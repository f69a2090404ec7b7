// Package openai asks a local OpenAI-compatible server (vLLM, SGLang, the
// llama.cpp server, Ollama) to read multiple-choice questions, so that the
// audit's readers (lm_reader, vlm_reader, screen_reader, the reference
// model) can be the papers' 7-8B models served on the user's own node.
//
// # The readers' protocol (Ask, AskGroups)
//
// A Query is one question under one condition: Frames (encoded with
// EncodeFrame: shrunk to a long side of FrameLongSide = 448 by integer area
// averaging, JPEG at quality 85 with Go's image/jpeg, so the same frame is
// the same bytes in every request), Prompt (the parts of what the reader is
// given: letters.Parts, its options in their original order), Wording (nil:
// the Video-Index authors', letters.Default) and Order, the permutation the
// options are shown in (the options-only and blind readers' four seeded
// orders are four Queries with four Orders; the caller makes the
// permutations). Ask sends, on /chat/completions, the Video-Index authors'
// form (video_index/pool/logprobs.py): one user turn with the frames as
// image_url data-URL parts first and then one text part (the prompt in the
// wording, the options lettered as shown), and an assistant turn with the
// wording's prefill "Answer:" continued by the model (continue_final_message
// true, add_generation_prompt false), with temperature 0, Config.Seed,
// max_tokens 1, logprobs true and top_logprobs 20. A text reader's user turn
// is a plain string.
//
// The first token's candidates that spell a letter by the authors' regex
// (letters.LetterOf: " A", "A", "\nA", "(A", "[A", "A.", "A)", "A:") are
// merged per letter by log-sum-exp; a letter with no candidate in the top 20
// gets LogFloor, log(1e-6), the authors' floor, and Found false. The Answer
// holds the Scores per letter as shown, LogProbs and Found per original
// option, and Choice, the original index of the best option.
//
// A server that refuses continue_final_message (a 400 or 422 naming it,
// vLLM's "continue_final_message is set but ...") is asked once more
// without the assistant turn; one that ignores or refuses logprobs is asked
// for a short reply (max_tokens 16), read by Config.ParseReply (the harness
// passes harness/answer's rules; nil reads the reply's first word by the
// authors' regex) into a
// one-hot score: the chosen option 0 and Found, the others LogFloor. The
// client remembers both per server (a Client is one server, or replicas of
// one model, which take the same forms), and each Answer
// says which Mode ("logprobs" or "generate") and whether Prefill was used.
// Config.Mode forces a mode. Until a client knows its server's forms,
// queries go one at a time (in AskGroups and AskStream, the first in order),
// so the form is found out once, by the same query at any concurrency.
//
// AskGroups takes Groups, one a video (all its items and conditions), and
// issues their queries in order, a group's all before the next group's
// first, with up to Config.MaxConcurrent in flight, so a prefix cache holds
// a video's frames while its questions are asked; a query whose prompt
// starts as an earlier query's of its group (the same first frame, or the
// same captions, description or transcript) waits until that one is
// answered, so that the server has the shared prefix computed and cached
// when it comes, and at most a quarter of the requests in flight are such
// open prefixes (hold.go). Results come back in the
// same order and do not depend on the concurrency. AskStream does the same
// for groups a caller yields one at a time (next) and takes back in order
// (done), at most 2*MaxConcurrent+1 open at once, so a run over 500K items
// keeps only the open videos' frames in memory (2*MaxConcurrent+1 per
// replica). Their Stats count
// requests (RequestsPerSecond), retries, store hits, images sent, and the
// queries whose frames equal an earlier query's in the group (PrefixShare).
//
// # Replicas
//
// Config.BaseURLs names several servers of one model (eight vLLM servers,
// one a GPU). Each attempt goes to the replica in service with the fewest
// attempts outstanding (ties: the one asked least so far), except that,
// while their groups are open, the queries whose frames start with the same
// image follow the first of them (its replica's prefix cache holds the
// frames), and the orders of one text question follow each other. An attempt that fails as a
// server fails (no connection, 5xx, 429, no reply in time, a torn reply)
// takes its replica out of service for Backoff, doubling with each failure
// in a row up to 30 s, and goes at once to another replica in service
// without costing a retry. MaxConcurrent holds per replica. The store's
// keys name the path and body, never the replica, so the answers are those
// of one server; Stats.Endpoints and Client.EndpointStats count per
// replica the requests, failures and replies.
//
// # Faults
//
// 429, 5xx, connection failures, attempts past Config.Timeout and torn
// replies (a body cut short, or JSON that ends early) are retried up to
// MaxRetries times with doubling waits from Backoff to MaxBackoff, or as a
// Retry-After header says. What still fails, and every refusal (4xx), is a
// *ServerError (errors.Is(err, ErrServer)) with the URL, the request (the
// query's ID and its store key), the status and the server's own message.
// A reply that is not the protocol's JSON is a ServerError matching
// ErrMalformed too, never retried, never a guessed answer. A cancelled
// context ends every call at once with ctx.Err(), which is no ErrServer.
//
// # The response store
//
// With Config.Store (OpenStore), every reply (and every refusal) is appended
// to a file, keyed by the SHA-256 of the endpoint and the exact request body
// (model, messages with their images, parameters), and fsynced before it is
// used; a request the store has answered is not sent, and identical requests
// in flight at once are sent once. A run killed at any
// byte and resumed reads the whole records back, drops a torn last one, asks
// the server only what is missing, and gives byte-identical answers.
//
// # Checking a server
//
// Check asks GET /models, one text question and the question with one frame,
// and reports the model ids, whether the configured model is served, whether
// logprobs and continue_final_message work and whether images are read
// (vidscreen models check).
//
// # Other callers
//
// LetterLogProbs and ScoreAll score a caller's own prompt (on /completions,
// or /chat/completions with Config.Chat); Generate returns a whole reply
// (VidOmni's verify and caption, with frames as lossless PNG from
// RGBImage). Package openaitest is a server for tests that speaks all of
// this and misbehaves on demand.
//
// Nothing leaves the machine by default: New refuses a base URL whose host is
// not a loopback address (localhost, 127.0.0.0/8, ::1), the dialer refuses to
// connect to any other address whatever a name resolves to, proxies from the
// environment are ignored, and redirects are not followed. Config.AllowRemote
// lifts this for a server the user names explicitly.
package openai
