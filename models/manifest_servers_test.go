package models

import (
	"reflect"
	"strings"
	"testing"
)

// TestManifestServers: "servers" lists replicas of one model, each URL
// checked as "server" is; a config that could mean replicas or extra
// readers (server and servers both, a list of entries naming one model
// on several servers) is refused with the file, the line, the field and
// what to write.
func TestManifestServers(t *testing.T) {
	t.Parallel()
	const two = `"servers": ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"], "server_model": "Qwen/Qwen3-8B"`
	for _, tc := range []struct {
		name, json string
		wantErr    string
	}{
		{"two replicas", `{"roles": {"lm_reader": {` + two + `}}}`, ""},
		{"replicas with the client keys", `{"roles": {"vlm_reader": {` + two + `, "server_concurrency": 32, "server_frames": "video"}}}`, ""},
		{"one replica", `{"roles": {"lm_reader": {"servers": ["http://localhost:8000/v1"], "server_model": "m"}}}`, ""},
		{"extra readers of other models", `{"roles": {"lm_reader": [{` + two + `}, {"server": "http://127.0.0.1:8002/v1", "server_model": "other"}]}}`, ""},
		{"server and servers", "{\"roles\": {\n\"lm_reader\": {\"server\": \"http://127.0.0.1:8000/v1\", " + two + "}}}", `line 2: roles.lm_reader.servers: set beside server; write "servers": [URL, ...] alone for replicas`},
		{"an empty list", `{"roles": {"lm_reader": {"servers": [], "server_model": "m"}}}`, "roles.lm_reader.servers: an empty list"},
		{"a remote replica", `{"roles": {"lm_reader": {"servers": ["http://127.0.0.1:8000/v1", "http://10.0.0.7:8000/v1"], "server_model": "m"}}}`, "roles.lm_reader.servers[1]: 10.0.0.7 is not a loopback address"},
		{"a remote replica allowed", `{"roles": {"lm_reader": {"servers": ["http://10.0.0.6:8000/v1", "http://10.0.0.7:8000/v1"], "server_model": "m", "server_allow_remote": true}}}`, ""},
		{"not a URL", `{"roles": {"lm_reader": {"servers": ["http://127.0.0.1:8000/v1", "127.0.0.1:8001"], "server_model": "m"}}}`, `roles.lm_reader.servers[1]: "127.0.0.1:8001" is not an http(s) base URL`},
		{"a replica twice", `{"roles": {"lm_reader": {"servers": ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/"], "server_model": "m"}}}`, "roles.lm_reader.servers[1]: http://127.0.0.1:8000/v1/ is servers[0] again"},
		{"no model", `{"roles": {"lm_reader": {"servers": ["http://127.0.0.1:8000/v1"]}}}`, "roles.lm_reader.server_model: missing"},
		{"servers and dir", `{"roles": {"lm_reader": {"dir": "q", ` + two + `}}}`, `roles.lm_reader.server: given with dir "q"`},
		{"replicas of asr", `{"roles": {"asr": {"servers": ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"], "server_model": "w"}}}`, `roles.asr.servers: asr's client asks one server`},
		{"a list of one model on two servers", "{\"roles\": {\n\"lm_reader\": [{\"server\": \"http://127.0.0.1:8000/v1\", \"server_model\": \"m\"}, {\"server\": \"http://127.0.0.1:8001/v1\", \"server_model\": \"m\"}]}}",
			`line 2: roles.lm_reader[1].server_model: "m" is also entry [0]'s; a list of entries means extra readers (each a reader of its own in the cards), not replicas. For replicas of one model write one entry with "servers": ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1", ...]`},
		{"a list mixing replicas and an entry of their model", `{"roles": {"vlm_reader": [{` + two + `}, {"server": "http://127.0.0.1:8002/v1", "server_model": "Qwen/Qwen3-8B"}]}}`, `roles.vlm_reader[1].server_model: "Qwen/Qwen3-8B" is also entry [0]'s`},
		{"a client key with neither", `{"roles": {"lm_reader": {"dir": "q", "server_model": "m"}}}`, "roles.lm_reader.server_model: set without server or servers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
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

// TestServerURLs: an entry's replicas in the manifest's order, its one
// server alone, and the settings' URL the first replica.
func TestServerURLs(t *testing.T) {
	t.Parallel()
	m, err := ParseManifest("/models/models.json", []byte(`{"roles": {
		"lm_reader": {"servers": ["http://127.0.0.1:8001/v1", "http://127.0.0.1:8000/v1"], "server_model": "a"},
		"vlm_reader": {"server": "http://127.0.0.1:9000/v1", "server_model": "b"},
		"captioner": {"dir": "blip"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		role      Role
		urls      []string
		first     string
		wantServe bool
	}{
		{RoleLMReader, []string{"http://127.0.0.1:8001/v1", "http://127.0.0.1:8000/v1"}, "http://127.0.0.1:8001/v1", true},
		{RoleVLMReader, []string{"http://127.0.0.1:9000/v1"}, "http://127.0.0.1:9000/v1", true},
		{RoleCaptioner, nil, "", false},
	} {
		spec := m.Roles[tc.role]
		if got := spec.ServerURLs(); !reflect.DeepEqual(got, tc.urls) {
			t.Errorf("%s: ServerURLs %q, want %q", tc.role, got, tc.urls)
		}
		if got := spec.ServerSettings().URL; got != tc.first {
			t.Errorf("%s: URL %q, want %q", tc.role, got, tc.first)
		}
		if spec.Served() != tc.wantServe {
			t.Errorf("%s: Served %v, want %v", tc.role, spec.Served(), tc.wantServe)
		}
	}
}
