package vidomni

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
)

// The human labels of a sentence (paper, section 3.3: majority vote of the
// annotators).
const (
	Correct   = "Correct"
	Incorrect = "Incorrect"
	Unknown   = "Unknown"
)

// Categories are the ten word-level error categories of the paper's table 7:
// five static-frame ones, then five temporal ones.
var Categories = []string{
	"Object", "Relation", "Location", "Direction", "Illusion",
	"Action", "Order", "Causality", "Frequency", "State Change",
}

// Types names the five complexity types (paper, section 3.2), index type-1.
var Types = []string{"Static World", "Body Motion", "Hand-Object Interaction", "Crowd Action", "Multi-Scene Dynamics"}

// A Sentence is one sentence of a caption with its human label.
type Sentence struct {
	Text  string `json:"text"`
	Label string `json:"label"` // Correct, Incorrect or Unknown
	// Categories are the error categories of an Incorrect sentence, in
	// the canonical spelling of Categories.
	Categories []string `json:"categories,omitempty"`
}

// A Pair is one video-caption pair: a line of the labels file.
type Pair struct {
	ID     string // "pair"
	Video  string
	Source string // the model that wrote the caption
	Type   int    // complexity type 1-5
	// Duration is the video's length in seconds; 0 when the file gave a
	// bracket name instead (Bracket is then set).
	Duration float64
	// Bracket is the duration bracket: given by the file, or filled in
	// by Score from Duration and the configured brackets.
	Bracket   string
	Sentences []Sentence
	File      string // the labels file, for messages
	Line      int    // 1-based line in File
}

// labelsLine is the JSON of one labels line; raw fields are checked one by
// one so an error can name the field.
type labelsLine struct {
	Pair      *string          `json:"pair"`
	Video     *string          `json:"video"`
	Source    *string          `json:"source"`
	Type      *json.RawMessage `json:"type"`
	Duration  *json.RawMessage `json:"duration"`
	Sentences *[]struct {
		Text       *string   `json:"text"`
		Label      *string   `json:"label"`
		Categories *[]string `json:"categories"`
	} `json:"sentences"`
}

// ReadLabels reads a labels JSONL file: one pair a line, {"pair", "video",
// "source", "type": 1-5, "duration": seconds or a bracket name,
// "sentences": [{"text", "label": Correct|Incorrect|Unknown, "categories"}]}.
// Blank lines are skipped and unknown fields ignored. The first bad line
// stops it with a *harness.ParseError naming name, the line and the field.
func ReadLabels(r io.Reader, name string) ([]*Pair, error) {
	var pairs []*Pair
	seen := map[string]int{}
	err := eachLine(r, name, func(line int, data []byte) error {
		p, err := parseLabels(data)
		if err != nil {
			err.File, err.Line = name, line
			return err
		}
		p.File, p.Line = name, line
		if first, dup := seen[p.ID]; dup {
			return &harness.ParseError{File: name, Line: line, Field: "pair",
				Err: fmt.Errorf("%w: %q is also on line %d", harness.ErrDuplicateID, p.ID, first)}
		}
		seen[p.ID] = line
		pairs = append(pairs, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		return nil, &harness.ParseError{File: name, Err: fmt.Errorf("%w: the file holds no pairs", harness.ErrNoItems)}
	}
	return pairs, nil
}

func parseLabels(data []byte) (*Pair, *harness.ParseError) {
	var l labelsLine
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, jsonFieldError(err)
	}
	p := &Pair{}
	for _, f := range []struct {
		name string
		src  *string
		dst  *string
	}{{"pair", l.Pair, &p.ID}, {"video", l.Video, &p.Video}, {"source", l.Source, &p.Source}} {
		if f.src == nil {
			return nil, &harness.ParseError{Field: f.name, Err: harness.ErrMissingField}
		}
		if strings.TrimSpace(*f.src) == "" {
			return nil, &harness.ParseError{Field: f.name, Err: harness.ErrEmptyField}
		}
		*f.dst = *f.src
	}
	if l.Type == nil {
		return nil, &harness.ParseError{Field: "type", Err: harness.ErrMissingField}
	}
	var t float64
	if err := json.Unmarshal(*l.Type, &t); err != nil || t != math.Trunc(t) || t < 1 || t > 5 {
		return nil, &harness.ParseError{Field: "type", Err: fmt.Errorf("%w: %s; want an integer 1-5 (the complexity type)", harness.ErrBadValue, *l.Type)}
	}
	p.Type = int(t)
	if l.Duration == nil {
		return nil, &harness.ParseError{Field: "duration", Err: harness.ErrMissingField}
	}
	var secs float64
	var bracket string
	switch {
	case json.Unmarshal(*l.Duration, &secs) == nil:
		if !(secs > 0) || math.IsInf(secs, 0) {
			return nil, &harness.ParseError{Field: "duration", Err: fmt.Errorf("%w: %s; want seconds > 0", harness.ErrBadValue, *l.Duration)}
		}
		p.Duration = secs
	case json.Unmarshal(*l.Duration, &bracket) == nil && strings.TrimSpace(bracket) != "":
		p.Bracket = strings.TrimSpace(bracket)
	default:
		return nil, &harness.ParseError{Field: "duration", Err: fmt.Errorf("%w: %s; want seconds or a bracket name", harness.ErrFieldType, *l.Duration)}
	}
	if l.Sentences == nil {
		return nil, &harness.ParseError{Field: "sentences", Err: harness.ErrMissingField}
	}
	if len(*l.Sentences) == 0 {
		return nil, &harness.ParseError{Field: "sentences", Err: fmt.Errorf("%w: a caption has at least one sentence", harness.ErrEmptyField)}
	}
	for i, s := range *l.Sentences {
		field := fmt.Sprintf("sentences[%d]", i)
		if s.Text == nil {
			return nil, &harness.ParseError{Field: field + ".text", Err: harness.ErrMissingField}
		}
		if s.Label == nil {
			return nil, &harness.ParseError{Field: field + ".label", Err: harness.ErrMissingField}
		}
		label, ok := canonicalLabel(*s.Label)
		if !ok {
			return nil, &harness.ParseError{Field: field + ".label", Err: fmt.Errorf("%w: %q; want Correct, Incorrect or Unknown", harness.ErrBadValue, *s.Label)}
		}
		st := Sentence{Text: *s.Text, Label: label}
		if s.Categories != nil {
			if len(*s.Categories) > 0 && label != Incorrect {
				return nil, &harness.ParseError{Field: field + ".categories", Err: fmt.Errorf("%w: error categories on a sentence labelled %s; only Incorrect sentences have them", harness.ErrBadValue, label)}
			}
			for k, c := range *s.Categories {
				cc, ok := CanonicalCategory(c)
				if !ok {
					return nil, &harness.ParseError{Field: fmt.Sprintf("%s.categories[%d]", field, k), Err: fmt.Errorf("%w: %q; want one of %s", harness.ErrBadValue, c, strings.Join(Categories, ", "))}
				}
				if !contains(st.Categories, cc) {
					st.Categories = append(st.Categories, cc)
				}
			}
		}
		p.Sentences = append(p.Sentences, st)
	}
	return p, nil
}

func canonicalLabel(s string) (string, bool) {
	for _, l := range []string{Correct, Incorrect, Unknown} {
		if strings.EqualFold(strings.TrimSpace(s), l) {
			return l, true
		}
	}
	return "", false
}

// CanonicalCategory returns the spelling of Categories for c, matched
// without regard to case, spaces, hyphens or underscores ("state_change"
// is "State Change").
func CanonicalCategory(c string) (string, bool) {
	key := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == ' ' || r == '_' || r == '-' {
				return -1
			}
			return r
		}, strings.ToLower(s))
	}
	k := key(c)
	for _, cat := range Categories {
		if key(cat) == k {
			return cat, true
		}
	}
	return "", false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// eachLine calls fn with every non-blank line of r (1-based line numbers),
// refusing invalid UTF-8, and stops at fn's first error.
func eachLine(r io.Reader, name string, fn func(line int, data []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		data, err := br.ReadBytes('\n')
		if len(data) == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("read %s: %w", name, err)
		}
		if len(bytes.TrimSpace(data)) > 0 {
			if !utf8.Valid(data) {
				return &harness.ParseError{File: name, Line: line, Err: harness.ErrInvalidUTF8}
			}
			if ferr := fn(line, data); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
}

// jsonFieldError turns an encoding/json error into a ParseError naming the
// field when json knows it.
func jsonFieldError(err error) *harness.ParseError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return &harness.ParseError{Field: te.Field, Err: fmt.Errorf("%w: %s where %s was expected", harness.ErrFieldType, te.Value, te.Type)}
	}
	return &harness.ParseError{Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
}
