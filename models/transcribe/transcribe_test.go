package transcribe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenRefuses checks the models directories Open refuses before
// loading anything, each by what is wrong.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, manifest, err string
	}{
		{"no asr role", `{"roles": {"text_embed": {"dir": "te"}}}`, "no asr role"},
		{"a served asr", `{"roles": {"asr": {"server": "http://127.0.0.1:8000/v1", "server_model": "openai/whisper-small"}}}`, "served by http://127.0.0.1:8000/v1"},
		{"a language on another role", `{"roles": {"text_embed": {"dir": "te", "language": "en"}}}`, "only the asr role takes a language"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(c.manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir, Options{})
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}
