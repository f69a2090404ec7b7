package formats

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
)

// A parquetTable reads a Parquet file of flat records, as the Hugging Face
// hub stores a dataset's split (lmms-lab/Video-MME's
// videomme/test-00000-of-00001.parquet): each top-level column a string, a
// number, or a list of strings. Its bytes come from outside, so a
// malformed file is an error, never a crash.
type parquetTable struct {
	name string
	f    *os.File
	pf   *parquet.File
	// top is the top-level column of each leaf column; list says which
	// top-level columns are repeated.
	top  []string
	list map[string]bool
}

func openParquetTable(name string) (*parquetTable, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	pf, err := safeOpenParquet(f, st.Size())
	if err != nil {
		f.Close()
		return nil, &harness.ParseError{File: name, Err: fmt.Errorf("%w: %v", harness.ErrParquet, err)}
	}
	t := &parquetTable{name: name, f: f, pf: pf, list: map[string]bool{}}
	schema := pf.Schema()
	for _, path := range schema.Columns() {
		t.top = append(t.top, path[0])
		if leaf, ok := schema.Lookup(path...); ok && leaf.MaxRepetitionLevel > 0 {
			t.list[path[0]] = true
		}
	}
	return t, nil
}

func (t *parquetTable) Close() error { return t.f.Close() }

// has says whether the file has a top-level column called name.
func (t *parquetTable) has(name string) bool {
	for _, c := range t.top {
		if c == name {
			return true
		}
	}
	return false
}

// safeOpenParquet is parquet.OpenFile behind a check that the footer's
// length fits the file (the library allocates it before reading), with
// a panic or memory fault on malformed bytes turned into an error.
func safeOpenParquet(r io.ReaderAt, size int64) (f *parquet.File, err error) {
	if size < 12 {
		return nil, fmt.Errorf("malformed file: %d bytes, shorter than the magic numbers", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read footer: %w", err)
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n+12 > size {
		return nil, fmt.Errorf("malformed file: footer of %d bytes in a file of %d", n, size)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("malformed file: %v", p)
		}
	}()
	return parquet.OpenFile(r, size)
}

// A parquetRecord is one row: top-level column to string, float64 or
// []string; a null cell is absent.
type parquetRecord map[string]any

// each calls fn with every row, numbered from 1. A page that does not
// decode, or a string cell that is not UTF-8, is a *harness.ParseError
// naming the row.
func (t *parquetTable) each(ctx context.Context, fn func(n int, rec parquetRecord) error) error {
	r := parquet.NewReader(t.pf)
	defer r.Close()
	buf := make([]parquet.Row, 128)
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := safeReadRows(r, buf)
		for _, row := range buf[:k] {
			n++
			rec, field, err := t.record(row)
			if err != nil {
				return &harness.ParseError{File: t.name, Row: n, Field: field, Err: err}
			}
			if err := fn(n, rec); err != nil {
				return err
			}
		}
		if err == io.EOF || (err == nil && k == 0) {
			return nil
		}
		if err != nil {
			return &harness.ParseError{File: t.name, Row: n + 1, Err: fmt.Errorf("%w: %v", harness.ErrParquet, err)}
		}
	}
}

func safeReadRows(r *parquet.Reader, rows []parquet.Row) (n int, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("malformed page: %v", p)
		}
	}()
	return r.ReadRows(rows)
}

func (t *parquetTable) record(row parquet.Row) (parquetRecord, string, error) {
	rec := parquetRecord{}
	for _, v := range row {
		c := v.Column()
		if c < 0 || c >= len(t.top) {
			continue
		}
		col := t.top[c]
		if t.list[col] {
			if _, ok := rec[col]; !ok {
				rec[col] = []string{}
			}
		}
		if v.IsNull() {
			continue
		}
		var val any
		switch v.Kind() {
		case parquet.ByteArray, parquet.FixedLenByteArray:
			b := v.ByteArray()
			if !utf8.Valid(b) {
				return nil, col, harness.ErrInvalidUTF8
			}
			val = string(b)
		case parquet.Int32:
			val = float64(v.Int32())
		case parquet.Int64:
			val = float64(v.Int64())
		case parquet.Float:
			val = float64(v.Float())
		case parquet.Double:
			val = v.Double()
		case parquet.Boolean:
			val = strconv.FormatBool(v.Boolean())
		default:
			continue
		}
		if t.list[col] {
			s, ok := val.(string)
			if !ok {
				return nil, col, fmt.Errorf("%w: a list of %s, want a list of strings", harness.ErrFieldType, v.Kind())
			}
			rec[col] = append(rec[col].([]string), s)
			continue
		}
		rec[col] = val
	}
	return rec, "", nil
}
