package vidomni

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// A Verdict is one verifier's answer on one pair: either Labels, one per
// sentence of the caption in order (1 = Incorrect, a hallucination), or the
// raw Reply, parsed by ParseReply when the pair is scored.
type Verdict struct {
	Pair     string
	Verifier string
	Labels   []int8 // nil when the file gave a reply
	Reply    *string
	File     string // the verdicts file, for messages
	Line     int    // 1-based line in File
}

// verdictLine is the JSON of one verdicts line.
type verdictLine struct {
	Pair     *string          `json:"pair"`
	Verifier *string          `json:"verifier"`
	Labels   *json.RawMessage `json:"labels"`
	Reply    *string          `json:"reply"`
}

// ReadVerdicts reads a verdicts JSONL file: one line per pair and
// verifier, {"pair", "verifier", "labels": [0|1, ...]} or {"pair",
// "verifier", "reply": str}. It checks the form of each line; that a pair
// exists and that the labels match its sentences is checked by Score, which
// knows the labels. Errors are *harness.ParseError values naming name, the
// line and the field.
func ReadVerdicts(r io.Reader, name string) ([]*Verdict, error) {
	var out []*Verdict
	err := eachLine(r, name, func(line int, data []byte) error {
		v, perr := parseVerdict(data)
		if perr != nil {
			perr.File, perr.Line = name, line
			return perr
		}
		v.File, v.Line = name, line
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &harness.ParseError{File: name, Err: fmt.Errorf("%w: the file holds no verdicts", harness.ErrNoItems)}
	}
	return out, nil
}

func parseVerdict(data []byte) (*Verdict, *harness.ParseError) {
	var l verdictLine
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, jsonFieldError(err)
	}
	v := &Verdict{}
	for _, f := range []struct {
		name string
		src  *string
		dst  *string
	}{{"pair", l.Pair, &v.Pair}, {"verifier", l.Verifier, &v.Verifier}} {
		if f.src == nil {
			return nil, &harness.ParseError{Field: f.name, Err: harness.ErrMissingField}
		}
		if strings.TrimSpace(*f.src) == "" {
			return nil, &harness.ParseError{Field: f.name, Err: harness.ErrEmptyField}
		}
		*f.dst = *f.src
	}
	switch {
	case l.Labels != nil && l.Reply != nil:
		return nil, &harness.ParseError{Field: "labels", Err: fmt.Errorf("%w: both labels and reply given; give one", harness.ErrBadValue)}
	case l.Reply != nil:
		v.Reply = l.Reply
	case l.Labels != nil:
		var raw []json.RawMessage
		if err := json.Unmarshal(*l.Labels, &raw); err != nil {
			return nil, &harness.ParseError{Field: "labels", Err: fmt.Errorf("%w: want an array of 0 and 1", harness.ErrFieldType)}
		}
		if len(raw) == 0 {
			return nil, &harness.ParseError{Field: "labels", Err: harness.ErrEmptyField}
		}
		v.Labels = make([]int8, len(raw))
		for i, x := range raw {
			b, ok := binaryValue(x)
			if !ok {
				return nil, &harness.ParseError{Field: fmt.Sprintf("labels[%d]", i), Err: fmt.Errorf("%w: %s; want 0 or 1 (1 = hallucination)", harness.ErrBadValue, x)}
			}
			v.Labels[i] = b
		}
	default:
		return nil, &harness.ParseError{Field: "labels", Err: fmt.Errorf("%w: give labels (one 0|1 per sentence) or reply (the verifier's raw text)", harness.ErrMissingField)}
	}
	return v, nil
}

// binaryValue reads 0 or 1 as a JSON number, the strings "0" and "1", or
// false and true.
func binaryValue(x json.RawMessage) (int8, bool) {
	switch strings.TrimSpace(string(x)) {
	case "0", `"0"`, "false", "0.0":
		return 0, true
	case "1", `"1"`, "true", "1.0":
		return 1, true
	}
	return 0, false
}
