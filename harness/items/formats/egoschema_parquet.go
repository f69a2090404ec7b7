package formats

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// egoParquetColumns are the columns of lmms-lab/egoschema's tables
// (<config>/test-00000-of-00001.parquet for the GENERATION, MC, MC_PPL and
// Subset configs) that lmms-eval's egoschema task reads
// (lmms_eval/tasks/egoschema/utils.py): video_idx, the video file's name
// without .mp4, which is the question's q_uid; question; option, the five
// options written "A. text"; answer, the 0-based index of the correct
// option as text, compared with the parsed reply's index; question_idx is
// kept in meta where the table has it.
var egoParquetColumns = []string{"video_idx", "question", "option", "answer"}

// detectEgoParquet claims a Parquet file with those columns.
func detectEgoParquet(path string) bool {
	cols, lists, err := records.ParquetColumns(path)
	if err != nil || !lists["option"] {
		return false
	}
	for _, c := range egoParquetColumns {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// readEgoParquet reads one of lmms-lab's tables into res; used holds the
// ids already read (by any file of the import), which must not repeat. A
// row without an answer (the 4,531 questions whose answers only the
// authors' server holds) is dropped with the reason.
func readEgoParquet(ctx context.Context, path string, res *items.Result, used map[string]bool) error {
	cols, lists, err := records.ParquetColumns(path)
	if err != nil {
		return err
	}
	for _, c := range egoParquetColumns {
		if !slices.Contains(cols, c) {
			return &harness.ParseError{File: path, Field: c, Err: fmt.Errorf("%w: no column %s (lmms-lab/egoschema's tables have video_idx, question, option and answer)", harness.ErrMissingField, c)}
		}
	}
	if !lists["option"] {
		return &harness.ParseError{File: path, Field: "option", Err: fmt.Errorf("%w: the column is not a list (lmms-lab/egoschema writes the five options as one list)", harness.ErrFieldType)}
	}
	recs, err := records.ReadParquet(ctx, path)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		row, drop, err := egoParquetRow(path, rec)
		if err != nil {
			return err
		}
		if used[row.ID] {
			return rec.Fail("video_idx", harness.ErrDuplicateID, "%q appears twice (give one of questions.json and lmms-lab's tables, one config)", row.ID)
		}
		used[row.ID] = true
		keep(res, row, drop)
	}
	return nil
}

// egoParquetRow reads one row of lmms-lab's table.
func egoParquetRow(path string, rec *records.Record) (items.Row, *items.Drop, error) {
	video, err := rec.Text("video_idx", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	q, err := rec.Filled("question")
	if err != nil {
		return items.Row{}, nil, err
	}
	opts, err := rec.Strs("option", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	id := strings.TrimSpace(video)
	row := items.Row{
		Source: rec.Source(), File: path, Line: rec.Line, Rec: rec.N,
		ID: id, Benchmark: "EgoSchema", Video: id, Question: q, Options: opts,
		GoldIndex: -1, Choice: -1,
	}
	if qi, err := rec.Text("question_idx", false); err != nil {
		return items.Row{}, nil, err
	} else if qi = strings.TrimSpace(qi); qi != "" && qi != id {
		row.Meta = map[string]any{"question_idx": qi}
	}
	if len(opts) < 2 {
		return items.Row{}, nil, rec.Fail("option", harness.ErrTooFewOptions, "%d options (EgoSchema gives 5)", len(opts))
	}
	a, err := rec.Text("answer", false)
	if err != nil {
		return items.Row{}, nil, err
	}
	if strings.TrimSpace(a) == "" {
		return row, &items.Drop{Source: row.Source, ID: row.ID, Reason: "no public answer (lmms-lab/egoschema's Subset config holds the 500 public ones)"}, nil
	}
	g, err := rec.Index("answer")
	if err != nil {
		return items.Row{}, nil, err
	}
	if g >= len(opts) {
		return items.Row{}, nil, rec.Fail("answer", harness.ErrAnswerRange, "%d is not an index into the %d options (lmms-lab's answers are 0-based)", g, len(opts))
	}
	row.Gold, row.GoldIndex = a, g
	return row, nil, nil
}
