package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// configName is the file transformers reads beside tokenizer.json for the
// options that are not part of the tokenizers library's format.
const configName = "tokenizer_config.json"

// readConfig reads, from the tokenizer_config.json beside the
// tokenizer.json at path, the one option of it that changes what this
// package computes: clean_up_tokenization_spaces, which transformers
// (Python and JavaScript alike) applies to every decoded text after the
// file's decoder (" ." to ".", " n't" to "n't"...). Whisper's and T5's
// files set it to true, Qwen's and Gemma's to false. The other options
// (special tokens, chat template, model_max_length) are read by the
// packages that use them. A missing file, or a file without the field,
// leaves Decode as the tokenizer.json alone makes it.
func (t *Tokenizer) readConfig(path string) error {
	cfg := filepath.Join(filepath.Dir(path), configName)
	data, err := os.ReadFile(cfg)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load tokenizer: %w", err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("%s: %w", cfg, err)
	}
	raw, ok := obj["clean_up_tokenization_spaces"]
	if !ok {
		return nil
	}
	var on *bool
	if err := json.Unmarshal(raw, &on); err != nil || on == nil {
		return fmt.Errorf("%s: field \"clean_up_tokenization_spaces\" is %s, want true or false", cfg, raw)
	}
	t.cleanUp = on
	return nil
}
