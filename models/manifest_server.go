package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// servable lists the roles an OpenAI-compatible server may serve: those
// whose model reads or writes text (letter scores, captions, transcripts).
// The encoders (image_text, text_embed, dup_confirm) return vectors, which
// the chat API does not carry. "asr" is named by its string so that this
// list does not depend on where its constant is declared.
var servable = map[Role]bool{
	RoleLMReader: true, RoleVLMReader: true, RoleScreenReader: true, RoleCaptioner: true, Role("asr"): true,
}

// Server settings' defaults (docs/models.md): what openai.Config falls back
// to, restated so that config.json and the checks can print them.
const (
	DefaultServerConcurrency = 8
	DefaultServerTimeout     = 5 * time.Minute
	DefaultServerRetries     = 4
)

// ServerSettings are a served entry's client settings with the defaults
// filled in.
type ServerSettings struct {
	// URL is the server's base URL; with replicas (the entry's servers),
	// the first of them: RoleSpec.ServerURLs lists them all (not here, so
	// that settings stay comparable with ==).
	URL, Model  string
	Concurrency int
	Timeout     time.Duration
	Retries     int
	// APIKeyEnv names the variable the key is read from at run time ("" for
	// none).
	APIKeyEnv   string
	AllowRemote bool
	// ChatTemplateKwargs is the entry's server_chat_template_kwargs as
	// canonical JSON (keys sorted, no space: the bytes every request
	// carries), "" for none. A string, so that settings compare with ==.
	ChatTemplateKwargs string
	// Frames is how frames go to the server: ServerFramesImages (the
	// default) or ServerFramesVideo.
	Frames string
}

// The values of server_frames (openai.FramesImages and openai.FramesVideo,
// restated: this package is below the client).
const (
	ServerFramesImages = "images"
	ServerFramesVideo  = "video"
)

// framesRoles are the roles whose requests carry a video's frames together,
// which server_frames may send as one video: the captioner captions one
// frame a request, and the text roles send none.
var framesRoles = map[Role]bool{RoleVLMReader: true, RoleScreenReader: true}

// Served reports whether the entry is served by a server (server, or the
// replicas of servers).
func (s RoleSpec) Served() bool { return s.Server != "" || len(s.Servers) > 0 }

// ServerURLs are the entry's server base URLs: its servers, or its server
// alone; none for an ONNX entry.
func (s RoleSpec) ServerURLs() []string {
	switch {
	case len(s.Servers) > 0:
		return append([]string(nil), s.Servers...)
	case s.Server != "":
		return []string{s.Server}
	}
	return nil
}

// ServerSettings returns the entry's client settings, defaults filled in.
func (s RoleSpec) ServerSettings() ServerSettings {
	urls := s.ServerURLs()
	first := ""
	if len(urls) > 0 {
		first = urls[0]
	}
	out := ServerSettings{URL: first, Model: s.ServerModel, Concurrency: s.ServerConcurrency,
		Timeout: time.Duration(s.ServerTimeoutS * float64(time.Second)), Retries: DefaultServerRetries,
		APIKeyEnv: s.ServerAPIKeyEnv, AllowRemote: s.ServerAllowRemote, Frames: s.ServerFrames}
	if out.Frames == "" {
		out.Frames = ServerFramesImages
	}
	if out.Concurrency == 0 {
		out.Concurrency = DefaultServerConcurrency
	}
	if out.Timeout == 0 {
		out.Timeout = DefaultServerTimeout
	}
	if s.ServerRetries != nil {
		out.Retries = *s.ServerRetries
	}
	if len(s.ServerChatTemplateKwargs) > 0 {
		kw, err := canonicalKwargs(s.ServerChatTemplateKwargs)
		if err != nil {
			// Not an entry the manifest checked: send what it says.
			kw = string(bytes.TrimSpace(s.ServerChatTemplateKwargs))
		}
		out.ChatTemplateKwargs = kw
	}
	return out
}

// canonicalKwargs checks that raw is a JSON object and returns it with its
// keys sorted and no white space, numbers written as given (json.Number),
// so that the same arguments are the same request bytes, and the same
// response-store key, however the manifest spaces or orders them; "" for
// an empty object.
func canonicalKwargs(raw json.RawMessage) (string, error) {
	kw, err := DecodeKwargs(string(raw))
	if err != nil {
		return "", err
	}
	if len(kw) == 0 {
		return "", nil // {}: nothing to send, and nothing in the names
	}
	b, err := json.Marshal(kw)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// DecodeKwargs reads a ServerSettings.ChatTemplateKwargs (or the
// manifest's raw object) into the map the client sends, numbers kept as
// written (json.Number); "" is none (nil).
func DecodeKwargs(s string) (map[string]any, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var kw map[string]any
	if err := dec.Decode(&kw); err != nil || kw == nil {
		return nil, fmt.Errorf("want a JSON object of the chat template's arguments, such as {\"enable_thinking\": false}; got %s", s)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the object %s", s)
	}
	return kw, nil
}

// envName is what a POSIX shell accepts as a variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Bounds of the server settings: beyond them a value is a typo (a timeout
// in milliseconds, a concurrency of a million), not a choice.
const (
	maxServerConcurrency = 4096
	maxServerTimeoutS    = 24 * 3600
	maxServerRetries     = 100
)

// validateServer checks the server keys of an entry of role. The URL is
// checked as the client will check it, so that a bad one is refused when the
// manifest is read, naming the field, not when the first request goes out.
func (s RoleSpec) validateServer(role Role) error {
	if s.Server != "" && s.Servers != nil {
		return fmt.Errorf("servers: set beside server; write \"servers\": [URL, ...] alone for replicas of one model (requests spread over them), or \"server\": URL alone for one server")
	}
	if s.Servers != nil && len(s.Servers) == 0 {
		return fmt.Errorf("servers: an empty list; give the base URL of each replica of %s's model, or use \"server\" for one", role)
	}
	if !s.Served() {
		for _, k := range []struct {
			set  bool
			name string
		}{{s.ServerModel != "", "server_model"}, {s.ServerConcurrency != 0, "server_concurrency"}, {s.ServerTimeoutS != 0, "server_timeout_s"},
			{s.ServerRetries != nil, "server_retries"}, {s.ServerAPIKeyEnv != "", "server_api_key_env"}, {s.ServerAllowRemote, "server_allow_remote"},
			{len(s.ServerChatTemplateKwargs) > 0, "server_chat_template_kwargs"}, {s.ServerFrames != "", "server_frames"}} {
			if k.set {
				return fmt.Errorf("%s: set without server or servers (the base URL of the server it tunes)", k.name)
			}
		}
		return nil
	}
	if !servable[role] {
		return fmt.Errorf("server: %s cannot be served by an OpenAI-compatible server; only lm_reader, vlm_reader, screen_reader, captioner and asr can", role)
	}
	if s.Dir != "" {
		return fmt.Errorf("server: given with dir %q; an entry is ONNX files or a server, not both", s.Dir)
	}
	if s.ServerModel == "" {
		return fmt.Errorf("server_model: missing (the model name the server serves, as its /v1/models lists it)")
	}
	if s.Server != "" {
		if err := checkServerURL("server", s.Server, s.ServerAllowRemote); err != nil {
			return err
		}
	}
	if len(s.Servers) > 1 && role == Role("asr") {
		return fmt.Errorf("servers: asr's client asks one server for /v1/audio/transcriptions; give \"server\"")
	}
	seen := map[string]int{}
	for i, u := range s.Servers {
		field := fmt.Sprintf("servers[%d]", i)
		if err := checkServerURL(field, u, s.ServerAllowRemote); err != nil {
			return err
		}
		key := strings.TrimRight(u, "/")
		if j, ok := seen[key]; ok {
			return fmt.Errorf("%s: %s is servers[%d] again; each replica is listed once", field, u, j)
		}
		seen[key] = i
	}
	switch {
	case s.ServerConcurrency < 0 || s.ServerConcurrency > maxServerConcurrency:
		return fmt.Errorf("server_concurrency: %d is not between 1 and %d", s.ServerConcurrency, maxServerConcurrency)
	case s.ServerTimeoutS < 0 || s.ServerTimeoutS > maxServerTimeoutS:
		return fmt.Errorf("server_timeout_s: %g is not between 0 and %d seconds", s.ServerTimeoutS, maxServerTimeoutS)
	case s.ServerRetries != nil && (*s.ServerRetries < 0 || *s.ServerRetries > maxServerRetries):
		return fmt.Errorf("server_retries: %d is not between 0 and %d", *s.ServerRetries, maxServerRetries)
	case s.ServerAPIKeyEnv != "" && !envName.MatchString(s.ServerAPIKeyEnv):
		return fmt.Errorf("server_api_key_env: %q is not an environment variable's name (it names the variable holding the key, never the key)", s.ServerAPIKeyEnv)
	}
	switch s.ServerFrames {
	case "", ServerFramesImages:
	case ServerFramesVideo:
		if !framesRoles[role] {
			return fmt.Errorf("server_frames: \"video\" is for vlm_reader and screen_reader, whose requests carry a video's frames; %s sends none together", role)
		}
	default:
		return fmt.Errorf("server_frames: %q is neither \"images\" (one image_url part a frame, the default) nor \"video\" (one video_url part holding the frames)", s.ServerFrames)
	}
	if len(s.ServerChatTemplateKwargs) > 0 {
		if role == Role("asr") {
			return fmt.Errorf("server_chat_template_kwargs: asr's server is asked /v1/audio/transcriptions, which has no chat template")
		}
		if _, err := canonicalKwargs(s.ServerChatTemplateKwargs); err != nil {
			return fmt.Errorf("server_chat_template_kwargs: %v", err)
		}
	}
	return nil
}

// checkServerURL checks one server base URL, field naming it in the error:
// an http(s) URL, on the loopback unless allowRemote.
func checkServerURL(field, raw string, allowRemote bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: %q is not an http(s) base URL such as http://127.0.0.1:8000/v1", field, raw)
	}
	if !allowRemote && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("%s: %s is not a loopback address; vidscreen sends nothing off this machine unless the entry sets \"server_allow_remote\": true", field, u.Hostname())
	}
	return nil
}

// sameServedReader refuses a role's list of entries in which two served
// entries are the same reader (the same server_model, chat template
// arguments and frames) on different servers: a list of entries means
// extra readers (lm_reader#2...), so such a list, written to spread one
// model over its replicas, would silently add readers. The error starts
// with the entry's index, for the caller to prefix "roles.ROLE".
func sameServedReader(es []RoleSpec) error {
	seen := map[ServerSettings]int{}
	for k, e := range es {
		if !e.Served() {
			continue
		}
		s := e.ServerSettings()
		id := ServerSettings{Model: s.Model, ChatTemplateKwargs: s.ChatTemplateKwargs, Frames: s.Frames} // the reader, whatever its URL
		if j, ok := seen[id]; ok {
			return fmt.Errorf("[%d].server_model: %q is also entry [%d]'s; a list of entries means extra readers (each a reader of its own in the cards), not replicas. For replicas of one model write one entry with \"servers\": [%q, %q, ...]; for a second reader name another model",
				k, s.Model, j, es[j].ServerURLs()[0], s.URL)
		}
		seen[id] = k
	}
	return nil
}

// loopbackHost reports whether host names this machine.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
