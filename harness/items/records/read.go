package records

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// Read reads every record of the file at path by its extension: .json (the
// records recordPath names, see Path; a file of one object a line is read
// as JSON Lines), .jsonl or .ndjson, .csv, .tsv and .parquet.
func Read(ctx context.Context, path, recordPath string, d Dialect) ([]*Record, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json":
		recs, err := Path(ctx, path, recordPath)
		if err != nil && !errors.Is(err, context.Canceled) {
			// A file of one object a line named .json: its first
			// object is no list of records, or a second follows it.
			if lines, lerr := Lines(ctx, path); lerr == nil && len(lines) > 1 {
				return lines, nil
			}
		}
		return recs, err
	case ".jsonl", ".ndjson":
		return Lines(ctx, path)
	case ".csv", ".tsv":
		// Hand-made tables end rows early: their last cells are absent.
		d.Comma, d.Ragged = ',', true
		if ext == ".tsv" {
			d.Comma = '\t'
		}
		t, err := ReadTable(ctx, path, d)
		if err != nil {
			return nil, err
		}
		return t.Rows, nil
	case ".parquet":
		return ReadParquet(ctx, path)
	default:
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: %q files are not read: want .json, .jsonl, .csv, .tsv or .parquet", harness.ErrNotAFile, ext)}
	}
}
