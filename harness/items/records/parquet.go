package records

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
)

// ReadParquet reads the rows of the Parquet file at path, as the Hugging
// Face hub stores a dataset's split (lmms-lab/Video-MME's
// videomme/test-00000-of-00001.parquet). Each row is a Record named by its
// number (Parquet has no lines) whose fields are the top-level columns: a
// list column a JSON list, a group an object, a null cell absent. Its bytes
// come from outside, so a malformed file is an error, never a crash.
func ReadParquet(ctx context.Context, path string) ([]*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, openError(path, err)
	}
	if st.Size() > harness.MaxFileBytes {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: the file holds %d bytes, more than %d (MaxFileBytes)", harness.ErrTooLarge, st.Size(), int64(harness.MaxFileBytes))}
	}
	pf, err := safeOpenParquet(f, st.Size())
	if err != nil {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: %v", harness.ErrParquet, err)}
	}
	var out []*Record
	r := parquet.NewGenericReader[any](pf)
	defer r.Close()
	buf := make([]any, 128)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k, rerr := safeReadRows(r, buf)
		for _, row := range buf[:k] {
			n := len(out) + 1
			rec, field, err := parquetRecord(path, n, row)
			if err != nil {
				return nil, &harness.ParseError{File: path, Row: n, Field: field, Err: err}
			}
			out = append(out, rec)
		}
		clear(buf)
		if rerr == io.EOF || (rerr == nil && k == 0) {
			return out, nil
		}
		if rerr != nil {
			return nil, &harness.ParseError{File: path, Row: len(out) + 1, Err: fmt.Errorf("%w: %v", harness.ErrParquet, rerr)}
		}
	}
}

// ParquetColumns lists the top-level columns of the Parquet file at path,
// and which of them are lists, without reading its rows: enough to tell
// one dataset's table from another's.
func ParquetColumns(path string) (columns []string, lists map[string]bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, openError(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, openError(path, err)
	}
	pf, err := safeOpenParquet(f, st.Size())
	if err != nil {
		return nil, nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: %v", harness.ErrParquet, err)}
	}
	lists = map[string]bool{}
	schema := pf.Schema()
	for _, field := range schema.Fields() {
		columns = append(columns, field.Name())
	}
	for _, p := range schema.Columns() {
		if leaf, ok := schema.Lookup(p...); ok && leaf.MaxRepetitionLevel > 0 {
			lists[p[0]] = true
		}
	}
	return columns, lists, nil
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

// safeReadRows reads rows, a panic or memory fault on a malformed page
// turned into an error.
func safeReadRows(r *parquet.GenericReader[any], rows []any) (n int, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("malformed page: %v", p)
		}
	}()
	return r.Read(rows)
}

// parquetRecord makes the record of one row, as the library rebuilt it
// (a map of columns); it names the column of a string that is not UTF-8.
func parquetRecord(path string, n int, row any) (*Record, string, error) {
	m, ok := row.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("%w: the row is not a group of columns", harness.ErrParquet)
	}
	rec := &Record{File: path, N: n, fields: make(map[string]json.RawMessage, len(m))}
	for k, v := range m {
		v, err := jsonable(v)
		if err != nil {
			return nil, k, err
		}
		if v == nil {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, k, fmt.Errorf("%w: %v", harness.ErrParquet, err)
		}
		rec.fields[k] = b
	}
	return rec, "", nil
}

// jsonable turns a cell into what JSON writes as the same value: bytes
// into their text (refused when not UTF-8, which JSON would silently
// replace), a NaN or infinite number into its name, which the number
// getters then refuse.
func jsonable(v any) (any, error) {
	switch t := v.(type) {
	case []byte:
		if !utf8.Valid(t) {
			return nil, harness.ErrInvalidUTF8
		}
		return string(t), nil
	case string:
		if !utf8.ValidString(t) {
			return nil, harness.ErrInvalidUTF8
		}
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Sprint(t), nil
		}
	case float32:
		if math.IsNaN(float64(t)) || math.IsInf(float64(t), 0) {
			return fmt.Sprint(t), nil
		}
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			e, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			e, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			out[k] = e
		}
		return out, nil
	}
	return v, nil
}
