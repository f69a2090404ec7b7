package models

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/models/tokenizer"
)

// LoadTokenizer reads a HF tokenizer.json. The file's own padding and
// truncation settings are taken off the encoder, since the runners pad to
// length buckets and truncate to the role's max_length themselves, but are
// kept: image_text reads them (filePadding) to pad as the file says, which
// is how SigLIP's files ask for max_length padding.
func LoadTokenizer(path string) (Tokenizer, error) {
	t, err := tokenizer.Load(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	h := &hfTokenizer{t: t, path: path, pad: t.Padding(), trunc: t.Truncation()}
	t.SetPadding(nil)
	t.SetTruncation(nil)
	return h, nil
}

// hfTokenizer adapts *tokenizer.Tokenizer to Tokenizer; pad and trunc are
// the file's padding and truncation (nil when it has none). siglip marks
// SigLIP v1's spiece.model, whose slow SiglipTokenizer rewrites each text
// first (siglipCanonical) and strips decoded text.
type hfTokenizer struct {
	t      *tokenizer.Tokenizer
	path   string
	pad    *tokenizer.Padding
	trunc  *tokenizer.Truncation
	siglip bool
}

func (h *hfTokenizer) Encode(text string, addSpecial bool) ([]int, error) {
	if h.siglip {
		text = siglipCanonical(text)
	}
	e, err := h.t.Encode(text, addSpecial)
	if err != nil {
		return nil, err
	}
	return e.IDs, nil
}

func (h *hfTokenizer) TokenID(s string) (int, bool) { return h.t.TokenToID(s) }

func (h *hfTokenizer) Decode(ids []int) string {
	if h.siglip {
		return strings.TrimSpace(h.t.Decode(ids, true))
	}
	return h.t.Decode(ids, true)
}
