package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// A Record is one annotation record (a question, a video's entry, a table
// row), decoded field by field so that an error names the field, the line
// it is on and what was wrong with it. A table's cells and a Parquet row's
// columns are held as the JSON values they are (a cell as a string), so
// that one set of getters reads every layout.
type Record struct {
	// File is the file's name as errors give it.
	File string
	// Line is the 1-based line the record starts on; 0 in a Parquet
	// file, which has no lines.
	Line int
	// N is the record's 1-based position among its file's records (a
	// Parquet row's number, a table's data row).
	N int
	// Key is the key a "*" of the record path took ("data.*" over an
	// object of videos: the video's key); "" otherwise.
	Key string

	raw []byte // the record's JSON text, for the lines of its fields; nil for table rows
	// numbered marks an element of a list Array read: where it starts on
	// line 1 (a file written as one line) it is named by its number.
	numbered bool
	fields   map[string]json.RawMessage
}

// parseObject makes the record of raw, a JSON object starting at line.
func parseObject(file string, line, n int, raw []byte) (*Record, error) {
	r := &Record{File: file, Line: line, N: n, raw: raw}
	if err := json.Unmarshal(raw, &r.fields); err != nil || r.fields == nil {
		return nil, fmt.Errorf("not an object")
	}
	return r, nil
}

// Source names the record as rows and drops do: "file:line"; "file: row
// N" in a file without lines (Parquet); "file: record N" in a JSON file
// written as one line (EgoSchema's questions.json), where the line finds
// nothing.
func (r *Record) Source() string {
	switch {
	case r.Line == 0:
		return fmt.Sprintf("%s: row %d", r.File, r.N)
	case r.byNumber():
		return fmt.Sprintf("%s: record %d", r.File, r.N)
	}
	return fmt.Sprintf("%s:%d", r.File, r.Line)
}

// Fail is a ParseError for field, at the line the field is on (in
// Parquet, the row). format, when not empty, details the reason; in a
// JSON file written as one line the detail names the record's number.
func (r *Record) Fail(field string, reason error, format string, args ...any) *harness.ParseError {
	return r.failAt(r.FieldLine(field), field, reason, format, args...)
}

// failAt is Fail at a line of the caller's choosing: an element of a
// list field is named "field[i]", which no key of the record is.
func (r *Record) failAt(line int, field string, reason error, format string, args ...any) *harness.ParseError {
	detail := ""
	if format != "" {
		detail = fmt.Sprintf(format, args...)
	}
	if r.byNumber() {
		detail = strings.TrimSuffix(fmt.Sprintf("record %d: %s", r.N, detail), ": ")
	}
	err := reason
	if detail != "" {
		err = fmt.Errorf("%w: %s", reason, detail)
	}
	pe := &harness.ParseError{File: r.File, Line: line, Field: field, Err: err}
	if r.Line == 0 {
		pe.Row = r.N
	}
	return pe
}

// byNumber reports whether the record is named by its number, not its
// line: an element of a list written on one line.
func (r *Record) byNumber() bool { return r.numbered && r.Line == 1 }

// FieldLine is the line of field's key inside the record, or the record's
// first line when the field is absent (or the record is a table row). It
// walks the record again, which only an error or a nested list pays for.
func (r *Record) FieldLine(field string) int {
	key, _, ok := r.fieldOffsets(field)
	if !ok {
		return r.Line
	}
	return r.Line + bytes.Count(r.raw[:key], []byte{'\n'})
}

// fieldOffsets returns where field's key and value start inside r.raw.
func (r *Record) fieldOffsets(field string) (key, value int, ok bool) {
	if _, has := r.fields[field]; !has || field == "" || r.raw == nil {
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
			return skipSeparators(r.raw, before), skipSeparators(r.raw, int(dec.InputOffset())), true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// skipSeparators returns the offset of the first byte at or after off in b
// that is not JSON whitespace, a comma or a colon.
func skipSeparators(b []byte, off int) int {
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

// Fields lists the record's field names, sorted, so that a walk over them
// reports the same field first on every run.
func (r *Record) Fields() []string {
	names := make([]string, 0, len(r.fields))
	for k := range r.fields {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Raw is field's JSON value, nil when absent.
func (r *Record) Raw(field string) json.RawMessage { return r.fields[field] }

// Values decodes the record into plain Go values (numbers as
// json.Number), for readers that walk fields by path, such as spec's
// templates.
func (r *Record) Values() map[string]any {
	m := make(map[string]any, len(r.fields))
	for k, raw := range r.fields {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			m[k] = v
		}
	}
	return m
}

// Kind names the kind of a raw JSON value as errors speak of it.
func Kind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// tokenKind names a token as the errors speak of it.
func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return "an object"
		case '[':
			return "an array"
		}
		return fmt.Sprintf("%q", string(t))
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}
