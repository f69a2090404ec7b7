package models

import (
	"strings"
	"testing"
	"time"
)

// TestManifestServerKeys: every servable role takes a server, in one entry
// or each entry of a list, with the client keys; a bad value is an error
// naming the manifest, the line and the field.
func TestManifestServerKeys(t *testing.T) {
	const url = `"server": "http://127.0.0.1:8000/v1", "server_model": "Qwen/Qwen3-VL-8B-Instruct"`
	for _, tc := range []struct {
		name, json string
		wantErr    string
	}{
		{"a served captioner", `{"roles": {"captioner": {` + url + `}}}`, ""},
		{"every client key", `{"roles": {"vlm_reader": {` + url + `, "server_concurrency": 64, "server_timeout_s": 30, "server_retries": 0, "server_api_key_env": "VLLM_API_KEY"}}}`, ""},
		{"each entry of a list", `{"roles": {"vlm_reader": [{` + url + `}, {"server": "http://localhost:8001/v1", "server_model": "b", "server_concurrency": 2}]}}`, ""},
		{"a remote server allowed", `{"roles": {"lm_reader": {"server": "http://10.0.0.7:8000/v1", "server_model": "m", "server_allow_remote": true}}}`, ""},
		{"a remote server not allowed", "{\"roles\": {\n\"lm_reader\": {\"server\": \"http://10.0.0.7:8000/v1\", \"server_model\": \"m\"}}}", `line 2: roles.lm_reader.server: 10.0.0.7 is not a loopback address`},
		{"no model name", `{"roles": {"lm_reader": {"server": "http://127.0.0.1:8000/v1"}}}`, "roles.lm_reader.server_model: missing"},
		{"not a URL", `{"roles": {"lm_reader": {"server": "127.0.0.1:8000", "server_model": "m"}}}`, `roles.lm_reader.server: "127.0.0.1:8000" is not an http(s) base URL`},
		{"dir and server", `{"roles": {"lm_reader": {"dir": "qwen", ` + url + `}}}`, `roles.lm_reader.server: given with dir "qwen"`},
		{"an encoder", `{"roles": {"image_text": {` + url + `}}}`, "roles.image_text.server: image_text cannot be served"},
		{"a negative concurrency", `{"roles": {"lm_reader": {` + url + `, "server_concurrency": -1}}}`, "roles.lm_reader.server_concurrency: -1 is not between 1 and 4096"},
		{"a timeout in milliseconds", `{"roles": {"lm_reader": {` + url + `, "server_timeout_s": 300000}}}`, "server_timeout_s: 300000 is not between 0 and 86400 seconds"},
		{"negative retries", `{"roles": {"lm_reader": {` + url + `, "server_retries": -2}}}`, "server_retries: -2 is not between 0 and 100"},
		{"a key where its variable goes", `{"roles": {"lm_reader": {` + url + `, "server_api_key_env": "sk-abc123"}}}`, `server_api_key_env: "sk-abc123" is not an environment variable's name`},
		{"a client key without a server", `{"roles": {"lm_reader": {"dir": "qwen", "server_concurrency": 4}}}`, "roles.lm_reader.server_concurrency: set without server"},
		{"a bad entry of a list names its index", `{"roles": {"vlm_reader": [{` + url + `}, {` + url + `, "server_retries": -1}]}}`, "roles.vlm_reader[1].server_retries"},
		{"a string where a number goes", `{"roles": {"lm_reader": {` + url + `, "server_timeout_s": "5m"}}}`, "field roles.lm_reader.server_timeout_s: want float64, got JSON string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest("/models/models.json", []byte(tc.json))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "/models/models.json") {
				t.Fatalf("error %v, want one naming the file and containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestServerSettingsDefaults: unset keys take the documented defaults, and
// server_retries 0 means no retries, not the default.
func TestServerSettingsDefaults(t *testing.T) {
	m, err := ParseManifest("/models/models.json", []byte(`{"roles": {
		"lm_reader": {"server": "http://127.0.0.1:8000/v1", "server_model": "a"},
		"vlm_reader": {"server": "http://127.0.0.1:8000/v1", "server_model": "b", "server_concurrency": 64, "server_timeout_s": 1.5, "server_retries": 0, "server_api_key_env": "K"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		role Role
		want ServerSettings
	}{
		{RoleLMReader, ServerSettings{URL: "http://127.0.0.1:8000/v1", Model: "a", Concurrency: 8, Timeout: 5 * time.Minute, Retries: 4, Frames: ServerFramesImages}},
		{RoleVLMReader, ServerSettings{URL: "http://127.0.0.1:8000/v1", Model: "b", Concurrency: 64, Timeout: 1500 * time.Millisecond, Retries: 0, APIKeyEnv: "K", Frames: ServerFramesImages}},
	} {
		if got := m.Roles[tc.role].ServerSettings(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.role, got, tc.want)
		}
	}
}

// TestManifestChatTemplateKwargs: server_chat_template_kwargs is a JSON
// object, carried canonical (keys sorted, no space, numbers as written)
// whatever the manifest's spacing and order; bad JSON, a value that is not
// an object, the key without a server and the key on asr (whose endpoint
// has no chat template) are errors naming the manifest, the line and the
// field.
func TestManifestChatTemplateKwargs(t *testing.T) {
	t.Parallel()
	const url = `"server": "http://127.0.0.1:8000/v1", "server_model": "Qwen/Qwen3-8B"`
	for _, tc := range []struct {
		name, kwargs string
		role         string
		want         string // the canonical JSON, or the error's text
		bad          bool
	}{
		{"Qwen3's switch", `{"enable_thinking": false}`, "lm_reader", `{"enable_thinking":false}`, false},
		{"keys sorted, numbers as written", "{ \"z\": 1.50, \"a\": {\"y\": [1, 2], \"x\": 12345678901234567890} }", "vlm_reader", `{"a":{"x":12345678901234567890,"y":[1,2]},"z":1.50}`, false},
		{"an empty object: none", `{}`, "captioner", ``, false},
		{"bad JSON", "{\"enable_thinking\": fals}", "lm_reader", "line 3", true},
		{"a string", `"enable_thinking=false"`, "lm_reader", "line 2: roles.lm_reader.server_chat_template_kwargs: want a JSON object", true},
		{"a list", `[{"enable_thinking": false}]`, "lm_reader", "roles.lm_reader.server_chat_template_kwargs: want a JSON object", true},
		{"null", `null`, "screen_reader", "roles.screen_reader.server_chat_template_kwargs: want a JSON object", true},
		{"on asr", `{"enable_thinking": false}`, "asr", "roles.asr.server_chat_template_kwargs: asr's server is asked /v1/audio/transcriptions", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "{\"roles\": {\n\"" + tc.role + "\": {" + url + ",\n\"server_chat_template_kwargs\": " + tc.kwargs + "}}}"
			m, err := ParseManifest("/models/models.json", []byte(doc))
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "/models/models.json") {
					t.Fatalf("error %v, want one naming the file and containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := m.Roles[Role(tc.role)].ServerSettings().ChatTemplateKwargs
			if got != tc.want {
				t.Errorf("ChatTemplateKwargs %s, want %s", got, tc.want)
			}
			if kw, err := DecodeKwargs(got); err != nil || (kw == nil) != (got == "") {
				t.Errorf("DecodeKwargs(%s) = %v, %v", got, kw, err)
			}
		})
	}
	if _, err := ParseManifest("/models/models.json", []byte(`{"roles": {"lm_reader": {"dir": "qwen", "server_chat_template_kwargs": {"enable_thinking": false}}}}`)); err == nil ||
		!strings.Contains(err.Error(), "roles.lm_reader.server_chat_template_kwargs: set without server") {
		t.Errorf("the key without a server: %v", err)
	}
}

// TestManifestServerFrames: server_frames is "images" (the default) or
// "video", on a served vlm_reader or screen_reader; any other value, the key
// without a server, and "video" on a role that sends no video's frames
// together are errors naming the manifest, the line and the field.
func TestManifestServerFrames(t *testing.T) {
	t.Parallel()
	const url = `"server": "http://127.0.0.1:8000/v1", "server_model": "llava-hf/LLaVA-NeXT-Video-7B-hf"`
	for _, tc := range []struct {
		name, role, entry string
		want              string // the settings' Frames, or the error's text
		bad               bool
	}{
		{"the default", "vlm_reader", url, ServerFramesImages, false},
		{"images", "screen_reader", url + `, "server_frames": "images"`, ServerFramesImages, false},
		{"video", "vlm_reader", url + `, "server_frames": "video"`, ServerFramesVideo, false},
		{"video on screen_reader", "screen_reader", url + `, "server_frames": "video"`, ServerFramesVideo, false},
		{"images on the captioner", "captioner", url + `, "server_frames": "images"`, ServerFramesImages, false},
		{"video on the captioner", "captioner", url + `, "server_frames": "video"`, `roles.captioner.server_frames: "video" is for vlm_reader and screen_reader`, true},
		{"video on lm_reader", "lm_reader", url + `, "server_frames": "video"`, `line 2: roles.lm_reader.server_frames: "video" is for vlm_reader`, true},
		{"a typo", "vlm_reader", url + `, "server_frames": "videos"`, `roles.vlm_reader.server_frames: "videos" is neither "images"`, true},
		{"a number", "vlm_reader", url + `, "server_frames": 1`, "roles.vlm_reader.server_frames: want string", true},
		{"without a server", "vlm_reader", `"dir": "llava", "server_frames": "video"`, "roles.vlm_reader.server_frames: set without server", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "{\"roles\": {\n\"" + tc.role + "\": {" + tc.entry + "}}}"
			m, err := ParseManifest("/models/models.json", []byte(doc))
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "/models/models.json") {
					t.Fatalf("error %v, want one naming the file and containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Roles[Role(tc.role)].ServerSettings().Frames; got != tc.want {
				t.Errorf("Frames %q, want %q", got, tc.want)
			}
		})
	}
}
