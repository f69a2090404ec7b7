package models

import (
	"testing"
)

// FuzzParseManifest feeds arbitrary bytes to the models.json parser: it must
// never panic, and a manifest it accepts has only known roles, each with a
// folder or a server.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"roles": {"text_embed": {"dir": "bge"}, "lm_reader": {"server": "http://127.0.0.1:8000/v1", "model": "m"}}}`))
	f.Add([]byte(`{"roles": {"captioner": {"dir": "captioner", "max_new_tokens": 6}}}`))
	f.Add([]byte("{\"roles\": {\n\"lm_reader\": {\"dir\": \"lm\",}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("/models/models.json", data)
		if err != nil {
			return
		}
		for role, spec := range m.Roles {
			if _, ok := layout[role]; !ok {
				t.Fatalf("accepted unknown role %q", role)
			}
			if spec.Dir == "" && spec.Server == "" {
				t.Fatalf("accepted role %s with neither dir nor server", role)
			}
		}
	})
}
