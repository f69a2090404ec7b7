package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ErrServer is what every failure of the server itself matches with
// errors.Is: a refusal (4xx), a fault that outlived the retries (5xx, 429,
// timeouts, torn or unreachable connections), or a reply that is not the
// JSON the protocol defines. Callers fail the request's item with reason
// "server" and go on; a context that ended is never an ErrServer.
var ErrServer = errors.New("openai server failure")

// ErrMalformed is what a reply that is not valid JSON of the expected shape
// matches with errors.Is (besides ErrServer). It is never retried and never
// turned into a guessed answer.
var ErrMalformed = errors.New("malformed reply")

// ErrTooLong is what a server's refusal of a prompt too long for its model
// matches with errors.Is (besides ErrServer): a 400 (or 413, 422) whose
// message is one of the servers' own for it (tooLongPhrases). Unlike other
// refusals it says what to change: a served VLM asks such a query again
// with fewer frames, as the ONNX readers fit a prompt to their model.
var ErrTooLong = errors.New("prompt too long for the served model")

// tooLongPhrases are the servers' messages for a prompt over their context
// or image limit: vLLM's "This model's maximum context length is N tokens.
// However, you requested M tokens ...", its V1 engine's "The prompt (total
// length N) is too long to fit into the model (context length M)", its
// --limit-mm-per-prompt refusal "At most N image(s) may be provided in one
// prompt" (or "request"), SGLang's "The input (N tokens) is longer than the
// model's context length (M tokens)." and llama.cpp's server's "the request
// exceeds the available context size".
var tooLongPhrases = []string{
	"maximum context length",
	"too long to fit into the model",
	"image(s) may be provided in one",
	"longer than the model's context length",
	"exceeds the available context size",
}

// A ServerError says which server failed, how, and what it said.
type ServerError struct {
	// URL is the endpoint the request went to.
	URL string
	// Request names the request: its store key (a SHA-256 of the body) and,
	// where the caller gave one, the query's ID.
	Request string
	// Status is the HTTP status of the last reply, 0 when none came.
	Status int
	// Message is the server's own message: the "message" of an OpenAI or
	// vLLM error body, else the start of the body; for a failure with no
	// reply, what went wrong with the connection.
	Message string
	// Attempts is how many times the request was sent.
	Attempts int
	// Err is the underlying cause, when there is one (a connection error, a
	// JSON syntax error).
	Err error

	malformed bool
	body      []byte // a refusal's body, kept for the response store
}

func (e *ServerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", e.URL)
	if e.Request != "" {
		fmt.Fprintf(&b, " (request %s)", e.Request)
	}
	switch {
	case e.malformed:
		fmt.Fprintf(&b, ": malformed reply: %s", e.Message)
	case e.Status != 0:
		fmt.Fprintf(&b, ": server answered %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
	default:
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrServer) true for every ServerError,
// errors.Is(err, ErrMalformed) for a malformed reply and errors.Is(err,
// ErrTooLong) for a refusal of a prompt too long for the model.
func (e *ServerError) Is(target error) bool {
	return target == ErrServer || target == ErrMalformed && e.malformed || target == ErrTooLong && e.tooLong()
}

// tooLong reports whether the server refused the request as too long for
// its model (ErrTooLong).
func (e *ServerError) tooLong() bool {
	switch e.Status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
	default:
		return false
	}
	if strings.Contains(e.Message, "At most 0 ") {
		// vLLM's limit of 0: the model takes no input of that kind
		// (LLaVA-NeXT-Video no image), however few frames are sent.
		return false
	}
	for _, p := range tooLongPhrases {
		if strings.Contains(e.Message, p) {
			return true
		}
	}
	return false
}

func (e *ServerError) Unwrap() error { return e.Err }

// statusError is one non-2xx reply, before the retry loop decides on it.
type statusError struct {
	code       int
	body       []byte
	retryAfter time.Duration
}

func (e *statusError) Error() string {
	return fmt.Sprintf("server answered %d %s: %s", e.code, http.StatusText(e.code), serverMessage(e.body))
}

func (e *statusError) retryable() bool {
	return e.code >= 500 || e.code == http.StatusTooManyRequests
}

// serverMessage is the human part of an error body: vLLM and SGLang answer
// {"error": {"message": ...}} (older vLLM {"object": "error", "message":
// ...}), the llama.cpp server the former; anything else is quoted as it
// starts.
func serverMessage(body []byte) string {
	var v struct {
		Message string `json:"message"`
		Error   *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil {
		if v.Error != nil && v.Error.Message != "" {
			return v.Error.Message
		}
		if v.Message != "" {
			return v.Message
		}
	}
	return excerpt(body)
}

// excerpt is the start of a reply body, for error messages.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
