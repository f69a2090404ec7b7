package formats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// An annoRecord is one JSON object of an annotation file (a question, a
// video's entry), decoded field by field so that an error names the field,
// the line it is on and what was wrong with it.
type annoRecord struct {
	file   string
	line   int // where the object starts
	raw    json.RawMessage
	fields map[string]json.RawMessage
}

// source names the record as "file:line", as rows and drops do.
func (r *annoRecord) source() string { return fmt.Sprintf("%s:%d", r.file, r.line) }

// fail is a ParseError for field, at the line the field is on.
func (r *annoRecord) fail(field string, reason error, format string, args ...any) *harness.ParseError {
	err := reason
	if format != "" {
		err = fmt.Errorf("%w: %s", reason, fmt.Sprintf(format, args...))
	}
	return &harness.ParseError{File: r.file, Line: r.fieldLine(field), Field: field, Err: err}
}

// fieldLine is the line of field's key inside the record, or the record's
// first line when the field is absent. It walks the record again, which
// only an error or a nested list pays for.
func (r *annoRecord) fieldLine(field string) int {
	key, _, ok := r.fieldOffsets(field)
	if !ok {
		return r.line
	}
	return r.line + bytes.Count(r.raw[:key], []byte{'\n'})
}

// fieldOffsets returns where field's key and value start inside r.raw.
func (r *annoRecord) fieldOffsets(field string) (key, value int, ok bool) {
	if _, has := r.fields[field]; !has || field == "" {
		return 0, 0, false
	}
	dec := json.NewDecoder(bytes.NewReader(r.raw))
	if _, err := dec.Token(); err != nil {
		return 0, 0, false
	}
	for dec.More() {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		if k, _ := tok.(string); k == field {
			return annoSkipSeparators(r.raw, before), annoSkipSeparators(r.raw, int(dec.InputOffset())), true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// annoSkipSeparators returns the offset of the first byte at or after off in b
// that is not JSON whitespace, a comma or a colon.
func annoSkipSeparators(b []byte, off int) int {
	for off < len(b) {
		switch b[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// has reports whether the record gives field, null counting as absent.
func (r *annoRecord) has(field string) bool {
	v, ok := r.fields[field]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// str returns the string field; a missing field is an error when required,
// else "".
func (r *annoRecord) str(field string, required bool) (string, error) {
	if !r.has(field) {
		if required {
			return "", r.fail(field, harness.ErrMissingField, "")
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(r.fields[field], &s); err != nil {
		return "", r.fail(field, harness.ErrFieldType, "want a string, found %s", annoKind(r.fields[field]))
	}
	return s, nil
}

// text returns a field that names something (an id, a video) and may be
// written as a string or as a number ("id": 3), as its text.
func (r *annoRecord) text(field string, required bool) (string, error) {
	if !r.has(field) {
		if required {
			return "", r.fail(field, harness.ErrMissingField, "")
		}
		return "", nil
	}
	var n json.Number
	if err := json.Unmarshal(r.fields[field], &n); err == nil && !strings.HasPrefix(string(bytes.TrimSpace(r.fields[field])), `"`) {
		return n.String(), nil
	}
	s, err := r.str(field, required)
	if err != nil {
		return "", r.fail(field, harness.ErrFieldType, "want a string or a number, found %s", annoKind(r.fields[field]))
	}
	if strings.TrimSpace(s) == "" && required {
		return "", r.fail(field, harness.ErrEmptyField, "")
	}
	return s, nil
}

// num returns the number field, nil when absent. A number written as a
// string ("12.5") is read as the number: some conversions of these files
// wrote every value as text.
func (r *annoRecord) num(field string) (*float64, error) {
	if !r.has(field) {
		return nil, nil
	}
	raw := bytes.TrimSpace(r.fields[field])
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		raw = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, r.fail(field, harness.ErrFieldType, "want a number, found %s", annoKind(r.fields[field]))
	}
	return &f, nil
}

// index returns a 0-based index field (an answer the layout defines as an
// index from 0), or -1 when absent. A digit string is read as the same
// index: the layout, not the value's type, says where indices start.
func (r *annoRecord) index(field string) (int, error) {
	f, err := r.num(field)
	if err != nil || f == nil {
		return -1, err
	}
	if *f != math.Trunc(*f) || *f < 0 || *f > 1<<20 {
		return -1, r.fail(field, harness.ErrBadValue, "want an option index from 0, found %v", *f)
	}
	return int(*f), nil
}

// strs returns a list of strings field; a missing field is an error when
// required, else nil.
func (r *annoRecord) strs(field string, required bool) ([]string, error) {
	if !r.has(field) {
		if required {
			return nil, r.fail(field, harness.ErrMissingField, "")
		}
		return nil, nil
	}
	var vals []json.RawMessage
	if err := json.Unmarshal(r.fields[field], &vals); err != nil {
		return nil, r.fail(field, harness.ErrFieldType, "want a list of strings, found %s", annoKind(r.fields[field]))
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		if err := json.Unmarshal(v, &out[i]); err != nil {
			// Options written as numbers ("candidates": [3, 4, 5]) are
			// their text: counting questions do this.
			var n json.Number
			if json.Unmarshal(v, &n) != nil {
				return nil, r.fail(field, harness.ErrFieldType, "element %d: want a string, found %s", i, annoKind(v))
			}
			out[i] = n.String()
		}
	}
	return out, nil
}

// object returns an object field as a record of its own, nil when absent.
func (r *annoRecord) object(field string) (*annoRecord, error) {
	if !r.has(field) {
		return nil, nil
	}
	_, at, _ := r.fieldOffsets(field)
	sub := &annoRecord{file: r.file, line: r.line + bytes.Count(r.raw[:at], []byte{'\n'}), raw: r.fields[field]}
	if err := json.Unmarshal(r.fields[field], &sub.fields); err != nil {
		return nil, r.fail(field, harness.ErrFieldType, "want an object, found %s", annoKind(r.fields[field]))
	}
	return sub, nil
}

// records returns a list of objects field, each a record with its own
// line. A missing field is an empty list.
func (r *annoRecord) records(field string) ([]*annoRecord, error) {
	_, at, ok := r.fieldOffsets(field)
	if !ok || !r.has(field) {
		return nil, nil
	}
	raw := r.fields[field]
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, r.fail(field, harness.ErrFieldType, "want a list of objects, found %s", annoKind(raw))
	}
	var out []*annoRecord
	for dec.More() {
		start := annoSkipSeparators(raw, int(dec.InputOffset()))
		var el json.RawMessage
		if err := dec.Decode(&el); err != nil {
			return nil, r.fail(field, harness.ErrSyntax, "%v", err)
		}
		sub := &annoRecord{file: r.file, raw: el, line: r.line + bytes.Count(r.raw[:at+start], []byte{'\n'})}
		if err := json.Unmarshal(el, &sub.fields); err != nil || sub.fields == nil {
			return nil, &harness.ParseError{File: r.file, Line: sub.line, Field: fmt.Sprintf("%s[%d]", field, len(out)), Err: fmt.Errorf("%w: want an object, found %s", harness.ErrFieldType, annoKind(el))}
		}
		out = append(out, sub)
	}
	return out, nil
}

// meta collects the fields a row keeps in its meta object: each name the
// record gives (not null), with its JSON value.
func (r *annoRecord) meta(names ...string) map[string]any {
	var m map[string]any
	for _, n := range names {
		if !r.has(n) {
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
