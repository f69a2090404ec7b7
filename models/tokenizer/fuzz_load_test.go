package tokenizer

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzFromJSON feeds arbitrary bytes (and mutations of real tokenizer.json
// files) to the loader: it must never panic, and a tokenizer it builds must
// encode text without panicking.
func FuzzFromJSON(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := FromJSON(data)
		if err != nil {
			return
		}
		tok.Encode("Hello, world: a question about the video?", true)
	})
}
