package predictions

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/vidscreen/vidscreen/harness"
)

// readDelimited reads a VLMEvalKit table written as TSV (its data files,
// and results saved with a .tsv suffix) or CSV: a header row, then one row
// per question.
func readDelimited(r io.Reader, name string) ([]Row, error) {
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
		return nil, &harness.ParseError{File: name, Line: 1, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	t, err := newTable(header, name)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for {
		cells, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, &harness.ParseError{File: name, Line: line, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
		}
		row, err := t.row(cells, fmt.Sprintf("%s:%d", name, line), line, 0)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
}

// readXLSX reads the first sheet of a VLMEvalKit result workbook (it saves
// each model's answers on a dataset as <model>_<dataset>.xlsx, the data
// columns followed by prediction). Rows are numbered as a spreadsheet shows
// them, the header being row 1.
func readXLSX(path string) ([]Row, error) {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: not an .xlsx workbook: %v", harness.ErrSyntax, err)}
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: the workbook has no sheet", harness.ErrNoItems)}
	}
	it, err := f.Rows(sheets[0])
	if err != nil {
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
	}
	defer it.Close()
	var t *table
	var rows []Row
	for n := 1; it.Next(); n++ {
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
		row, err := t.row(cells, fmt.Sprintf("%s: row %d", path, n), 0, n)
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

// A table maps a header row to the fields of a Row.
type table struct {
	name    string
	columns []string // lower-cased header
	hasPred bool
}

func newTable(header []string, name string) (*table, error) {
	t := &table{name: name}
	for _, h := range header {
		t.columns = append(t.columns, strings.ToLower(strings.TrimSpace(h)))
	}
	rec := record{}
	for _, c := range t.columns {
		rec[c] = "x"
	}
	if _, _, ok := rec.first(questionNames); !ok {
		return nil, &harness.ParseError{File: name, Line: 1, Field: "question", Err: fmt.Errorf("%w: no question column among %q", harness.ErrMissingField, header)}
	}
	_, _, t.hasPred = rec.first(predNames)
	return t, nil
}

// row reads one data row; line (CSV, TSV) or rec (xlsx) locates it.
func (t *table) row(cells []string, source string, line, rec int) (Row, error) {
	m := map[string]any{}
	for i, c := range cells {
		if i >= len(t.columns) || t.columns[i] == "" {
			continue
		}
		if !utf8.ValidString(c) {
			return Row{}, &harness.ParseError{File: t.name, Line: line, Row: rec, Field: t.columns[i], Err: harness.ErrInvalidUTF8}
		}
		m[t.columns[i]] = c
	}
	r := record(m)
	row := Row{Source: source, File: t.name, Line: line, Rec: rec, Choice: -1, GoldIndex: -1, HasPrediction: t.hasPred}
	row.ID = numberText(r.str(idNames))
	row.Benchmark = r.str(benchNames)
	row.Video = r.str(videoNames)
	row.Question = r.str(questionNames)
	row.Task = r.str(taskNames)
	row.Duration = r.number([]string{"duration"})
	var field string
	var err error
	if row.Options, field, err = r.options(); err != nil {
		return Row{}, &harness.ParseError{File: t.name, Line: line, Row: rec, Field: field, Err: fmt.Errorf("%w: %v", harness.ErrFieldType, err)}
	}
	row.Gold = r.str(goldNames)
	row.Reply = r.str(predNames)
	return row, nil
}
