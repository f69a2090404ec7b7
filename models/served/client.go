package served

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai"
)

// Protocol changes whenever what a served role is asked changes meaning
// (the message layout, the frame size, the image encoding, the parameters),
// so that answers cached under an earlier protocol are not reused.
const Protocol = 1

// Config says which role a server serves and how to reach it.
type Config struct {
	// Role is the role's name ("lm_reader", "vlm_reader", ...), for
	// messages and Stats.
	Role string
	// Server is the role's manifest entry, defaults filled in.
	Server models.ServerSettings
	// APIKey is the key read from Server.APIKeyEnv by the caller ("" for
	// none); it goes to the server as a bearer token and nowhere else.
	APIKey string
}

// Name names a served role's model for cache keys and config.json: the
// role, the served model and the protocol, never the URL (the same model
// on another port answers the same), the key or the client's tuning
// (concurrency, timeouts, retries change no answer).
func Name(role string, s models.ServerSettings) string {
	return fmt.Sprintf("served:%s:%s:protocol=%d:long_side=%d", role, s.Model, Protocol, LongSide)
}

// newClient opens the chat client of cfg.
func newClient(cfg Config) (*openai.Client, error) {
	s := cfg.Server
	retries := s.Retries
	if retries == 0 {
		retries = -1 // the client's 0 means its default; the manifest's 0 means none
	}
	c, err := openai.New(openai.Config{BaseURL: s.URL, Model: s.Model, Chat: true, APIKey: cfg.APIKey, AllowRemote: s.AllowRemote,
		MaxConcurrent: s.Concurrency, MaxRetries: retries, Timeout: s.Timeout})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Role, err)
	}
	return c, nil
}

// serverFailure reports whether err is the server's failure (a prompt's
// own, the item fails with reason "server") rather than the run's (a
// cancelled context, a prompt the caller built wrong).
func serverFailure(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && !errors.Is(err, errPrompt)
}

// errPrompt marks a prompt this package cannot send: a caller's error.
var errPrompt = errors.New("served: bad prompt")

// splitAnswer cuts the trailing "Answer:" off a reader's prompt: the
// readers' prompts end where the letter goes, and a chat model is given
// that cue as the start of its own turn (the prefill), not as the user's
// words.
func splitAnswer(text string) (user, prefill string) {
	const cue = "Answer:"
	if u, ok := strings.CutSuffix(text, cue); ok {
		return strings.TrimRight(u, " \n"), cue
	}
	return text, ""
}

// messages writes a prompt as chat messages: the user's parts (images
// first), with the answer cue left in the user's text until the client can
// prefill the assistant turn.
func messages(parts []openai.Part, user, prefill string) []openai.Message {
	text := user
	if prefill != "" {
		text += "\n" + prefill
	}
	return []openai.Message{{Role: "user", Parts: append(parts, openai.Part{Text: text})}}
}

// mapSeed is a fresh seed for the in-process hashes.
func mapSeed() maphash.Seed { return maphash.MakeSeed() }
