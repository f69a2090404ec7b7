package models

import (
	"fmt"
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
	URL, Model  string
	Concurrency int
	Timeout     time.Duration
	Retries     int
	// APIKeyEnv names the variable the key is read from at run time ("" for
	// none).
	APIKeyEnv   string
	AllowRemote bool
}

// Served reports whether the entry is served by a server.
func (s RoleSpec) Served() bool { return s.Server != "" }

// ServerSettings returns the entry's client settings, defaults filled in.
func (s RoleSpec) ServerSettings() ServerSettings {
	out := ServerSettings{URL: s.Server, Model: s.ServerModel, Concurrency: s.ServerConcurrency,
		Timeout: time.Duration(s.ServerTimeoutS * float64(time.Second)), Retries: DefaultServerRetries,
		APIKeyEnv: s.ServerAPIKeyEnv, AllowRemote: s.ServerAllowRemote}
	if out.Concurrency == 0 {
		out.Concurrency = DefaultServerConcurrency
	}
	if out.Timeout == 0 {
		out.Timeout = DefaultServerTimeout
	}
	if s.ServerRetries != nil {
		out.Retries = *s.ServerRetries
	}
	return out
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
	if s.Server == "" {
		for _, k := range []struct {
			set  bool
			name string
		}{{s.ServerModel != "", "server_model"}, {s.ServerConcurrency != 0, "server_concurrency"}, {s.ServerTimeoutS != 0, "server_timeout_s"},
			{s.ServerRetries != nil, "server_retries"}, {s.ServerAPIKeyEnv != "", "server_api_key_env"}, {s.ServerAllowRemote, "server_allow_remote"}} {
			if k.set {
				return fmt.Errorf("%s: set without server (the base URL of the server it tunes)", k.name)
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
	u, err := url.Parse(s.Server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("server: %q is not an http(s) base URL such as http://127.0.0.1:8000/v1", s.Server)
	}
	if !s.ServerAllowRemote && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("server: %s is not a loopback address; vidscreen sends nothing off this machine unless the entry sets \"server_allow_remote\": true", u.Hostname())
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
