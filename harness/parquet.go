package harness

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// A ParquetReader reads items from a Parquet file whose columns are the item
// fields (the same names as in JSONL): id, benchmark, video, question, task,
// group, video_path as strings; options as a list of strings (plain repeated
// or the LIST logical type); answer as an integer; duration, start and end as
// numbers (null allowed); meta as a string holding JSON. The file is read a
// batch of rows at a time; every item is validated as it is read, and the
// first bad one stops the reader with a *ParseError naming the row and field.
type ParquetReader struct {
	// VideoRoot is the directory video_path fields are relative to.
	VideoRoot string

	name  string
	r     *parquet.Reader
	field []string // top-level field of each leaf column
	rows  []parquet.Row
	// unsignedAnswer: the answer column holds unsigned integers, whose
	// bits read as int64 turn 2^64-1 into -1.
	unsignedAnswer bool
	n, i           int // rows buffered, next buffered row
	row            int // rows returned so far
	err            error
}

// parquetKinds says which physical types each known field accepts.
var parquetKinds = map[string][]parquet.Kind{
	"id": {parquet.ByteArray}, "benchmark": {parquet.ByteArray}, "video": {parquet.ByteArray},
	"question": {parquet.ByteArray}, "task": {parquet.ByteArray}, "group": {parquet.ByteArray}, "duration_category": {parquet.ByteArray},
	"video_path": {parquet.ByteArray}, "meta": {parquet.ByteArray}, "options": {parquet.ByteArray},
	"answer":   {parquet.Int32, parquet.Int64},
	"duration": {parquet.Int32, parquet.Int64, parquet.Float, parquet.Double},
	"start":    {parquet.Int32, parquet.Int64, parquet.Float, parquet.Double},
	"end":      {parquet.Int32, parquet.Int64, parquet.Float, parquet.Double},
}

var parquetRequired = []string{"id", "benchmark", "video", "question", "options", "answer"}

// NewParquetReader opens the Parquet file held by r (size bytes); name is the
// file name used in errors. It checks the columns at once: a missing
// required column or a column of the wrong type is a *ParseError with Row 0.
func NewParquetReader(r io.ReaderAt, size int64, name string) (*ParquetReader, error) {
	f, err := openParquet(r, size)
	if err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %v", ErrParquet, err)}
	}
	pr := &ParquetReader{name: name}
	schema := f.Schema()
	present := map[string]bool{}
	for i, path := range schema.Columns() {
		top := path[0]
		pr.field = append(pr.field, top)
		present[top] = true
		kinds, known := parquetKinds[top]
		if !known {
			continue
		}
		leaf, _ := schema.Lookup(path...)
		if i != leaf.ColumnIndex {
			return nil, &ParseError{File: name, Field: top, Err: fmt.Errorf("%w: unexpected column layout", ErrFieldType)}
		}
		k := leaf.Node.Type().Kind()
		ok := false
		for _, want := range kinds {
			ok = ok || k == want
		}
		if lt := leaf.Node.Type().LogicalType(); top == "answer" && lt != nil {
			if it, ok := lt.Value.(*format.IntType); ok && !it.IsSigned {
				pr.unsignedAnswer = true
			}
		}
		repeated := leaf.MaxRepetitionLevel > 0
		if !ok || repeated != (top == "options") {
			return nil, &ParseError{File: name, Field: top, Err: fieldError(ErrFieldType, "column is %s%s, want %s", map[bool]string{true: "repeated ", false: ""}[repeated], k, parquetWant(top))}
		}
	}
	for _, req := range parquetRequired {
		if !present[req] {
			return nil, &ParseError{File: name, Field: req, Err: fieldError(ErrMissingField, "no such column")}
		}
	}
	pr.r = parquet.NewReader(f)
	pr.rows = make([]parquet.Row, 256)
	return pr, nil
}

// openParquet is parquet.OpenFile that turns a panic on a malformed footer
// into an error. The library reads pages through unsafe conversions, so a
// malformed length can also make it fault; SetPanicOnFault turns such a
// fault on this goroutine into a panic the recover catches, instead of a
// crash of the whole run.
func openParquet(r io.ReaderAt, size int64) (f *parquet.File, err error) {
	if err := checkFooter(r, size); err != nil {
		return nil, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("malformed file: %v", p)
		}
	}()
	return parquet.OpenFile(r, size)
}

// checkFooter checks that the footer length in a Parquet file's last 8
// bytes fits the file: the library allocates that length (up to 4 GiB)
// before reading it, so a corrupt length ran a fuzzing worker out of
// memory.
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("malformed file: %d bytes, shorter than the magic numbers", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil && err != io.EOF {
		return fmt.Errorf("read footer: %w", err)
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n+12 > size {
		return fmt.Errorf("malformed file: footer of %d bytes in a file of %d", n, size)
	}
	return nil
}

// readRows is ReadRows that turns a panic of the Parquet library on
// malformed pages into an error: the bytes come from outside.
func readRows(r *parquet.Reader, rows []parquet.Row) (n int, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("malformed page: %v", p)
		}
	}()
	return r.ReadRows(rows)
}

func parquetWant(field string) string {
	switch field {
	case "options":
		return "a list of strings"
	case "answer":
		return "an integer"
	case "duration", "start", "end":
		return "a number"
	}
	return "a string"
}

// Read returns the next item, or io.EOF after the last one.
func (r *ParquetReader) Read() (*Item, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.i == r.n {
		n, err := readRows(r.r, r.rows)
		if n == 0 {
			if err == nil || err == io.EOF {
				r.err = io.EOF
			} else {
				// A page that does not decode: the file's bytes are bad.
				r.err = &ParseError{File: r.name, Row: r.row + 1, Err: fmt.Errorf("%w: %v", ErrParquet, err)}
			}
			return nil, r.err
		}
		r.n, r.i = n, 0
	}
	row := r.rows[r.i]
	r.i++
	r.row++
	it, err := r.decode(row)
	if err != nil {
		r.err = err
		return nil, err
	}
	return it, nil
}

// ReadAll reads every remaining item.
func (r *ParquetReader) ReadAll() ([]*Item, error) { return readRemaining(r) }

func (r *ParquetReader) fail(field string, err error) *ParseError {
	return &ParseError{File: r.name, Row: r.row, Field: field, Err: err}
}

func (r *ParquetReader) decode(row parquet.Row) (*Item, error) {
	it := &Item{Source: fmt.Sprintf("%s: row %d", r.name, r.row), row: r.row}
	seen := map[string]bool{}
	for _, v := range row {
		field := r.field[v.Column()]
		if _, known := parquetKinds[field]; !known {
			continue
		}
		if v.IsNull() {
			continue
		}
		seen[field] = true
		var s string
		if v.Kind() == parquet.ByteArray {
			b := v.ByteArray()
			if !utf8.Valid(b) {
				f := field
				if field == "options" {
					f = fmt.Sprintf("options[%d]", len(it.Options))
				}
				return nil, r.fail(f, ErrInvalidUTF8)
			}
			s = string(b)
		}
		switch field {
		case "id":
			it.ID = s
		case "benchmark":
			it.Benchmark = s
		case "video":
			it.Video = s
		case "question":
			it.Question = s
		case "task":
			it.Task = s
		case "group":
			it.Group = s
		case "duration_category":
			it.DurationCategory = s
		case "video_path":
			it.VideoPath = s
		case "options":
			it.Options = append(it.Options, s)
		case "meta":
			var b bytes.Buffer
			if err := json.Compact(&b, []byte(s)); err != nil {
				return nil, r.fail(field, fieldError(ErrSyntax, "meta must hold JSON: %v", err))
			}
			it.Meta = b.Bytes()
		case "answer":
			it.Answer = int(v.Int64())
			if v.Kind() == parquet.Int32 {
				it.Answer = int(v.Int32())
			}
			if r.unsignedAnswer && (v.Kind() == parquet.Int64 && v.Uint64() > math.MaxInt32 || v.Kind() == parquet.Int32 && v.Uint32() > math.MaxInt32) {
				big := v.Uint64()
				if v.Kind() == parquet.Int32 {
					big = uint64(v.Uint32())
				}
				return nil, r.fail(field, fieldError(ErrAnswerRange, "%d is not an index into the options (answers are 0-based)", big))
			}
		case "duration":
			it.Duration = parquetNumber(v)
		case "start":
			it.Start = parquetNumber(v)
		case "end":
			it.End = parquetNumber(v)
		}
	}
	for _, req := range parquetRequired {
		if !seen[req] && req != "options" {
			return nil, r.fail(req, fieldError(ErrFieldType, "got null"))
		}
	}
	if field, err := it.check(r.VideoRoot); err != nil {
		return nil, r.fail(field, err)
	}
	return it, nil
}

func parquetNumber(v parquet.Value) *float64 {
	var f float64
	switch v.Kind() {
	case parquet.Int32:
		f = float64(v.Int32())
	case parquet.Int64:
		f = float64(v.Int64())
	case parquet.Float:
		f = float64(v.Float())
	default:
		f = v.Double()
	}
	return &f
}
