package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
)

// errMoreDocuments is the error of a file that holds a second JSON value
// after the first: JSON Lines, perhaps, named .json.
var errMoreDocuments = errors.New("more than one JSON document in the file")

// A Walker walks one JSON annotation file as a stream of tokens and
// decodes one record at a time, so that memory holds one record, not the
// file (PerceptionTest's all_valid.json holds every annotation of 11,000
// videos, object tracks included, of which only the questions are
// wanted), and every error names the line where its record starts.
type Walker struct {
	name  string
	dec   *json.Decoder
	lines *lineTracker
	n     int // records decoded so far
	close func() error
}

// Open opens the JSON file at path for walking; Close closes it.
func Open(path string) (*Walker, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	w := NewWalker(path, f.r)
	w.close = f.Close
	return w, nil
}

// NewWalker walks the JSON read from r, naming it name in errors.
func NewWalker(name string, r io.Reader) *Walker { return newWalkerAt(name, r, 1) }

// newWalkerAt walks JSON that starts on line first of the file name: a
// value cut out of it.
func newWalkerAt(name string, r io.Reader, first int) *Walker {
	lt := &lineTracker{r: r, line: first}
	dec := json.NewDecoder(lt)
	dec.UseNumber()
	return &Walker{name: name, dec: dec, lines: lt}
}

// Close closes the file Open opened.
func (w *Walker) Close() error {
	if w.close == nil {
		return nil
	}
	return w.close()
}

// Fail is a ParseError at line, for field.
func (w *Walker) Fail(line int, field string, err error) *harness.ParseError {
	return &harness.ParseError{File: w.name, Line: line, Field: field, Err: err}
}

// syntax turns a decoder error into a ParseError at the line where the
// decoder stopped.
func (w *Walker) syntax(err error) error {
	var pe *harness.ParseError
	if errors.As(err, &pe) {
		return err
	}
	off := w.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The decoder stops where the last whole token ended; the file
		// ends further on, and its last line is where it was cut.
		w.lines.lineAt(off)
		last := bytes.TrimRight(w.lines.win, " \t\r\n")
		line := w.lines.line + bytes.Count(last, []byte{'\n'})
		return w.Fail(line, "", fmt.Errorf("%w: the file ends inside the JSON document (cut short?)", harness.ErrSyntax))
	}
	return w.Fail(w.lines.lineAt(off), "", fmt.Errorf("%w: %v", harness.ErrSyntax, err))
}

// Enter consumes the opening delimiter of the next value, which must be an
// object ('{') or an array ('['); want says what the layout expects there,
// for the error ("an object of videos").
func (w *Walker) Enter(d json.Delim, want string) error {
	line := w.lines.lineAt(w.dec.InputOffset())
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntax(err)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return w.Fail(line, "", fmt.Errorf("%w: want %s, found %s", harness.ErrSyntax, want, tokenKind(tok)))
	}
	return nil
}

// More reports whether the current object or array has another member.
func (w *Walker) More() bool { return w.dec.More() }

// Key reads the next key of the current object.
func (w *Walker) Key() (string, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return "", w.syntax(err)
	}
	k, ok := tok.(string)
	if !ok {
		return "", w.syntax(fmt.Errorf("want a key, found %s", tokenKind(tok)))
	}
	if !utf8.ValidString(k) {
		return "", w.Fail(w.lines.lineAt(w.dec.InputOffset()), k, harness.ErrInvalidUTF8)
	}
	return k, nil
}

// Leave consumes the closing delimiter of the current object or array.
func (w *Walker) Leave() error {
	if _, err := w.dec.Token(); err != nil {
		return w.syntax(err)
	}
	return nil
}

// End checks that nothing follows the document.
func (w *Walker) End() error {
	if _, err := w.dec.Token(); err != io.EOF {
		if err != nil {
			return w.syntax(err)
		}
		return w.Fail(w.lines.lineAt(w.dec.InputOffset()), "", fmt.Errorf("%w: %w", harness.ErrSyntax, errMoreDocuments))
	}
	return nil
}

// raw decodes the next value whole, with the line it starts on.
func (w *Walker) raw() (json.RawMessage, int, error) {
	start := w.dec.InputOffset()
	var raw json.RawMessage
	if err := w.dec.Decode(&raw); err != nil {
		return nil, 0, w.syntax(err)
	}
	line := w.lines.lineAt(start)
	if !utf8.Valid(raw) {
		return nil, 0, w.Fail(line, "", harness.ErrInvalidUTF8)
	}
	return raw, line, nil
}

// Record decodes the next value, which must be an object, with the line it
// starts on; what names it in the error ("a question").
func (w *Walker) Record(what string) (*Record, error) {
	raw, line, err := w.raw()
	if err != nil {
		return nil, err
	}
	w.n++
	rec, err := parseObject(w.name, line, w.n, raw)
	if err != nil {
		return nil, w.Fail(line, "", fmt.Errorf("%w: want %s as an object, found %s", harness.ErrSyntax, what, Kind(raw)))
	}
	return rec, nil
}

// Wrap decodes the next value, of any kind, as the one field key of a
// record that starts where the value does: a list of questions under a
// video's key is then read with Record.Records, each question with its own
// line.
func (w *Walker) Wrap(key string) (*Record, error) {
	raw, line, err := w.raw()
	if err != nil {
		return nil, err
	}
	w.n++
	k, _ := json.Marshal(key)
	wrapped := append(append(append(append([]byte("{"), k...), ':'), raw...), '}')
	return &Record{File: w.name, Line: line, N: w.n, raw: wrapped, fields: map[string]json.RawMessage{key: raw}}, nil
}

// Value decodes the next value into v, returning the line it starts on.
func (w *Walker) Value(v any) (int, error) {
	start := w.dec.InputOffset()
	if err := w.dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return 0, w.Fail(w.lines.lineAt(start), "", fmt.Errorf("%w: want %s, found %s", harness.ErrFieldType, te.Type, te.Value))
		}
		return 0, w.syntax(err)
	}
	return w.lines.lineAt(start), nil
}

// Skip decodes and discards the next value.
func (w *Walker) Skip() error {
	var raw json.RawMessage
	if err := w.dec.Decode(&raw); err != nil {
		return w.syntax(err)
	}
	w.lines.lineAt(w.dec.InputOffset())
	return nil
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
