package records

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
)

// A Table is a CSV or TSV file read whole: its header and its rows, each
// a Record whose fields are the header's columns, every cell a string.
type Table struct {
	// Header is the columns as the first row names them, trimmed of
	// surrounding space.
	Header []string
	Rows   []*Record
}

// A Dialect is how a table writes its cells.
type Dialect struct {
	// Comma separates cells: ',' (CSV) or '\t' (TSV).
	Comma rune
	// LazyQuotes reads a quote inside an unquoted cell as text, as
	// hand-made tables need; the benchmarks' own tables are strict CSV,
	// where a stray quote is a broken row worth an error.
	LazyQuotes bool
	// Ragged lets a row have fewer cells than the header, its last
	// columns then absent (hand-made tables end rows early); otherwise
	// a short row is a broken row.
	Ragged bool
}

// ReadTable reads the table at path. The first row is the header; a
// column named twice, or a row with more cells than the header, is an
// error naming its line, as is a row with fewer unless the dialect is
// ragged.
func ReadTable(ctx context.Context, path string, d Dialect) (*Table, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f.r)
	cr.Comma = d.Comma
	cr.LazyQuotes = d.LazyQuotes
	cr.FieldsPerRecord = -1
	if !d.Ragged {
		cr.FieldsPerRecord = 0 // every row as long as the header
	}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: the table is empty", harness.ErrNoItems)}
	}
	if err != nil {
		return nil, tableSyntax(path, 1, err)
	}
	t := &Table{Header: make([]string, len(header))}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if seen[h] {
			return nil, &harness.ParseError{File: path, Line: 1, Field: h, Err: fmt.Errorf("%w: column %s appears twice in the header", harness.ErrBadValue, h)}
		}
		seen[h] = true
		t.Header[i] = h
	}
	for {
		cells, err := cr.Read()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return nil, tableSyntax(path, 0, err)
		}
		line, _ := cr.FieldPos(0)
		if len(t.Rows)%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(cells) > len(t.Header) {
			return nil, &harness.ParseError{File: path, Line: line, Err: fmt.Errorf("%w: %d cells under a header of %d", harness.ErrBadValue, len(cells), len(t.Header))}
		}
		rec := &Record{File: path, Line: line, N: len(t.Rows) + 1, fields: make(map[string]json.RawMessage, len(cells))}
		for i, c := range cells {
			if !utf8.ValidString(c) {
				return nil, &harness.ParseError{File: path, Line: line, Field: t.Header[i], Err: harness.ErrInvalidUTF8}
			}
			rec.fields[t.Header[i]], _ = json.Marshal(c)
		}
		t.Rows = append(t.Rows, rec)
	}
}

// Has reports whether the header names column.
func (t *Table) Has(column string) bool {
	for _, h := range t.Header {
		if h == column {
			return true
		}
	}
	return false
}

// tableSyntax is a malformed row's error, at the line where the row
// starts.
func tableSyntax(path string, line int, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		line = pe.StartLine
		err = pe.Err
	}
	msg := fmt.Sprintf("not a CSV table: %v", err)
	if errors.Is(err, csv.ErrQuote) {
		// A quoted cell that never closes: most often a file cut short.
		msg += " (a quoted cell that does not close where it should: is the file cut short?)"
	}
	return &harness.ParseError{File: path, Line: line, Err: Reword(harness.ErrSyntax, msg)}
}
