package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCleanUpTokenizationSpaces: tokenizer_config.json's
// clean_up_tokenization_spaces beside the file decides whether Decode
// removes the spaces before punctuation and contractions, as transformers
// does after the file's decoder; anything but true or false is an error
// naming the file and the field.
func TestConfigCleanUpTokenizationSpaces(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "gpt2_tiny.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, config, want, err string
	}{
		{name: "no config", want: "it 's a test ."},
		{name: "config without the field", config: `{"model_max_length": 1024}`, want: "it 's a test ."},
		{name: "true", config: `{"clean_up_tokenization_spaces": true}`, want: "it's a test."},
		{name: "false", config: `{"clean_up_tokenization_spaces": false}`, want: "it 's a test ."},
		{name: "null", config: `{"clean_up_tokenization_spaces": null}`, err: `tokenizer_config.json: field "clean_up_tokenization_spaces" is null, want true or false`},
		{name: "string", config: `{"clean_up_tokenization_spaces": "yes"}`, err: `tokenizer_config.json: field "clean_up_tokenization_spaces" is "yes", want true or false`},
		{name: "not JSON", config: `{`, err: `tokenizer_config.json: unexpected end of JSON input`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "tokenizer.json")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if c.config != "" {
				if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(c.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tok, err := Load(path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), dir) {
					t.Fatalf("Load error %v, want one naming %s and containing %q", err, dir, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e, err := tok.Encode("it 's a test .", false)
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Decode(e.IDs, true); got != c.want {
				t.Errorf("Decode = %q, want %q", got, c.want)
			}
		})
	}
}
