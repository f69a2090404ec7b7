package formats

// Helpers shared by the readers of the benchmarks' own JSON annotation
// files (MVBench, EgoSchema, Video-MME): those files are one JSON array of
// records, often on one line, so an error must name the record as well as
// the line for a user to find it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
)

// readAnnotationFile reads a whole annotation file, refusing one over
// harness.MaxFileBytes before reading it, and invalid UTF-8.
func readAnnotationFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if st.Size() > harness.MaxFileBytes {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: the file holds %d bytes, more than %d (MaxFileBytes)", harness.ErrTooLarge, st.Size(), int64(harness.MaxFileBytes))}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !utf8.Valid(data) {
		return nil, &harness.ParseError{File: path, Line: firstInvalidLine(data), Err: harness.ErrInvalidUTF8}
	}
	return data, nil
}

func firstInvalidLine(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[n:]
	}
	return line
}

// An annotationRecord is one object of a JSON array, with where it starts.
type annotationRecord struct {
	// N is its 1-based position in the array; Line the line it starts on.
	N, Line int
	Fields  map[string]json.RawMessage
}

// lineIndex maps byte offsets of a file to 1-based line numbers.
type lineIndex []int // offsets of the newlines

func newLineIndex(data []byte) lineIndex {
	var idx lineIndex
	for i, b := range data {
		if b == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

func (idx lineIndex) line(off int) int { return 1 + sort.SearchInts(idx, off) }

// annotationArray decodes data, a JSON array of objects, record by record.
// A file that is no array, or an element that is no object, is a
// *harness.ParseError naming the line (and the record). what names the
// records in messages ("the MVBench questions").
func annotationArray(ctx context.Context, name string, data []byte, what string) ([]annotationRecord, error) {
	lines := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, &harness.ParseError{File: name, Line: lines.line(int(dec.InputOffset())), Err: fmt.Errorf("%w: want %s as one JSON array: %v", harness.ErrSyntax, what, err)}
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, &harness.ParseError{File: name, Line: 1, Err: fmt.Errorf("%w: want %s as one JSON array, found %s", harness.ErrSyntax, what, jsonKind(tok))}
	}
	var recs []annotationRecord
	for n := 1; dec.More(); n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		start := skipSeparators(data, int(dec.InputOffset()))
		line := lines.line(start)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &harness.ParseError{File: name, Line: lines.line(errorOffset(dec, err)), Err: fmt.Errorf("%w: record %d: %v", harness.ErrSyntax, n, err)}
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
			return nil, &harness.ParseError{File: name, Line: line, Err: fmt.Errorf("%w: record %d is %s, want an object", harness.ErrSyntax, n, rawKind(raw))}
		}
		recs = append(recs, annotationRecord{N: n, Line: line, Fields: fields})
	}
	if _, err := dec.Token(); err != nil {
		return nil, &harness.ParseError{File: name, Line: lines.line(int(dec.InputOffset())), Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
	}
	if _, err := dec.Token(); err == nil {
		return nil, &harness.ParseError{File: name, Line: lines.line(int(dec.InputOffset())), Err: fmt.Errorf("%w: data after the array", harness.ErrSyntax)}
	}
	return recs, nil
}

// errorOffset is where in the file a decoding error is: a syntax error's
// own offset (the decoder counts it from the start of its input), else
// the decoder's position.
func errorOffset(dec *json.Decoder, err error) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return int(se.Offset)
	}
	return int(dec.InputOffset())
}

func skipSeparators(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
		off++
	}
	return off
}

func jsonKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return "a " + string(t)
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

func rawKind(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "empty"
	}
	switch s[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// source names the record for a Row: "file:line", or "file: record N"
// when the record starts on line 1 (files written as one line, as
// EgoSchema's questions.json, where the line finds nothing).
func (r annotationRecord) source(name string) string {
	if r.Line == 1 {
		return fmt.Sprintf("%s: record %d", name, r.N)
	}
	return fmt.Sprintf("%s:%d", name, r.Line)
}

// fail builds the error of one field of a record.
func (r annotationRecord) fail(name, field string, reason error, format string, args ...any) *harness.ParseError {
	return &harness.ParseError{File: name, Line: r.Line, Field: field, Err: fmt.Errorf("%w: record %d: %s", reason, r.N, fmt.Sprintf(format, args...))}
}

// str returns a string field; required says whether absence (or null) is
// an error.
func (r annotationRecord) str(name, field string, required bool) (string, error) {
	raw, ok := r.Fields[field]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		if required {
			return "", r.fail(name, field, harness.ErrMissingField, "no %s", field)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", r.fail(name, field, harness.ErrFieldType, "got %s, want a string", rawKind(raw))
	}
	if required && strings.TrimSpace(s) == "" {
		return "", r.fail(name, field, harness.ErrEmptyField, "%s is empty", field)
	}
	return s, nil
}

// text returns a required scalar field as text: a string, or a number as
// written (a count task's candidates and answer may be numbers).
func (r annotationRecord) text(name, field string) (string, error) {
	if raw := bytes.TrimSpace(r.Fields[field]); len(raw) > 0 && strings.IndexByte("-0123456789", raw[0]) >= 0 {
		if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return string(raw), nil
		}
	}
	return r.str(name, field, true)
}

// texts returns a field holding a list of texts (strings, or numbers as
// written).
func (r annotationRecord) texts(name, field string) ([]string, error) {
	raw, ok := r.Fields[field]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, r.fail(name, field, harness.ErrMissingField, "no %s", field)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, r.fail(name, field, harness.ErrFieldType, "got %s, want a list of texts", rawKind(raw))
	}
	out := make([]string, len(list))
	for i, e := range list {
		e = bytes.TrimSpace(e)
		if len(e) > 0 && strings.IndexByte("-0123456789", e[0]) >= 0 {
			out[i] = string(e)
			continue
		}
		if err := json.Unmarshal(e, &out[i]); err != nil {
			return nil, r.fail(name, fmt.Sprintf("%s[%d]", field, i), harness.ErrFieldType, "got %s, want a text", rawKind(e))
		}
	}
	return out, nil
}

// number returns a numeric field (a number, or a string holding one, as
// some converted files write times), nil when absent or null.
func (r annotationRecord) number(name, field string) (*float64, error) {
	raw, ok := r.Fields[field]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, r.fail(name, field, harness.ErrFieldType, "got %s, want a number", rawKind(raw))
		}
		n = json.Number(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, r.fail(name, field, harness.ErrBadValue, "%q is not a finite number", string(n))
	}
	return &f, nil
}
