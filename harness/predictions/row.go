package predictions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// A Row is one record of a predictions or benchmark file, before it is
// matched to an item (items.Row: the import formats share it).
type Row = items.Row

// A Format names a file layout.
type Format string

const (
	Project    Format = "vidscreen"  // {"id", "benchmark", "pred"} JSON Lines
	VLMEvalKit Format = "vlmevalkit" // result tables: .xlsx, .tsv, .csv
	LMMSEval   Format = "lmms-eval"  // samples_<task>_<time>.jsonl
)

// ErrFormat reports a file whose layout is none of the known ones.
var ErrFormat = errors.New("unknown layout")

// Describe names a layout as its users know it.
func (f Format) Describe() string {
	switch f {
	case Project:
		return "vidscreen predictions JSONL ({\"id\", \"benchmark\", \"pred\"} lines)"
	case VLMEvalKit:
		return "a VLMEvalKit table (.xlsx, .tsv, .csv)"
	case LMMSEval:
		return "an lmms-eval samples file (lines with filtered_resps)"
	}
	return string(f)
}

// Read reads every row of the file at path, choosing the layout from the
// name and content: .xlsx, .tsv and .csv are VLMEvalKit tables; a JSON
// Lines file whose first record has filtered_resps or doc is lmms-eval's,
// any other the project's. Errors are *harness.ParseError values naming the
// file, line or row, and field.
func Read(path string) ([]Row, Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xlsx":
		rows, err := readXLSX(path)
		return rows, VLMEvalKit, err
	case ".tsv", ".csv":
		f, err := os.Open(path)
		if err != nil {
			return nil, "", openError(path, err)
		}
		defer f.Close()
		rows, err := readDelimited(f, path)
		return rows, VLMEvalKit, err
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		// lmms-eval v0.2.0-v0.2.3 wrote <task>.json, one object with logs.
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, "", openError(path, err)
		}
		if isLMMSEvalLogs(b) {
			rows, err := readLMMSEvalLogs(b, path)
			return rows, LMMSEval, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", openError(path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	format, err := sniffJSONL(br)
	if err != nil {
		return nil, "", &harness.ParseError{File: path, Err: err}
	}
	var rows []Row
	if format == LMMSEval {
		rows, err = readLMMSEval(br, path)
	} else {
		rows, err = readProject(br, path)
	}
	return rows, format, err
}

// sniffJSONL peeks at the first non-blank line: lmms-eval's samples carry
// filtered_resps (and doc) on every line.
func sniffJSONL(br *bufio.Reader) (Format, error) {
	for n := 64 << 10; ; n *= 4 {
		b, err := br.Peek(n)
		line := bytes.TrimLeft(b, " \t\r\n\ufeff")
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		} else if err == nil {
			continue // the first line is longer than what was peeked
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return "", fmt.Errorf("%w: the file is empty", ErrFormat)
		}
		if line[0] != '{' {
			return "", fmt.Errorf("%w: not JSON Lines, an .xlsx, .tsv or .csv table", ErrFormat)
		}
		if bytes.Contains(line, []byte(`"filtered_resps"`)) || bytes.Contains(line, []byte(`"doc"`)) {
			return LMMSEval, nil
		}
		return Project, nil
	}
}

func openError(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &harness.ParseError{File: name, Err: err}
}

// readLines calls fn with each non-blank line and its 1-based number.
func readLines(r io.Reader, name string, fn func(line []byte, n int) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("read %s: %w", name, err)
		}
		if n == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if err := fn(b, n); err != nil {
			return err
		}
	}
}
