package formats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
)

// The benchmarks' own annotation files (PerceptionTest, TempCompass, MLVU,
// LongVideoBench, STAR) are single JSON documents, usually pretty-printed,
// some of them large: PerceptionTest's all_valid.json holds every
// annotation of 11,000 videos, object tracks included, of which only the
// questions are wanted. annoReader walks such a file as a stream of tokens
// and decodes one record at a time, so that memory holds one record, not
// the file, and every error names the line where its record starts.

// annoReader walks one JSON annotation file.
type annoReader struct {
	name  string
	dec   *json.Decoder
	lines *lineTracker
}

// openAnno opens the JSON file at path for walking. close closes it.
func openAnno(path string) (r *annoReader, close func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: a directory: name the annotation file inside it", harness.ErrNotAFile)}
	}
	if st.Size() > harness.MaxFileBytes {
		f.Close()
		return nil, nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: the file holds %d bytes, more than %d (MaxFileBytes)", harness.ErrTooLarge, st.Size(), int64(harness.MaxFileBytes))}
	}
	// A byte-order mark, which Windows editors write and encoding/json
	// refuses, is not part of the document.
	br := bufio.NewReader(f)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\ufeff")) {
		br.Discard(3)
	}
	return newAnnoReader(path, br), f.Close, nil
}

// newAnnoReader walks the JSON read from r, naming it name in errors.
func newAnnoReader(name string, r io.Reader) *annoReader {
	lt := &lineTracker{r: r, line: 1}
	dec := json.NewDecoder(lt)
	dec.UseNumber()
	return &annoReader{name: name, dec: dec, lines: lt}
}

// fail is a ParseError at line, for field.
func (a *annoReader) fail(line int, field string, err error) *harness.ParseError {
	return &harness.ParseError{File: a.name, Line: line, Field: field, Err: err}
}

// syntax turns a decoder error into a ParseError at the line where the
// decoder stopped.
func (a *annoReader) syntax(err error) error {
	var pe *harness.ParseError
	if errors.As(err, &pe) {
		return err
	}
	off := a.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The decoder stops where the last whole token ended; the file
		// ends further on, and its last line is where it was cut.
		a.lines.lineAt(off)
		last := bytes.TrimRight(a.lines.win, " \t\r\n")
		line := a.lines.line + bytes.Count(last, []byte{'\n'})
		return a.fail(line, "", fmt.Errorf("%w: the file ends inside the JSON document (cut short?)", harness.ErrSyntax))
	}
	return a.fail(a.lines.lineAt(off), "", fmt.Errorf("%w: %v", harness.ErrSyntax, err))
}

// open consumes the opening delimiter of the next value, which must be an
// object ('{') or an array ('['); want says what the layout expects there,
// for the error ("an object of videos").
func (a *annoReader) open(d json.Delim, want string) error {
	line := a.lines.lineAt(a.dec.InputOffset())
	tok, err := a.dec.Token()
	if err != nil {
		return a.syntax(err)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return a.fail(line, "", fmt.Errorf("%w: want %s, found %s", harness.ErrSyntax, want, annoTokenKind(tok)))
	}
	return nil
}

// more reports whether the current object or array has another member.
func (a *annoReader) more() bool { return a.dec.More() }

// key reads the next key of the current object.
func (a *annoReader) key() (string, error) {
	tok, err := a.dec.Token()
	if err != nil {
		return "", a.syntax(err)
	}
	k, ok := tok.(string)
	if !ok {
		return "", a.syntax(fmt.Errorf("want a key, found %s", annoTokenKind(tok)))
	}
	if !utf8.ValidString(k) {
		return "", a.fail(a.lines.lineAt(a.dec.InputOffset()), k, harness.ErrInvalidUTF8)
	}
	return k, nil
}

// close consumes the closing delimiter of the current object or array.
func (a *annoReader) close() error {
	if _, err := a.dec.Token(); err != nil {
		return a.syntax(err)
	}
	return nil
}

// end checks that nothing follows the document.
func (a *annoReader) end() error {
	if _, err := a.dec.Token(); err != io.EOF {
		if err != nil {
			return a.syntax(err)
		}
		return a.fail(a.lines.lineAt(a.dec.InputOffset()), "", fmt.Errorf("%w: more than one JSON document in the file", harness.ErrSyntax))
	}
	return nil
}

// record decodes the next value, which must be an object, with the line it
// starts on.
func (a *annoReader) record(what string) (*annoRecord, error) {
	start := a.dec.InputOffset()
	var raw json.RawMessage
	if err := a.dec.Decode(&raw); err != nil {
		return nil, a.syntax(err)
	}
	line := a.lines.lineAt(start)
	if !utf8.Valid(raw) {
		return nil, a.fail(line, "", harness.ErrInvalidUTF8)
	}
	rec := &annoRecord{file: a.name, line: line, raw: raw}
	if err := json.Unmarshal(raw, &rec.fields); err != nil || rec.fields == nil {
		return nil, a.fail(line, "", fmt.Errorf("%w: want %s as an object, found %s", harness.ErrSyntax, what, annoKind(raw)))
	}
	return rec, nil
}

// value decodes the next value into v, returning the line it starts on.
func (a *annoReader) value(v any) (int, error) {
	start := a.dec.InputOffset()
	if err := a.dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return 0, a.fail(a.lines.lineAt(start), "", fmt.Errorf("%w: want %s, found %s", harness.ErrFieldType, te.Type, te.Value))
		}
		return 0, a.syntax(err)
	}
	return a.lines.lineAt(start), nil
}

// skip decodes and discards the next value.
func (a *annoReader) skip() error {
	var raw json.RawMessage
	if err := a.dec.Decode(&raw); err != nil {
		return a.syntax(err)
	}
	a.lines.lineAt(a.dec.InputOffset())
	return nil
}

// annoTokenKind names a token as the errors speak of it.
func annoTokenKind(tok json.Token) string {
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

// annoKind names the kind of a raw JSON value.
func annoKind(raw []byte) string {
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

// lineTracker counts the lines of what a json.Decoder reads through it, so
// that an offset the decoder reports can be named as a line. It keeps the
// bytes from the last offset asked about to the decoder's read position:
// offsets are asked in increasing order, so that window is about one record
// long.
type lineTracker struct {
	r      io.Reader
	win    []byte // the bytes read from winOff on
	winOff int64
	line   int // the 1-based line at winOff
}

func (t *lineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.win = append(t.win, p[:n]...)
	return n, err
}

// lineAt returns the line of the first byte at or after off that is not
// JSON whitespace, a comma or a colon: the start of the value whose offset
// the decoder gave as the end of the token before it. An offset before one
// already asked about gives the line of that one.
func (t *lineTracker) lineAt(off int64) int {
	if k := off - t.winOff; k > 0 {
		if k > int64(len(t.win)) {
			k = int64(len(t.win))
		}
		t.line += bytes.Count(t.win[:k], []byte{'\n'})
		t.win = t.win[k:]
		t.winOff += k
		if cap(t.win) > 1<<20 && len(t.win) < cap(t.win)/4 {
			t.win = append([]byte(nil), t.win...)
		}
	}
	line := t.line
	for _, c := range t.win {
		switch c {
		case '\n':
			line++
		case ' ', '\t', '\r', ',', ':':
		default:
			return line
		}
	}
	return line
}
