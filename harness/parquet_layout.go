package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// otherParquetLayout reports whether a Parquet file holds items in one of
// the layouts normalizeLayout reads (options under candidates or in A, B,
// ... columns, the answer as text, integer ids) rather than the item schema
// ParquetReader reads column by column.
func otherParquetLayout(f *parquet.File) bool {
	kinds := map[string]parquet.Kind{}
	for _, path := range f.Schema().Columns() {
		if leaf, ok := f.Schema().Lookup(path...); ok {
			kinds[path[0]] = leaf.Node.Type().Kind()
		}
	}
	_, hasOptions := kinds["options"]
	_, hasCandidates := kinds["candidates"]
	_, hasA := kinds["A"]
	_, hasB := kinds["B"]
	answer, hasAnswer := kinds["answer"]
	id, hasID := kinds["id"]
	return (!hasOptions && (hasCandidates || hasA && hasB)) ||
		(hasAnswer && answer == parquet.ByteArray) ||
		(hasID && (id == parquet.Int32 || id == parquet.Int64))
}

// A layoutParquetReader reads a Parquet file in another layout row by row
// as a generic record and decodes each exactly as a JSONL line (see
// normalizeLayout), so both readers accept the same layouts and report the
// same errors, here by row.
type layoutParquetReader struct {
	name string
	r    *parquet.Reader
	jl   *JSONLReader
	row  int
	err  error
}

func newLayoutParquetReader(f *parquet.File, name, videoRoot string) *layoutParquetReader {
	jl := NewJSONLReader(nil, name)
	jl.VideoRoot = videoRoot
	return &layoutParquetReader{name: name, r: parquet.NewReader(f), jl: jl}
}

// Read returns the next item, or io.EOF after the last one.
func (l *layoutParquetReader) Read() (*Item, error) {
	if l.err != nil {
		return nil, l.err
	}
	m := map[string]any{}
	if err := l.r.Read(&m); err != nil {
		if err == io.EOF {
			l.err = io.EOF
		} else {
			l.err = &ParseError{File: l.name, Row: l.row + 1, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}
		}
		return nil, l.err
	}
	l.row++
	for k, v := range m {
		if b, ok := v.([]byte); ok {
			if !utf8.Valid(b) {
				l.err = &ParseError{File: l.name, Row: l.row, Field: k, Err: ErrInvalidUTF8}
				return nil, l.err
			}
			m[k] = string(b)
		}
	}
	line, err := json.Marshal(m)
	if err != nil {
		l.err = &ParseError{File: l.name, Row: l.row, Err: fmt.Errorf("%w: %v", ErrFieldType, err)}
		return nil, l.err
	}
	it, err := l.jl.parse(line)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Line, pe.Row = 0, l.row
		}
		l.err = err
		return nil, err
	}
	it.Source, it.line, it.row = fmt.Sprintf("%s: row %d", l.name, l.row), 0, l.row
	return it, nil
}
