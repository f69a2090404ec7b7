package items

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Describe says in words what the file whose first bytes are head looks
// like, for errors that name the layout expected and the one found: "a
// pretty-printed JSON object", "an .xlsx workbook (a zip archive)", "a
// tab-separated table". It guesses from the bytes, not the name.
func Describe(path string, head []byte) string {
	b := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case len(b) == 0:
		return "an empty file"
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		return "a zip archive (an .xlsx workbook)"
	case bytes.HasPrefix(b, []byte("PAR1")):
		return "a Parquet file"
	case !utf8.Valid(b[:min(len(b), 1024)]) && !utf8.Valid(b[:min(len(b), 1021)]):
		return "binary bytes, not text"
	}
	line, _ := FirstLine(b)
	switch b[0] {
	case '{':
		if json.Valid(line) {
			return "JSON Lines (one object per line)"
		}
		return "a pretty-printed JSON object (one document over several lines, not one object per line)"
	case '[':
		return "a JSON array"
	}
	switch {
	case bytes.Count(line, []byte("\t")) >= 2:
		return "a tab-separated table"
	case bytes.Count(line, []byte(",")) >= 2:
		return "a comma-separated table"
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext != "" {
		return "text that is neither JSON nor a table (named " + ext + ")"
	}
	return "text that is neither JSON nor a table"
}
