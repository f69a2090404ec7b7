package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// The getters read one field of a record as the layouts write it, and
// refuse it with a ParseError naming the field and what was found. Null
// counts as absent: converted files write null for a missing value.

// Has reports whether the record gives field, null counting as absent.
func (r *Record) Has(field string) bool {
	v, ok := r.fields[field]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// Str returns the string field; a missing field is an error when
// required, else "". An empty string is returned as it is: a layout may
// count an empty answer as open-ended rather than as broken.
func (r *Record) Str(field string, required bool) (string, error) {
	if !r.Has(field) {
		if required {
			return "", r.Fail(field, harness.ErrMissingField, "")
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(r.fields[field], &s); err != nil {
		return "", r.Fail(field, harness.ErrFieldType, "want a string, found %s", Kind(r.fields[field]))
	}
	return s, nil
}

// Filled returns a string field that must be given and not blank (a
// question, an option).
func (r *Record) Filled(field string) (string, error) {
	s, err := r.Str(field, true)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", r.Fail(field, harness.ErrEmptyField, "")
	}
	return s, nil
}

// Text returns a field that names something (an id, a video, a count
// task's answer) and may be written as a string or as a number ("id": 3),
// as its text, a number as written. Required, it must be given and not
// blank.
func (r *Record) Text(field string, required bool) (string, error) {
	if !r.Has(field) {
		if required {
			return "", r.Fail(field, harness.ErrMissingField, "")
		}
		return "", nil
	}
	if n, ok := number(r.fields[field]); ok {
		return n, nil
	}
	var s string
	if err := json.Unmarshal(r.fields[field], &s); err != nil {
		return "", r.Fail(field, harness.ErrFieldType, "want a string or a number, found %s", Kind(r.fields[field]))
	}
	if required && strings.TrimSpace(s) == "" {
		return "", r.Fail(field, harness.ErrEmptyField, "")
	}
	return s, nil
}

// number returns raw as written when it is a JSON number.
func number(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || strings.IndexByte("-0123456789", raw[0]) < 0 {
		return "", false
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return "", false
	}
	return n.String(), true
}

// Num returns the number field, nil when absent. A number written as a
// string ("12.5") is read as the number: some conversions of these files
// wrote every value as text, and every table cell is text.
func (r *Record) Num(field string) (*float64, error) {
	if !r.Has(field) {
		return nil, nil
	}
	raw := r.fields[field]
	text, ok := number(raw)
	if !ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, r.Fail(field, harness.ErrFieldType, "want a number, found %s", Kind(raw))
		}
		text = strings.TrimSpace(s)
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, r.Fail(field, harness.ErrBadValue, "want a number, found %q", text)
	}
	return &f, nil
}

// Index returns a 0-based index field (an answer the layout defines as an
// index from 0), or -1 when absent. A digit string is read as the same
// index: the layout, not the value's type, says where indices start.
func (r *Record) Index(field string) (int, error) {
	f, err := r.Num(field)
	if err != nil || f == nil {
		return -1, err
	}
	if *f != math.Trunc(*f) || *f < 0 || *f > 1<<20 {
		return -1, r.Fail(field, harness.ErrBadValue, "want an option index from 0, found %v", *f)
	}
	return int(*f), nil
}

// Strs returns a list of texts field: strings, or numbers as written
// (options written as numbers, "candidates": [3, 4, 5], are their text:
// counting questions do this). A missing field is an error when
// required, else nil.
func (r *Record) Strs(field string, required bool) ([]string, error) {
	if !r.Has(field) {
		if required {
			return nil, r.Fail(field, harness.ErrMissingField, "")
		}
		return nil, nil
	}
	var vals []json.RawMessage
	if err := json.Unmarshal(r.fields[field], &vals); err != nil {
		return nil, r.Fail(field, harness.ErrFieldType, "want a list of strings, found %s", Kind(r.fields[field]))
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		if n, ok := number(v); ok {
			out[i] = n
			continue
		}
		if err := json.Unmarshal(v, &out[i]); err != nil {
			return nil, r.failAt(r.FieldLine(field), fmt.Sprintf("%s[%d]", field, i), harness.ErrFieldType, "want a string, found %s", Kind(v))
		}
	}
	return out, nil
}

// Object returns an object field as a record of its own, nil when absent.
func (r *Record) Object(field string) (*Record, error) {
	if !r.Has(field) {
		return nil, nil
	}
	sub := &Record{File: r.File, Line: r.Line, N: r.N, raw: r.fields[field]}
	if _, at, ok := r.fieldOffsets(field); ok {
		sub.Line = r.Line + bytes.Count(r.raw[:at], []byte{'\n'})
	}
	if err := json.Unmarshal(r.fields[field], &sub.fields); err != nil {
		return nil, r.Fail(field, harness.ErrFieldType, "want an object, found %s", Kind(r.fields[field]))
	}
	return sub, nil
}

// Records returns a list of objects field, each a record with its own
// line. A missing field is an empty list.
func (r *Record) Records(field string) ([]*Record, error) {
	if !r.Has(field) {
		return nil, nil
	}
	raw := r.fields[field]
	at := 0
	if _, v, ok := r.fieldOffsets(field); ok {
		at = v
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, r.Fail(field, harness.ErrFieldType, "want a list of objects, found %s", Kind(raw))
	}
	var out []*Record
	for dec.More() {
		start := skipSeparators(raw, int(dec.InputOffset()))
		var el json.RawMessage
		if err := dec.Decode(&el); err != nil {
			return nil, r.Fail(field, harness.ErrSyntax, "%v", err)
		}
		line := r.Line
		if r.raw != nil {
			line += bytes.Count(r.raw[:at+start], []byte{'\n'})
		}
		sub, err := parseObject(r.File, line, r.N, el)
		if err != nil {
			return nil, &harness.ParseError{File: r.File, Line: line, Field: fmt.Sprintf("%s[%d]", field, len(out)), Err: fmt.Errorf("%w: want an object, found %s", harness.ErrFieldType, Kind(el))}
		}
		out = append(out, sub)
	}
	return out, nil
}

// Meta collects the fields a row keeps in its meta object: each name the
// record gives (not null), with its JSON value; nil when there is none.
func (r *Record) Meta(names ...string) map[string]any {
	var m map[string]any
	for _, n := range names {
		if !r.Has(n) {
			continue
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(r.fields[n]))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			continue
		}
		if m == nil {
			m = map[string]any{}
		}
		m[n] = v
	}
	return m
}
