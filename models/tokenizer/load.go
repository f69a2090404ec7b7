package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Load reads a HF tokenizer.json file, and from the tokenizer_config.json
// beside it, if there is one, clean_up_tokenization_spaces (see
// readConfig).
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := fromJSON(data, path)
	if err != nil {
		return nil, err
	}
	if err := t.readConfig(path); err != nil {
		return nil, err
	}
	return t, nil
}

// FromJSON reads the contents of a tokenizer.json file.
func FromJSON(data []byte) (*Tokenizer, error) {
	return fromJSON(data, "tokenizer.json")
}

// component is any tagged part of the file: {"type": "...", ...}.
type component struct {
	Type string `json:"type"`
	raw  json.RawMessage
}

func (c *component) UnmarshalJSON(b []byte) error {
	c.raw = append(c.raw[:0], b...)
	var t struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	c.Type = t.Type
	return nil
}

type fileJSON struct {
	AddedTokens   []json.RawMessage `json:"added_tokens"`
	Normalizer    *component        `json:"normalizer"`
	PreTokenizer  *component        `json:"pre_tokenizer"`
	Model         json.RawMessage   `json:"model"`
	PostProcessor *component        `json:"post_processor"`
	Decoder       *component        `json:"decoder"`
	Truncation    json.RawMessage   `json:"truncation"`
	Padding       json.RawMessage   `json:"padding"`
}

// addedTokenJSON is one entry of added_tokens.
type addedTokenJSON struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type truncationJSON struct {
	Direction string `json:"direction"`
	MaxLength int    `json:"max_length"`
	Strategy  string `json:"strategy"`
	Stride    int    `json:"stride"`
}

type paddingJSON struct {
	Strategy        json.RawMessage `json:"strategy"`
	Direction       string          `json:"direction"`
	PadToMultipleOf *int            `json:"pad_to_multiple_of"`
	PadID           int             `json:"pad_id"`
	PadTypeID       int             `json:"pad_type_id"`
	PadToken        string          `json:"pad_token"`
}

// absent reports whether an optional part of the file is missing or null.
func absent(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// maxTokenID bounds the ids a file may use. The tables indexed by id are
// as long as the largest one, so a corrupt id (2,000,000,000) would ask
// for tens of gigabytes; the largest real vocabularies have about 260,000
// entries.
const maxTokenID = 1<<22 - 1

// maxSequence bounds the lengths a file may ask padding and truncation
// for: a fixed padding length is allocated for every encoding. Real files
// ask for 512 to 131,072 tokens.
const maxSequence = 1 << 20

func checkID(id int) error {
	if id < 0 || id > maxTokenID {
		return fmt.Errorf("id %d outside 0..%d", id, maxTokenID)
	}
	return nil
}

// length checks a padding or truncation length against maxSequence.
func (l loader) length(field string, n int) error {
	if n < 0 || n > maxSequence {
		return fmt.Errorf("%s: %s %d outside 0..%d", l.name, field, n, maxSequence)
	}
	return nil
}

// loader carries the file name into the component builders, for errors.
type loader struct{ name string }

func (l loader) unsupported(kind, typ string) error {
	return fmt.Errorf("%s: %s type %q not supported", l.name, kind, typ)
}

func (l loader) bad(kind, typ string, err error) error {
	return fmt.Errorf("%s: %s %q: %w", l.name, kind, typ, err)
}

func fromJSON(data []byte, path string) (*Tokenizer, error) {
	l := loader{name: path}
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", l.name, err)
	}
	if err := l.fields(data, "top level", "version", "truncation?", "padding?", "added_tokens", "normalizer?",
		"pre_tokenizer?", "model", "post_processor?", "decoder?"); err != nil {
		return nil, err
	}
	t := &Tokenizer{
		name:        l.name,
		addedByText: map[string]*addedToken{},
		addedByID:   map[int]*addedToken{},
		normKey:     map[*addedToken]string{},
	}
	var err error
	if f.Normalizer != nil {
		if t.normalizer, err = l.normalizer(f.Normalizer); err != nil {
			return nil, err
		}
	}
	if f.PreTokenizer != nil {
		if t.pre, err = l.preTokenizer(f.PreTokenizer); err != nil {
			return nil, err
		}
	}
	if absent(f.Model) {
		return nil, fmt.Errorf("%s: no model", l.name)
	}
	if t.model, err = l.model(f.Model, t); err != nil {
		return nil, err
	}
	for i, raw := range f.AddedTokens {
		where := fmt.Sprintf("added_tokens[%d]", i)
		if err := l.fields(raw, where, "id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"); err != nil {
			return nil, err
		}
		var a addedTokenJSON
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", l.name, where, err)
		}
		if err := checkID(a.ID); err != nil {
			return nil, fmt.Errorf("%s: added_tokens[%d] %q: %w", l.name, i, a.Content, err)
		}
		at := &addedToken{id: a.ID, content: a.Content, singleWord: a.SingleWord, lstrip: a.LStrip,
			rstrip: a.RStrip, normalized: a.Normalized, special: a.Special}
		t.added = append(t.added, at)
		t.addedByText[at.content] = at
		t.addedByID[at.id] = at
	}
	t.indexTokens()
	var raw, normalized []*addedToken
	for _, a := range t.added {
		if a.normalized {
			key := a.content
			if t.normalizer != nil {
				var nt, tmp normText
				nt.setOriginal(a.content, 0)
				t.normalizer.normalize(&nt, &tmp)
				key = string(nt.s)
			}
			t.normKey[a] = key
			normalized = append(normalized, a)
		} else {
			raw = append(raw, a)
		}
	}
	t.rawAdded = newAddedMatcher(raw, contentOf)
	t.normAdded = newAddedMatcher(normalized, t.normKeyOf)
	if f.PostProcessor != nil {
		if t.post, err = l.postProcessor(f.PostProcessor, t); err != nil {
			return nil, err
		}
	}
	if f.Decoder != nil {
		if t.decoder, err = l.decoder(f.Decoder); err != nil {
			return nil, err
		}
	}
	if b, ok := t.model.(*bpe); ok && b.suffix != "" && !hasBPEDecoder(t.decoder) {
		t.eowSuffix = b.suffix
	}
	if !absent(f.Truncation) {
		if err := l.fields(f.Truncation, "truncation", "direction", "max_length", "strategy", "stride"); err != nil {
			return nil, err
		}
		tr := &truncationJSON{}
		if err := json.Unmarshal(f.Truncation, tr); err != nil {
			return nil, fmt.Errorf("%s: truncation: %w", l.name, err)
		}
		if err := l.length("truncation max_length", tr.MaxLength); err != nil {
			return nil, err
		}
		if err := l.length("truncation stride", tr.Stride); err != nil {
			return nil, err
		}
		t.truncation = &Truncation{MaxLength: tr.MaxLength, Stride: tr.Stride}
		switch tr.Strategy {
		case "", "LongestFirst":
		case "OnlyFirst":
			t.truncation.Strategy = OnlyFirst
		case "OnlySecond":
			t.truncation.Strategy = OnlySecond
		default:
			return nil, l.unsupported("truncation strategy", tr.Strategy)
		}
		if t.truncation.Direction, err = l.direction(tr.Direction); err != nil {
			return nil, err
		}
	}
	if !absent(f.Padding) {
		if err := l.fields(f.Padding, "padding", "strategy", "direction", "pad_to_multiple_of?", "pad_id", "pad_type_id", "pad_token"); err != nil {
			return nil, err
		}
		p := &paddingJSON{}
		if err := json.Unmarshal(f.Padding, p); err != nil {
			return nil, fmt.Errorf("%s: padding: %w", l.name, err)
		}
		t.padding = &Padding{PadID: p.PadID, PadTypeID: p.PadTypeID, PadToken: p.PadToken}
		if p.PadToMultipleOf != nil {
			if err := l.length("padding pad_to_multiple_of", *p.PadToMultipleOf); err != nil {
				return nil, err
			}
			t.padding.PadToMultipleOf = *p.PadToMultipleOf
		}
		if t.padding.Direction, err = l.direction(p.Direction); err != nil {
			return nil, err
		}
		var fixed struct {
			Fixed *int `json:"Fixed"`
		}
		var name string
		switch {
		case json.Unmarshal(p.Strategy, &name) == nil && name == "BatchLongest":
		case json.Unmarshal(p.Strategy, &fixed) == nil && fixed.Fixed != nil:
			if err := l.length("padding strategy Fixed", *fixed.Fixed); err != nil {
				return nil, err
			}
			t.padding.Length = *fixed.Fixed
		default:
			return nil, l.unsupported("padding strategy", string(p.Strategy))
		}
	}
	return t, nil
}

func hasBPEDecoder(d decoder) bool {
	switch d := d.(type) {
	case bpeDecoder:
		return true
	case sequenceDecoder:
		for _, x := range d {
			if hasBPEDecoder(x) {
				return true
			}
		}
	}
	return false
}

func (l loader) direction(s string) (Direction, error) {
	switch s {
	case "", "Right":
		return Right, nil
	case "Left":
		return Left, nil
	}
	return Right, l.unsupported("direction", s)
}

// pattern is Split's and Replace's {"String": s} or {"Regex": r}.
type pattern struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// UnmarshalJSON reads the pattern, refusing any other field and a null
// String or Regex: the loader would otherwise match nothing, silently.
func (p *pattern) UnmarshalJSON(b []byte) error {
	var obj map[string]*string
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("pattern: %w", err)
	}
	*p = pattern{}
	for k, v := range obj {
		switch {
		case k != "String" && k != "Regex":
			return fmt.Errorf("pattern: field %q is not one the loader understands (it reads String, Regex)", k)
		case v == nil:
			return fmt.Errorf("pattern: field %q is null", k)
		case k == "String":
			p.String = v
		default:
			p.Regex = v
		}
	}
	if len(obj) != 1 {
		return fmt.Errorf("pattern has %d of String and Regex, want one", len(obj))
	}
	return nil
}

func (p pattern) matcher() (matcher, error) {
	switch {
	case p.String != nil:
		return newMatcher(*p.String, "", false)
	case p.Regex != nil:
		return newMatcher("", *p.Regex, true)
	}
	return nil, errors.New("pattern has neither String nor Regex")
}
