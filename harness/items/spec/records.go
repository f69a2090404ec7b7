package spec

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
)

// A record is one annotation record, with where it came from.
type record struct {
	file      string
	line, rec int // 1-based line (JSON Lines, CSV) or record number (JSON, Parquet)
	fields    map[string]any
}

func (r *record) source() string {
	if r.line > 0 {
		return fmt.Sprintf("%s:%d", r.file, r.line)
	}
	return fmt.Sprintf("%s: row %d", r.file, r.rec)
}

func (r *record) fail(field string, err error) error {
	return &harness.ParseError{File: r.file, Line: r.line, Row: r.rec, Field: field, Err: err}
}

// readRecords reads every record of the file at path by its extension:
// .json (a list, or the list at path records), .jsonl, .csv, .tsv and
// .parquet. Each record gets __file (the path) and, where a "*" of the
// records path took it, __key.
func readRecords(path, records string) ([]record, error) {
	var recs []record
	var err error
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json":
		recs, err = readJSON(path, records)
	case ".jsonl", ".ndjson":
		recs, err = readJSONLines(path)
	case ".csv", ".tsv":
		recs, err = readDelimited(path, ext == ".tsv")
	case ".parquet":
		recs, err = readParquet(path)
	default:
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: %q files are not read: want .json, .jsonl, .csv, .tsv or .parquet", harness.ErrNotAFile, ext)}
	}
	for i := range recs {
		recs[i].fields["__file"] = path
	}
	return recs, err
}

func openError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &harness.ParseError{File: path, Err: err}
}

func readJSON(path, records string) ([]record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, openError(path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
	}
	if dec.More() {
		// A second value after the first: JSON Lines named .json.
		return readJSONLines(path)
	}
	var vals []keyed
	if records == "" {
		vals, err = defaultRecords(top)
	} else {
		vals, err = walk(top, strings.Split(records, "."), "")
	}
	if err != nil {
		return nil, &harness.ParseError{File: path, Err: err}
	}
	out := make([]record, 0, len(vals))
	for i, v := range vals {
		m, ok := v.v.(map[string]any)
		if !ok {
			return nil, &harness.ParseError{File: path, Row: i + 1, Err: fmt.Errorf("%w: the record is a %s, not an object (set records: to the path of the record list)", harness.ErrFieldType, kind(v.v))}
		}
		if v.key != "" {
			m["__key"] = v.key
		}
		out = append(out, record{file: path, rec: i + 1, fields: m})
	}
	return out, nil
}

type keyed struct {
	key string
	v   any
}

// defaultRecords is the top-level list, or the one list of objects a
// top-level object holds.
func defaultRecords(top any) ([]keyed, error) {
	switch t := top.(type) {
	case []any:
		return walk(t, []string{"*"}, "")
	case map[string]any:
		var found []string
		for k, v := range t {
			if l, ok := v.([]any); ok && len(l) > 0 {
				if _, ok := l[0].(map[string]any); ok {
					found = append(found, k)
				}
			}
		}
		if len(found) == 1 {
			return walk(t, []string{found[0], "*"}, "")
		}
		return nil, fmt.Errorf("%w: the file is an object, and %d of its keys hold a list of records: set records: (for example \"data.*\", or \"*.*\" for an object of objects)", harness.ErrFieldType, len(found))
	}
	return nil, fmt.Errorf("%w: the file holds a %s, not a list of records", harness.ErrFieldType, kind(top))
}

// walk follows path from v; "*" takes every key (in sorted order, so the
// records are numbered the same on every run) or element.
func walk(v any, path []string, key string) ([]keyed, error) {
	if len(path) == 0 {
		return []keyed{{key, v}}, nil
	}
	k := path[0]
	switch t := v.(type) {
	case map[string]any:
		if k != "*" {
			c, ok := t[k]
			if !ok {
				return nil, fmt.Errorf("%w: records: no key %q", harness.ErrMissingField, k)
			}
			return walk(c, path[1:], key)
		}
		var out []keyed
		for _, kk := range sortedKeys(t) {
			sub, err := walk(t[kk], path[1:], kk)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	case []any:
		if k != "*" {
			return nil, fmt.Errorf("%w: records: %q on a list (use *)", harness.ErrFieldType, k)
		}
		var out []keyed
		for _, c := range t {
			sub, err := walk(c, path[1:], key)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: records: %q on a %s", harness.ErrFieldType, k, kind(v))
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "list"
	case string:
		return "string"
	case nil:
		return "null"
	}
	return "number"
}

func readJSONLines(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var out []record
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if n == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, &harness.ParseError{File: path, Line: n, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
		}
		out = append(out, record{file: path, line: n, fields: m})
	}
}

func readDelimited(path string, tabs bool) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	if tabs {
		r.Comma = '\t'
	}
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, &harness.ParseError{File: path, Line: 1, Err: fmt.Errorf("%w: no header row: %v", harness.ErrSyntax, err)}
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	var out []record
	for {
		line, _ := r.FieldPos(0)
		cells, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, &harness.ParseError{File: path, Line: line, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
		}
		line, _ = r.FieldPos(0)
		if len(cells) > len(header) {
			return nil, &harness.ParseError{File: path, Line: line, Err: fmt.Errorf("%w: %d cells under a header of %d", harness.ErrBadValue, len(cells), len(header))}
		}
		m := make(map[string]any, len(header))
		for i, h := range header {
			if i < len(cells) {
				m[h] = cells[i]
			}
		}
		out = append(out, record{file: path, line: line, fields: m})
	}
}

func readParquet(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, openError(path, err)
	}
	rows, err := parquet.Read[any](f, st.Size())
	if err != nil {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: %v", harness.ErrParquet, err)}
	}
	out := make([]record, 0, len(rows))
	for i, row := range rows {
		m, ok := row.(map[string]any)
		if !ok {
			return nil, &harness.ParseError{File: path, Row: i + 1, Err: fmt.Errorf("%w: the row is not a group of columns", harness.ErrParquet)}
		}
		out = append(out, record{file: path, rec: i + 1, fields: m})
	}
	return out, nil
}
