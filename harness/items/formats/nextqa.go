package formats

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// NExTQA reads NExT-QA's multiple-choice annotation tables as its
// repository ships them (doc-doc/NExT-QA, dataset/nextqa/{train,val,test}.csv):
// a header row video,frame_count,width,height,question,answer,qid,type,a0..a4,
// then one question per row. answer is a 0-based index into a0..a4 (the
// layout defines it, so a digit is never ambiguous here); qid numbers the
// questions within one video, so the item id is <split>/<video>_<qid>, the
// split being the file's name (val.csv gives val/...), as the project's own
// NExT-QA items are named.
func NExTQA() items.Format {
	return items.Format{
		Name:   "nextqa",
		Title:  "NExT-QA",
		Files:  "val.csv, test.csv (or train.csv) from doc-doc/NExT-QA dataset/nextqa/, or MC/test-00000-of-00001.parquet from lmms-eval/NExTQA",
		Detect: detectNExTQA,
		Read:   readNExTQA,
	}
}

// nextqaRequired are the columns every NExT-QA table has; a0 and a1 are
// checked with the options.
var nextqaRequired = []string{"video", "question", "answer", "qid"}

// detectNExTQA claims a CSV whose header names NExT-QA's columns: video,
// qid, answer and the option columns a0, a1.
func detectNExTQA(path string, head []byte) bool {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return detectNExTQAParquet(path)
	}
	if !strings.EqualFold(filepath.Ext(path), ".csv") {
		return false
	}
	first, _, _ := bytes.Cut(bytes.TrimPrefix(head, []byte("\ufeff")), []byte("\n"))
	cols, err := csv.NewReader(bytes.NewReader(first)).Read()
	if err != nil {
		return false
	}
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	for _, c := range append(slices.Clone(nextqaRequired), "a0", "a1") {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

func readNExTQA(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	res := &items.Result{}
	seen := map[string]string{}
	for _, p := range paths {
		if err := readNExTQAFile(ctx, p, seen, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// nextqaSplit is the split a table's rows belong to: its file name
// without the extension (val.csv: val).
func nextqaSplit(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func readNExTQAFile(ctx context.Context, name string, seen map[string]string, res *items.Result) error {
	if strings.EqualFold(filepath.Ext(name), ".parquet") {
		return readNExTQAParquet(ctx, name, seen, res)
	}
	t, err := records.ReadTable(ctx, name, records.Dialect{Comma: ','})
	if err != nil {
		return err
	}
	for _, c := range nextqaRequired {
		if !t.Has(c) {
			return &harness.ParseError{File: name, Line: 1, Field: c, Err: fmt.Errorf("%w: no column %s (NExT-QA's header is video,frame_count,width,height,question,answer,qid,type,a0,...,a4)", harness.ErrMissingField, c)}
		}
	}
	optCols, err := nextqaOptionColumns(name, t)
	if err != nil {
		return err
	}
	split := nextqaSplit(name)
	return nextqaRows(t.Rows, split, optCols, t.Has("type"), seen, res)
}

// nextqaRows adds the rows of one table to res; seen holds the ids already
// read, which must not repeat.
func nextqaRows(recs []*records.Record, split string, optCols []string, hasType bool, seen map[string]string, res *items.Result) error {
	for _, rec := range recs {
		row, err := nextqaRow(rec, split, optCols, hasType)
		if err != nil {
			return err
		}
		if rec.Line == 0 {
			row.Rec = rec.N // a Parquet row
		}
		if prev, dup := seen[row.ID]; dup {
			return rec.Fail("qid", harness.ErrDuplicateID, "%q, also at %s (qid numbers the questions of one video: video and qid repeat together)", row.ID, prev)
		}
		seen[row.ID] = row.Source
		res.Rows = append(res.Rows, row)
	}
	return nil
}

// nextqaOptionColumns returns the option columns a0, a1, ... in order.
// They must run from a0 without a gap: a table with a0, a1, a3 would
// otherwise lose its last options silently.
func nextqaOptionColumns(name string, t *records.Table) ([]string, error) {
	var idx []string
	for i := 0; t.Has("a" + strconv.Itoa(i)); i++ {
		idx = append(idx, "a"+strconv.Itoa(i))
	}
	if len(idx) < 2 {
		return nil, &harness.ParseError{File: name, Line: 1, Field: "a" + strconv.Itoa(len(idx)), Err: fmt.Errorf("%w: no column a%d (NExT-QA's options are the columns a0..a4)", harness.ErrMissingField, len(idx))}
	}
	for _, h := range t.Header {
		if n, ok := optionColumnNumber(h); ok && n > len(idx) {
			return nil, &harness.ParseError{File: name, Line: 1, Field: "a" + strconv.Itoa(len(idx)), Err: fmt.Errorf("%w: the header has %s but no a%d: the option columns must run a0, a1, ... without a gap", harness.ErrMissingField, h, len(idx))}
		}
	}
	return idx, nil
}

// optionColumnNumber reads the number of an option column name ("a3": 3).
func optionColumnNumber(h string) (int, bool) {
	if len(h) < 2 || h[0] != 'a' {
		return 0, false
	}
	n, err := strconv.Atoi(h[1:])
	return n, err == nil && n >= 0 && strconv.Itoa(n) == h[1:]
}

func nextqaRow(rec *records.Record, split string, optCols []string, hasType bool) (items.Row, error) {
	fail := rec.Fail
	// Every cell of a table is a string; a short row leaves its last
	// cells absent, which reads as empty.
	// A Parquet table's integer columns (video, answer, qid) are read as
	// their digits.
	text := func(c string) string { s, _ := rec.Text(c, false); return s }
	cell := func(c string) string { return strings.TrimSpace(text(c)) }
	for _, c := range nextqaRequired {
		if cell(c) == "" {
			return items.Row{}, fail(c, harness.ErrEmptyField, "%s is empty", c)
		}
	}
	row := items.Row{
		Source:    rec.Source(),
		File:      rec.File,
		Line:      rec.Line,
		Benchmark: "NExT-QA",
		Video:     cell("video"),
		// Text is kept as written (26 of NExT-QA's options end in a
		// space): the project's items, converted from these tables, do.
		Question:  text("question"),
		GoldIndex: -1,
		Choice:    -1,
	}
	row.ID = fmt.Sprintf("%s/%s_%s", split, row.Video, cell("qid"))
	if hasType {
		row.Task = cell("type")
	}
	for i, c := range optCols {
		o := text(c)
		if strings.TrimSpace(o) == "" {
			return items.Row{}, fail("a"+strconv.Itoa(i), harness.ErrEmptyField, "option a%d is empty (NExT-QA gives every question %d options)", i, len(optCols))
		}
		row.Options = append(row.Options, o)
	}
	g := cell("answer")
	n, err := strconv.Atoi(g)
	if err != nil {
		return items.Row{}, fail("answer", harness.ErrFieldType, "%q is not an integer (NExT-QA's answer is the 0-based index of the correct option)", g)
	}
	if n < 0 || n >= len(row.Options) {
		return items.Row{}, fail("answer", harness.ErrAnswerRange, "%d is not an index into a0..a%d (answers are 0-based)", n, len(row.Options)-1)
	}
	row.Gold, row.GoldIndex = g, n
	for _, c := range []string{"frame_count", "width", "height"} {
		if cell(c) == "" {
			continue
		}
		v, err := strconv.Atoi(cell(c))
		if err != nil || v < 0 {
			return items.Row{}, fail(c, harness.ErrFieldType, "%q is not a count", cell(c))
		}
		if row.Meta == nil {
			row.Meta = map[string]any{}
		}
		row.Meta[c] = v
	}
	return row, nil
}
