package served

import (
	"context"
	"errors"
	"fmt"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai"
)

// Protocol changes whenever what a served role is asked changes meaning
// (the message layout, the frame size, the image encoding, the parameters),
// so that answers cached under an earlier protocol are not reused.
// Protocol 3 asks in the Video-Index authors' wording (letters.Default).
const Protocol = 3

// Config says which role a server serves and how to reach it.
type Config struct {
	// Role is the role's name ("lm_reader", "vlm_reader", "lm_reader#2"),
	// for messages and Stats.
	Role string
	// Server is the role's manifest entry, defaults filled in.
	Server models.ServerSettings
	// URLs are the base URLs of the role's replicas (models.json's
	// servers, in order); empty means Server.URL alone. Requests are
	// spread over them (openai.Config.BaseURLs), server_concurrency each.
	URLs []string
	// APIKey is the key read from Server.APIKeyEnv by the caller ("" for
	// none); it goes to the server as a bearer token and nowhere else.
	APIKey string
	// Store, when set, holds every reply: a resumed run asks nothing twice.
	Store *Store
	// ParseReply reads a generated reply (a server without
	// log-probabilities) into the option it names; nil reads a leading
	// letter only.
	ParseReply func(reply string, options []string) int
	// Wording words the prompts; nil is letters.Default(). Name the role
	// with NameWording so that a prompt file's answers are cached apart.
	Wording *letters.Wording
}

// Name names a served role's model for cache keys and config.json: the
// role, the served model, the protocol and the chat template's arguments
// when the entry sets any (server_chat_template_kwargs changes the prompt
// the model reads, so its answers) and server_frames "video" (the frames
// go through the model's video processor), never the URL (the same model on
// another port answers the same), the key or the client's tuning
// (concurrency, timeouts, retries change no answer).
func Name(role string, s models.ServerSettings) string {
	name := fmt.Sprintf("served:%s:%s:protocol=%d:long_side=%d:jpeg=%d", role, s.Model, Protocol, openai.FrameLongSide, openai.JPEGQuality)
	if s.ChatTemplateKwargs != "" {
		name += ":chat_template_kwargs=" + s.ChatTemplateKwargs
	}
	if s.Frames == models.ServerFramesVideo {
		name += ":frames=video" // the model reads the frames through its video processor
	}
	return name
}

// NameWording is Name with the wording's Tag (a prompt file's hash; the
// default adds nothing), since the wording changes every answer.
func NameWording(role string, s models.ServerSettings, w *letters.Wording) string {
	return Name(role, s) + w.Tag()
}

// Endpoints are cfg's base URLs: URLs, or Server.URL alone.
func (cfg Config) Endpoints() []string {
	if len(cfg.URLs) > 0 {
		return cfg.URLs
	}
	return []string{cfg.Server.URL}
}

// concurrency is how many requests cfg's role may have in flight in all:
// server_concurrency per replica.
func (cfg Config) concurrency() int {
	return max(1, cfg.Server.Concurrency) * len(cfg.Endpoints())
}

// newClient opens the chat client of cfg.
func newClient(cfg Config, store *openai.Store) (*openai.Client, error) {
	s := cfg.Server
	retries := s.Retries
	if retries == 0 {
		retries = -1 // the client's 0 means its default; the manifest's 0 means none
	}
	kw, err := models.DecodeKwargs(s.ChatTemplateKwargs)
	if err != nil {
		return nil, fmt.Errorf("%s: server_chat_template_kwargs: %w", cfg.Role, err)
	}
	c, err := openai.New(openai.Config{BaseURLs: cfg.Endpoints(), Model: s.Model, Chat: true, APIKey: cfg.APIKey, AllowRemote: s.AllowRemote,
		MaxConcurrent: s.Concurrency, MaxRetries: retries, Timeout: s.Timeout, Store: store, ParseReply: cfg.ParseReply, ChatTemplateKwargs: kw,
		Frames: s.Frames})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Role, err)
	}
	return c, nil
}

// errPrompt marks a prompt this package cannot send: a caller's error.
var errPrompt = errors.New("served: bad prompt")

// ask sends one group of queries (one call's prompts: one video's, on the
// VLM path) and turns the answers into rows of log-probabilities per
// option; a query the server failed (openai.ErrServer) has no row (nil).
// Anything else (a cancelled context) is the call's error, and so is a
// server that has refused everything (Stats.Refused).
//
// refit, when not nil, says per query whether the caller can ask it again
// shorter; such a query the server refused as too long for its model
// (openai.ErrTooLong) is marked in the returned long and not counted
// failed, since it is asked again (VLM.Score, with fewer frames).
func ask(ctx context.Context, lc *lazyClient, st *Stats, name string, qs []openai.Query, refit []bool) (rows [][]float64, long []bool, err error) {
	c, err := lc.get()
	if err != nil {
		return nil, nil, err
	}
	st.begin()
	res, gst := c.AskGroups(ctx, []openai.Group{{Name: name, Queries: qs}})
	st.end()
	out := make([][]float64, len(qs))
	long = make([]bool, len(qs))
	var first error
	failed, floored := 0, 0
	for i, r := range res[0] {
		if r.Err != nil {
			if !errors.Is(r.Err, openai.ErrServer) || ctx.Err() != nil {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				return nil, nil, r.Err
			}
			if refit != nil && refit[i] && errors.Is(r.Err, openai.ErrTooLong) {
				long[i] = true
				continue
			}
			failed++
			if first == nil {
				first = r.Err
			}
			continue
		}
		st.setMode(r.Answer.Mode, r.Answer.Prefill)
		if r.Answer.Mode == openai.ModeLogprobs && r.Answer.Scores.Floored() > 0 {
			floored++
		}
		out[i] = r.Answer.LogProbs
	}
	st.record(gst, failed, first)
	st.addFloored(floored)
	if err := st.Refused(false); err != nil {
		return nil, nil, err
	}
	return out, long, nil
}
