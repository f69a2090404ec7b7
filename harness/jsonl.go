package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// A JSONLReader reads items from a JSON Lines file: one JSON object per line
// with the item fields (id, benchmark, video, question, options, answer, and
// optionally task and duration, group, video_path, start, end, meta; see
// docs/audit.md), or in the other layouts normalizeLayout reads. Blank
// lines are skipped; unknown fields are ignored.
//
// Every item is validated as it is read; the first bad one stops the reader
// with a *ParseError naming the file, line and field.
type JSONLReader struct {
	// VideoRoot, when set, is the directory video_path fields are relative
	// to, and a video_path that would leave it is refused as bad input. An
	// audit leaves it empty and resolves each item's video with ResolveVideo
	// instead, so that a bad path fails that item alone. Set before the
	// first Read.
	VideoRoot string

	name string
	br   *bufio.Reader
	line int
	read int64 // bytes read so far
	err  error // sticky: once a read fails, every later one does
}

// Limits on what one items file may take, so that a stream such as
// /dev/zero or an endless pipe fails with a clear error instead of
// exhausting memory: one line (one item) may hold MaxLineBytes, one file
// MaxFileBytes.
const (
	MaxLineBytes = 16 << 20
	MaxFileBytes = 4 << 30
)

// NewJSONLReader returns a reader of r; name is the file name used in errors
// and in each item's Source.
func NewJSONLReader(r io.Reader, name string) *JSONLReader {
	return &JSONLReader{name: name, br: bufio.NewReaderSize(r, 64<<10)}
}

// utf8BOM opens files written by some Windows editors; it is skipped.
var utf8BOM = []byte("\xEF\xBB\xBF")

// Read returns the next item, or io.EOF after the last one.
func (r *JSONLReader) Read() (*Item, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, err := r.readLine()
		if err != nil {
			if _, ok := err.(*ParseError); !ok && err != io.EOF {
				err = fmt.Errorf("read %s: %w", r.name, err)
			}
			r.err = err
			return nil, err
		}
		r.line++
		if r.line == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		it, perr := r.parse(line)
		if perr != nil {
			r.err = perr
			return nil, perr
		}
		return it, nil
	}
}

// ReadAll reads every remaining item.
func (r *JSONLReader) ReadAll() ([]*Item, error) { return readRemaining(r) }

// readLine returns the next line, its newline included; io.EOF only when no
// byte is left. A line or file past the limits is a *ParseError.
func (r *JSONLReader) readLine() ([]byte, error) {
	return readBoundedLine(r.br, &r.read, r.name, r.line+1)
}

// readBoundedLine reads line number line of the file name from br, counting
// the bytes read in *read; past MaxLineBytes or MaxFileBytes it fails.
func readBoundedLine(br *bufio.Reader, read *int64, name string, line int) ([]byte, error) {
	var b []byte
	for {
		frag, err := br.ReadSlice('\n')
		*read += int64(len(frag))
		if *read > MaxFileBytes {
			return nil, &ParseError{File: name, Line: line, Err: fieldError(ErrTooLarge, "the file holds more than %d bytes (MaxFileBytes); split it", int64(MaxFileBytes))}
		}
		if len(b)+len(frag) > MaxLineBytes {
			return nil, &ParseError{File: name, Line: line, Err: fieldError(ErrTooLarge, "the line is longer than %d bytes (MaxLineBytes)", MaxLineBytes)}
		}
		b = append(b, frag...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case len(b) > 0 && (err == nil || err == io.EOF):
			return b, nil
		}
		return nil, err
	}
}

func (r *JSONLReader) fail(field string, err error) *ParseError {
	return &ParseError{File: r.name, Line: r.line, Field: field, Err: err}
}

// parse decodes one line. Fields are decoded one by one rather than into the
// Item struct at once so that an error names the field and says what was
// wrong with it (encoding/json reports only the first mismatch, and quietly
// replaces invalid UTF-8 with U+FFFD).
func (r *JSONLReader) parse(line []byte) (*Item, error) {
	if it, ok := r.parseFast(line); ok {
		return it, nil
	}
	return r.parseFields(line)
}

// parseFields decodes a line field by field.
func (r *JSONLReader) parseFields(line []byte) (*Item, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		if !utf8.Valid(line) {
			return nil, r.fail("", ErrInvalidUTF8)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, r.fail("", fieldError(ErrSyntax, "%v (at byte %d)", se, se.Offset))
		}
		return nil, r.fail("", fieldError(ErrSyntax, "%v", err))
	}
	if obj == nil {
		return nil, r.fail("", fieldError(ErrSyntax, "got null"))
	}
	if !utf8.Valid(line) {
		for _, k := range fieldOrder {
			if v, ok := obj[k]; ok && !utf8.Valid(v) {
				return nil, r.fail(k, ErrInvalidUTF8)
			}
		}
		return nil, r.fail("", ErrInvalidUTF8)
	}
	if field, err := normalizeLayout(obj); err != nil {
		return nil, r.fail(field, err)
	}
	d := jsonFields{obj: obj}
	it := &Item{Source: fmt.Sprintf("%s:%d", r.name, r.line), line: r.line}
	it.ID = d.str("id", true)
	it.Benchmark = d.str("benchmark", true)
	it.Video = d.str("video", true)
	it.Question = d.str("question", true)
	it.Options = d.strs("options")
	it.Answer = d.integer("answer")
	it.Task = d.str("task", false)
	it.Duration = d.number("duration")
	it.DurationCategory = d.str("duration_category", false)
	it.Group = d.str("group", false)
	it.VideoPath = d.str("video_path", false)
	it.Start = d.number("start")
	it.End = d.number("end")
	it.Meta = d.raw("meta")
	if d.err != nil {
		return nil, r.fail(d.field, d.err)
	}
	if field, err := it.check(r.VideoRoot); err != nil {
		return nil, r.fail(field, err)
	}
	return it, nil
}

// fastItem is the shape of a well-formed line. Decoding straight into it is
// several times faster than field by field; any line it does not fit exactly
// goes through the field-by-field path, which finds and names the problem.
type fastItem struct {
	ID        *string         `json:"id"`
	Benchmark *string         `json:"benchmark"`
	Video     *string         `json:"video"`
	Question  *string         `json:"question"`
	Options   []*string       `json:"options"`
	Answer    json.RawMessage `json:"answer"`
	Task      *string         `json:"task"`
	Duration  json.RawMessage `json:"duration"`
	DurCat    *string         `json:"duration_category"`
	Group     *string         `json:"group"`
	VideoPath *string         `json:"video_path"`
	Start     json.RawMessage `json:"start"`
	End       json.RawMessage `json:"end"`
	Meta      json.RawMessage `json:"meta"`
}

// requiredKeys must appear verbatim for the fast path to be tried, and
// every known key must appear the same number of times in the line and in its
// lower-case form: encoding/json matches struct fields without regard to
// case, the field-by-field path does not, so a line with "ID" or "Answer"
// keys goes the careful way.
var (
	requiredKeys = [][]byte{[]byte(`"id"`), []byte(`"benchmark"`), []byte(`"video"`), []byte(`"question"`), []byte(`"options"`), []byte(`"answer"`)}
	knownKeys    = func() [][]byte {
		var ks [][]byte
		for _, k := range fieldOrder {
			ks = append(ks, []byte(`"`+k+`"`))
		}
		return ks
	}()
)

// parseFast decodes a well-formed line; ok is false when the line needs the
// careful path (which then reports the error, if any).
func (r *JSONLReader) parseFast(line []byte) (*Item, bool) {
	if !utf8.Valid(line) {
		return nil, false
	}
	for _, k := range requiredKeys {
		if !bytes.Contains(line, k) {
			return nil, false
		}
	}
	lower := bytes.ToLower(line)
	for _, k := range knownKeys {
		if bytes.Count(lower, k) != bytes.Count(line, k) {
			return nil, false
		}
	}
	var f fastItem
	if json.Unmarshal(line, &f) != nil || f.ID == nil || f.Benchmark == nil || f.Video == nil || f.Question == nil || f.Options == nil {
		return nil, false
	}
	it := &Item{ID: *f.ID, Benchmark: *f.Benchmark, Video: *f.Video, Question: *f.Question, Options: make([]string, len(f.Options)),
		Source: fmt.Sprintf("%s:%d", r.name, r.line), line: r.line}
	for i, o := range f.Options {
		if o == nil {
			return nil, false
		}
		it.Options[i] = *o
	}
	var err error
	if kindOf(f.Answer) != "number" {
		return nil, false
	}
	if it.Answer, err = strconv.Atoi(string(bytes.TrimSpace(f.Answer))); err != nil {
		return nil, false
	}
	for _, n := range []struct {
		raw json.RawMessage
		dst **float64
	}{{f.Duration, &it.Duration}, {f.Start, &it.Start}, {f.End, &it.End}} {
		switch kindOf(n.raw) {
		case "nothing", "null":
		case "number":
			v, err := strconv.ParseFloat(string(bytes.TrimSpace(n.raw)), 64)
			if err != nil {
				return nil, false
			}
			*n.dst = &v
		default:
			return nil, false
		}
	}
	for _, s := range []struct {
		src *string
		dst *string
	}{{f.Task, &it.Task}, {f.DurCat, &it.DurationCategory}, {f.Group, &it.Group}, {f.VideoPath, &it.VideoPath}} {
		if s.src != nil {
			*s.dst = *s.src
		}
	}
	if k := kindOf(f.Meta); k != "nothing" && k != "null" {
		var b bytes.Buffer
		if json.Compact(&b, f.Meta) != nil {
			return nil, false
		}
		it.Meta = b.Bytes()
	}
	if _, err := it.check(r.VideoRoot); err != nil {
		return nil, false
	}
	return it, true
}

// fieldOrder lists the fields in the order they are checked, so that a line
// with several problems always reports the same one.
var fieldOrder = []string{"id", "benchmark", "video", "question", "options", "answer", "task", "duration", "duration_category", "group", "video_path", "start", "end", "meta"}

// jsonFields decodes fields of one JSON object, keeping the first error.
type jsonFields struct {
	obj   map[string]json.RawMessage
	field string
	err   error
}

func (d *jsonFields) setErr(field string, err error) {
	if d.err == nil {
		d.field, d.err = field, err
	}
}

// get returns the raw value of a field; ok is false when it is absent or
// null, or when an earlier field failed.
func (d *jsonFields) get(field string, required bool) (json.RawMessage, bool) {
	if d.err != nil {
		return nil, false
	}
	v, ok := d.obj[field]
	if !ok {
		if required {
			d.setErr(field, ErrMissingField)
		}
		return nil, false
	}
	if kindOf(v) == "null" {
		if required {
			d.setErr(field, fieldError(ErrFieldType, "got null"))
		}
		return nil, false
	}
	return v, true
}

func (d *jsonFields) str(field string, required bool) string {
	v, ok := d.get(field, required)
	if !ok {
		return ""
	}
	var s string
	if kindOf(v) != "string" || json.Unmarshal(v, &s) != nil {
		d.setErr(field, fieldError(ErrFieldType, "got %s, want a string", kindOf(v)))
	}
	return s
}

func (d *jsonFields) strs(field string) []string {
	v, ok := d.get(field, true)
	if !ok {
		return nil
	}
	var elems []json.RawMessage
	if kindOf(v) != "array" || json.Unmarshal(v, &elems) != nil {
		d.setErr(field, fieldError(ErrFieldType, "got %s, want a list of strings", kindOf(v)))
		return nil
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		if kindOf(e) != "string" || json.Unmarshal(e, &out[i]) != nil {
			d.setErr(fmt.Sprintf("%s[%d]", field, i), fieldError(ErrFieldType, "got %s, want a string", kindOf(e)))
			return nil
		}
	}
	return out
}

func (d *jsonFields) integer(field string) int {
	v, ok := d.get(field, true)
	if !ok {
		return 0
	}
	if kindOf(v) != "number" {
		d.setErr(field, fieldError(ErrFieldType, "got %s, want an integer", kindOf(v)))
		return 0
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
	if errors.Is(err, strconv.ErrRange) {
		// Every integer field is an option index.
		d.setErr(field, fieldError(ErrAnswerRange, "%s is not an index into the options (answers are 0-based)", bytes.TrimSpace(v)))
		return 0
	}
	if err != nil {
		d.setErr(field, fieldError(ErrFieldType, "%s is not an integer", bytes.TrimSpace(v)))
		return 0
	}
	return n
}

func (d *jsonFields) number(field string) *float64 {
	v, ok := d.get(field, false)
	if !ok {
		return nil
	}
	var f float64
	if kindOf(v) != "number" {
		d.setErr(field, fieldError(ErrFieldType, "got %s, want a number or null", kindOf(v)))
		return nil
	}
	if err := json.Unmarshal(v, &f); err != nil {
		d.setErr(field, fieldError(ErrBadValue, "%s is not a finite number", bytes.TrimSpace(v)))
		return nil
	}
	return &f
}

// raw returns any JSON value, compacted so that equal values have equal bytes.
func (d *jsonFields) raw(field string) json.RawMessage {
	v, ok := d.get(field, false)
	if !ok {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		d.setErr(field, fieldError(ErrSyntax, "%v", err))
		return nil
	}
	return json.RawMessage(b.Bytes())
}

// kindOf names the JSON type of a raw value from its first byte.
func kindOf(v json.RawMessage) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}
