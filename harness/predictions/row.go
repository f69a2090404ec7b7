package predictions

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/formats"
)

// A Row is one record of a predictions or benchmark file, before it is
// matched to an item (items.Row: the import formats share it).
type Row = items.Row

// A Format names a file layout.
type Format string

const (
	Project    Format = "vidscreen"  // {"id", "benchmark", "pred"} JSON Lines
	VLMEvalKit Format = "vlmevalkit" // result tables: .xlsx, .tsv, .csv, .json
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
		return "a VLMEvalKit table (.xlsx, .tsv, .csv, .json)"
	case LMMSEval:
		return "an lmms-eval samples file (lines with filtered_resps)"
	}
	return string(f)
}

// Read reads every row of the file at path, choosing the layout from the
// name and content: .xlsx, .tsv and .csv, and a .json array, are
// VLMEvalKit tables (formats.VLMEvalKit); lmms-eval's v0.2 <task>.json and
// a JSON Lines file whose first record has filtered_resps or doc are
// lmms-eval's (formats.LMMSEval); any other JSON Lines file is the
// project's. Errors are *harness.ParseError values naming the file, line
// or row, and field.
func Read(ctx context.Context, path string) ([]Row, Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".xlsx", ".tsv", ".csv", ".pkl":
		rows, err := formats.ReadVLMEvalKit(ctx, path)
		return rows, VLMEvalKit, err
	}
	head, err := items.Head(path)
	if err != nil {
		return nil, "", err
	}
	if formats.LMMSEval().Detect(path, head) {
		rows, err := readLMMSEval(ctx, path)
		return rows, LMMSEval, err
	}
	if ext == ".json" && formats.VLMEvalKit().Detect(path, head) {
		rows, err := formats.ReadVLMEvalKit(ctx, path)
		return rows, VLMEvalKit, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", items.OpenError(path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	format, err := sniffJSONL(br)
	if err != nil {
		return nil, "", &harness.ParseError{File: path, Err: err}
	}
	if format == LMMSEval {
		rows, err := readLMMSEval(ctx, path)
		return rows, LMMSEval, err
	}
	rows, err := readProject(br, path)
	return rows, Project, err
}

// readLMMSEval reads an lmms-eval samples file for matching to the
// audit's items, which give the options a log-likelihood task's bare
// prompt lacks (items.Options.ItemsFrom).
func readLMMSEval(ctx context.Context, path string) ([]Row, error) {
	opt := items.NoOptions()
	opt.ItemsFrom = true
	res, err := formats.LMMSEval().Read(ctx, []string{path}, opt)
	if err != nil {
		return nil, err
	}
	return res.Rows, nil
}
