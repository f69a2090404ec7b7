package formats

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// VLMEvalKit is VLMEvalKit's tables: a dataset's TSV (index, video,
// question, the options as A, B, ... columns or a candidates list, answer)
// and a model's results, outputs/<model>/<model>_<dataset>.xlsx (the
// default), .tsv, .csv or, with PRED_FORMAT=json, .json (the rows as an
// array of objects), the dataset's columns followed by prediction.
func VLMEvalKit() items.Format {
	return items.Format{
		Name:  "vlmevalkit",
		Title: "VLMEvalKit table",
		Files: "outputs/<model>/<model>_<dataset>.xlsx (.tsv, .csv, or .json with PRED_FORMAT=json), or a dataset's <dataset>.tsv",
		Detect: func(path string, head []byte) bool {
			switch strings.ToLower(filepath.Ext(path)) {
			case ".xlsx":
				return bytes.HasPrefix(head, []byte("PK\x03\x04"))
			case ".pkl":
				// A pickle (protocol 2 and on opens with 0x80), named
				// <model>_<dataset>.pkl: read only to say what to do.
				return len(head) > 1 && head[0] == 0x80 && strings.Contains(filepath.Base(path), "_")
			case ".tsv", ".csv":
				line, _ := items.FirstLine(head)
				cols := headerColumns(path, line)
				return cols["index"] && cols["question"]
			case ".json":
				b := bytes.TrimLeft(head, " \t\r\n\ufeff")
				return len(b) > 0 && b[0] == '[' && bytes.Contains(b, []byte(`"index"`)) && bytes.Contains(b, []byte(`"question"`))
			}
			return false
		},
		Read: func(ctx context.Context, paths []string, opt items.Options) (*items.Result, error) {
			res := &items.Result{}
			for _, p := range paths {
				rows, err := ReadVLMEvalKit(ctx, p)
				if err != nil {
					return nil, err
				}
				res.Rows = append(res.Rows, rows...)
			}
			return res, nil
		},
	}
}

// headerColumns lower-cases the names of a table's header line.
func headerColumns(path string, line []byte) map[string]bool {
	sep := ","
	if strings.EqualFold(filepath.Ext(path), ".tsv") {
		sep = "\t"
	}
	cols := map[string]bool{}
	for _, c := range strings.Split(string(line), sep) {
		cols[strings.ToLower(strings.Trim(strings.TrimSpace(c), `"`))] = true
	}
	return cols
}

// DatasetName is the benchmark of a VLMEvalKit file: the dataset in
// outputs/<model>/<model>_<dataset>.xlsx, the model (the parent folder)
// stripped from the name so that two models' files for one dataset are one
// benchmark; the base name when it does not follow that pattern. Today's
// run.py writes the file into a run folder, outputs/<model>/<eval id>/
// (build_eval_id's T<YYYYmmdd>-<HHMMSS>, earlier T<YYYYmmdd>_G<commit>),
// and links it from outputs/<model>/: the model is then the folder above.
// A video dataset's name carries how its videos were sampled
// (vlmeval/dataset/video_dataset_config.py: Video-MME_8frame,
// Video-MME_0.5fps_subs, MVBench_MP4_1fps): the items are the dataset's
// whatever the sampling, so that part goes too, and an 8-frame and a
// 1-fps run of one dataset are one benchmark.
func DatasetName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	dir := filepath.Dir(path)
	if evalID.MatchString(filepath.Base(dir)) {
		dir = filepath.Dir(dir)
	}
	model := filepath.Base(dir)
	if model != "." && model != "/" && strings.HasPrefix(base, model+"_") && len(base) > len(model)+1 {
		base = base[len(model)+1:]
	}
	if loc := videoSetting.FindStringIndex(base); loc != nil && loc[0] > 0 {
		base = base[:loc[0]]
	}
	return base
}

// videoSetting is the sampling part of a VLMEvalKit video dataset's name,
// with what follows it: _8frame, _64frame_subs, _1fps, _0.5fps_subs.
var videoSetting = regexp.MustCompile(`_(?:\d+frame|\d+(?:\.\d+)?fps)(?:_[A-Za-z0-9.]+)*$`)

// evalID is the name of a VLMEvalKit run folder (vlmeval/smp/file.py's
// NEW_EVAL_ID_PATTERN and LEGACY_EVAL_ID_PATTERN).
var evalID = regexp.MustCompile(`^T\d{8}(?:-\d{6}|_G[0-9a-fA-F]+)$`)

// ReadVLMEvalKit reads one VLMEvalKit table, choosing by the file name.
func ReadVLMEvalKit(ctx context.Context, path string) ([]items.Row, error) {
	var rows []items.Row
	var err error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pkl":
		return nil, pickleError(path)
	case ".xlsx":
		rows, err = readXLSX(ctx, path)
	case ".json":
		rows, err = readJSONRecords(ctx, path)
	default:
		var f *os.File
		if f, err = os.Open(path); err != nil {
			return nil, items.OpenError(path, err)
		}
		defer f.Close()
		rows, err = ReadDelimited(ctx, f, path)
	}
	if err != nil {
		return nil, err
	}
	bench := DatasetName(path)
	for i := range rows {
		if rows[i].Benchmark == "" {
			rows[i].Benchmark = bench
		}
	}
	return rows, nil
}

// expected names VLMEvalKit's layout for a file's extension, in errors.
func expected(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xlsx":
		return "VLMEvalKit's result workbook (.xlsx)"
	case ".json":
		return "VLMEvalKit's PRED_FORMAT=json results (a JSON array of row objects)"
	case ".tsv":
		return "VLMEvalKit's tab-separated table"
	}
	return "VLMEvalKit's comma-separated table"
}

// pickleError says what to do with the .pkl VLMEvalKit's dump writes
// when it cannot write the table it was asked for (vlmeval/smp/file.py:
// "Failed to dump to {suffix} format, falling back to pkl"): a pickled
// DataFrame, which only Python reads.
func pickleError(path string) error {
	if _, err := os.Stat(path); err != nil {
		return items.OpenError(path, err)
	}
	return &harness.ParseError{File: path, Err: fmt.Errorf("%w: a Python pickle, which VLMEvalKit writes when it fails to write the .xlsx, .tsv or .json it was asked for: write it as a table with python -c \"import pandas as pd; pd.read_pickle('%s').to_csv('%s', sep='\\t', index=False)\" and import the .tsv", harness.ErrNotAFile, path, strings.TrimSuffix(path, filepath.Ext(path))+".tsv")}
}

// wrongLayout is a file that is not the VLMEvalKit layout its name says.
func wrongLayout(path string) error {
	head, err := items.Head(path)
	if err != nil {
		return err
	}
	return &harness.ParseError{File: path, Err: fmt.Errorf("%w: expected %s, found %s", harness.ErrSyntax, expected(path), items.Describe(path, head))}
}

// ReadDelimited reads a VLMEvalKit table written as TSV (its data files,
// and results saved with a .tsv suffix) or CSV: a header row, then one row
// per question.
func ReadDelimited(ctx context.Context, r io.Reader, name string) ([]items.Row, error) {
	cr := csv.NewReader(r)
	if strings.EqualFold(filepath.Ext(name), ".tsv") {
		cr.Comma = '\t'
	}
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &harness.ParseError{File: name, Err: fmt.Errorf("%w: the table is empty", harness.ErrNoItems)}
	}
	if err != nil {
		return nil, &harness.ParseError{File: name, Line: 1, Err: records.Reword(harness.ErrSyntax, tableSyntaxText(err))}
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	t, err := newTable(header, name)
	if err != nil {
		return nil, err
	}
	var rows []items.Row
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cells, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, &harness.ParseError{File: name, Line: line, Err: records.Reword(harness.ErrSyntax, tableSyntaxText(err))}
		}
		// A tab inside a cell shifts every column after it (the task
		// becomes a piece of the question), a short row loses its last
		// cells: either is refused, as pandas refuses a row longer than
		// the header, and VLMEvalKit's own tables write every cell.
		if len(cells) != len(header) {
			return nil, &harness.ParseError{File: name, Line: line, Err: fmt.Errorf("%w: the row has %d fields, the header %d%s", harness.ErrBadValue, len(cells), len(header), fieldHint(cr.Comma, len(cells) > len(header)))}
		}
		m, err := t.cells(cells, line, 0)
		if err != nil {
			return nil, err
		}
		row, err := t.row(m, fmt.Sprintf("%s:%d", name, line), line, 0)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
}

// tableSyntaxText is a malformed row's error in words: "not a JSON
// object", ErrSyntax's own text, is wrong for a table.
func tableSyntaxText(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	msg := fmt.Sprintf("not a well-formed table: %v", err)
	if errors.Is(err, csv.ErrQuote) {
		msg += " (a quoted cell that does not close where it should: is the file cut short?)"
	}
	return msg
}

// fieldHint says the likely cause of a row with more or fewer fields
// than its header.
func fieldHint(comma rune, more bool) string {
	sep := "comma"
	if comma == '\t' {
		sep = "tab"
	}
	if more {
		return fmt.Sprintf(" (a %s inside a cell that is not quoted?)", sep)
	}
	return " (a row cut short, or a line break inside a cell that is not quoted?)"
}

// readXLSX reads the first sheet of a VLMEvalKit result workbook. Rows are
// numbered as a spreadsheet shows them, the header being row 1.
func readXLSX(ctx context.Context, path string) ([]items.Row, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, items.OpenError(path, err)
	}
	if err := checkWorkbookZip(path); err != nil {
		return nil, err
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		return nil, wrongLayout(path)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: the workbook has no sheet", harness.ErrNoItems)}
	}
	it, err := f.Rows(sheets[0])
	if err != nil {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: sheet %q: %v", harness.ErrSyntax, sheets[0], err)}
	}
	defer it.Close()
	var t *table
	var rows []items.Row
	for n := 1; it.Next(); n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cells, err := it.Columns()
		if err != nil {
			return nil, &harness.ParseError{File: path, Row: n, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
		}
		if t == nil {
			if t, err = newTable(cells, path); err != nil {
				return nil, err
			}
			continue
		}
		if len(strings.Join(cells, "")) == 0 {
			continue // a blank row
		}
		m, err := t.cells(cells, 0, n)
		if err != nil {
			return nil, err
		}
		row, err := t.row(m, fmt.Sprintf("%s: row %d", path, n), 0, n)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	if t == nil {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: the sheet is empty", harness.ErrNoItems)}
	}
	return rows, it.Error()
}

// readJSONRecords reads PRED_FORMAT=json results: the table's rows as one
// JSON array of objects (pandas' records, indented). Python's json writes
// a missing cell as NaN, which is no JSON: it is read as null. Row n is
// the array's n-th object.
func readJSONRecords(ctx context.Context, path string) ([]items.Row, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, items.OpenError(path, err)
	}
	if t := bytes.TrimLeft(b, " \t\r\n\ufeff"); len(t) == 0 || t[0] != '[' {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: expected %s, found %s", harness.ErrSyntax, expected(path), items.Describe(path, b))}
	}
	if !utf8.Valid(b) {
		return nil, &harness.ParseError{File: path, Err: harness.ErrInvalidUTF8}
	}
	d := json.NewDecoder(bytes.NewReader(nanToNull(bytes.TrimPrefix(b, []byte("\ufeff")))))
	d.UseNumber()
	var recs []map[string]any
	if err := d.Decode(&recs); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &harness.ParseError{File: path, Line: 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n")), Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
		}
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: expected %s: %v", harness.ErrSyntax, expected(path), err)}
	}
	if d.More() {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: text after the array of rows: the file holds one JSON array", harness.ErrSyntax)}
	}
	var header []string
	seen := map[string]bool{}
	for _, r := range recs {
		for k := range r {
			if lk := strings.ToLower(strings.TrimSpace(k)); !seen[lk] {
				seen[lk] = true
				header = append(header, k)
			}
		}
	}
	t, err := newTable(header, path)
	if err != nil {
		return nil, err
	}
	rows := make([]items.Row, 0, len(recs))
	for i, r := range recs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r == nil {
			return nil, &harness.ParseError{File: path, Row: i + 1, Err: fmt.Errorf("%w: want each row as an object", harness.ErrFieldType)}
		}
		m := items.NewRecord(r)
		for k, v := range m {
			if list, ok := v.([]any); ok && k != "options" && k != "candidates" && k != "choices" {
				m[k] = fmt.Sprint(list)
			}
		}
		row, err := t.row(m, fmt.Sprintf("%s: row %d", path, i+1), 0, i+1)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// nanToNull replaces the bare NaN, Infinity and -Infinity tokens Python's
// json module writes outside strings with null.
func nanToNull(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				out = append(out, b[i+1])
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
		case bytes.HasPrefix(b[i:], []byte("NaN")):
			out, i = append(out, "null"...), i+2
			continue
		case bytes.HasPrefix(b[i:], []byte("-Infinity")):
			out, i = append(out, "null"...), i+8
			continue
		case bytes.HasPrefix(b[i:], []byte("Infinity")):
			out, i = append(out, "null"...), i+7
			continue
		}
		out = append(out, c)
	}
	return out
}

// A table maps a header row to the fields of a Row.
type table struct {
	name    string
	columns []string // lower-cased header
	hasPred bool
	// taskCols are the header's task columns other than category, in
	// the order items.Record.Task looks for them; categoryGroup says that
	// category is the capability group: the table has a task column
	// beside it and no group column, as vidscreen's export writes
	// (task_type, then category) and as VLMEvalKit's video tables that
	// carry both break scores down.
	taskCols      []string
	categoryGroup bool
}

// vlmTaskColumns are the task columns a category column stands beside.
var vlmTaskColumns = []string{"task", "task_type", "task_category", "question_type"}

func newTable(header []string, name string) (*table, error) {
	t := &table{name: name}
	rec := items.Record{}
	for _, h := range header {
		c := strings.ToLower(strings.TrimSpace(h))
		t.columns = append(t.columns, c)
		rec[c] = "x"
	}
	if !rec.HasQuestion() {
		if rec.Has("doc_id", "filtered_resps", "doc", "target") {
			return nil, &harness.ParseError{File: name, Line: 1, Err: fmt.Errorf("%w: this is an lmms-eval samples file, not a VLMEvalKit table: use `vidscreen import lmms-eval`", harness.ErrNotAFile)}
		}
		return nil, &harness.ParseError{File: name, Line: 1, Field: "question", Err: fmt.Errorf("%w: expected %s with a question column, found the columns %q", harness.ErrMissingField, expected(name), header)}
	}
	t.hasPred = rec.HasPrediction()
	for _, c := range vlmTaskColumns {
		if rec.Has(c) {
			t.taskCols = append(t.taskCols, c)
		}
	}
	t.categoryGroup = len(t.taskCols) > 0 && rec.Has("category") && !rec.Has("group")
	return t, nil
}

// cells maps a table row's cells to its columns; line (CSV, TSV) or rec
// (xlsx) locates it.
func (t *table) cells(cells []string, line, rec int) (items.Record, error) {
	m := items.Record{}
	for i, c := range cells {
		if i >= len(t.columns) || t.columns[i] == "" {
			continue
		}
		if !utf8.ValidString(c) {
			return nil, &harness.ParseError{File: t.name, Line: line, Row: rec, Field: t.columns[i], Err: harness.ErrInvalidUTF8}
		}
		m[t.columns[i]] = c
	}
	return m, nil
}

// row reads one data row.
func (t *table) row(r items.Record, source string, line, rec int) (items.Row, error) {
	row := items.Row{Source: source, File: t.name, Line: line, Rec: rec, Choice: -1, GoldIndex: -1, HasPrediction: t.hasPred}
	row.ID = r.ID()
	row.Benchmark = r.Benchmark()
	row.Video, row.VideoFrom = r.Video()
	row.Video = tableVideo(r, row.Video)
	row.VideoPath = r.Str("video_path")
	row.Question = r.Question()
	// With a task column, a blank task cell is an item without a task, not
	// one whose task is its category; without one, category is the task.
	switch {
	case len(t.taskCols) > 0:
		row.Task = r.Str(t.taskCols...)
	default:
		row.Task = r.Task()
	}
	row.Group = r.Str("group")
	if t.categoryGroup {
		row.Group = r.Str("category")
	}
	row.Duration, row.DurationGroup = r.Duration()
	if err := tableClip(r, &row); err != nil {
		return items.Row{}, err
	}
	var field string
	var err error
	if row.Options, field, err = r.Options(); err != nil {
		return items.Row{}, &harness.ParseError{File: t.name, Line: line, Row: rec, Field: field, Err: items.OptionsError(err)}
	}
	row.Gold, _ = r.GoldAnswer()
	row.GoldIndex = -1
	tableGold(r, &row)
	row.Reply, row.ReplyField = r.Prediction(), "prediction"
	return row, nil
}
