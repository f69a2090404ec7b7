package models

import (
	"fmt"

	"github.com/vidscreen/vidscreen/models/tokenizer"
)

// LoadTokenizer reads a HF tokenizer.json. The file's own padding and
// truncation settings are removed: the runners pad to length buckets and
// truncate to the role's max_length themselves.
func LoadTokenizer(path string) (Tokenizer, error) {
	t, err := tokenizer.Load(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	t.SetPadding(nil)
	t.SetTruncation(nil)
	return hfTokenizer{t}, nil
}

// hfTokenizer adapts *tokenizer.Tokenizer to Tokenizer.
type hfTokenizer struct{ t *tokenizer.Tokenizer }

func (h hfTokenizer) Encode(text string, addSpecial bool) ([]int, error) {
	e, err := h.t.Encode(text, addSpecial)
	if err != nil {
		return nil, err
	}
	return e.IDs, nil
}

func (h hfTokenizer) TokenID(s string) (int, bool) { return h.t.TokenToID(s) }

func (h hfTokenizer) Decode(ids []int) string { return h.t.Decode(ids, true) }
