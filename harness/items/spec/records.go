package spec

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// A record is one annotation record, with where it came from, its fields
// decoded for the spec's templates.
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

// readRecords reads every record of the file at path through
// records.Read: .json (a list, or the records at path recordPath), .jsonl,
// .csv, .tsv (stray quotes read as text: hand-made tables have them) and
// .parquet. A JSON file's records are named by their number, as the
// spec's users count the entries of its list. Each record gets __file
// (the path) and, where a "*" of the records path took it, __key.
func readRecords(path, recordPath string) ([]record, error) {
	recs, err := records.Read(context.Background(), path, recordPath, records.Dialect{LazyQuotes: true})
	if err != nil {
		return nil, err
	}
	byNumber := strings.EqualFold(filepath.Ext(path), ".json")
	out := make([]record, len(recs))
	for i, r := range recs {
		out[i] = record{file: path, line: r.Line, rec: r.N, fields: r.Values()}
		if byNumber {
			out[i].line = 0
		}
		if r.Key != "" {
			out[i].fields["__key"] = r.Key
		}
		out[i].fields["__file"] = path
	}
	return out, nil
}

// kind names the kind of a decoded value in errors.
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
