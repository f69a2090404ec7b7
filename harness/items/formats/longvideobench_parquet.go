package formats

import (
	"context"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// LongVideoBench's Hugging Face dataset also ships its questions as the
// Parquet tables the datasets library loads (validation-00000-of-00001.parquet,
// test-00000-of-00001.parquet), which lmms-eval's longvideobench tasks
// read: lvb_val.json's fields, the candidates spread over option0 ..
// option4 with "N/A" where a question has fewer than five
// (lmms_eval/tasks/longvideobench/utils.py: longvideobench_doc_to_text
// skips them, longvideobench_process_results stops at the first).

// lvbOptionColumns are the five option columns.
var lvbOptionColumns = []string{"option0", "option1", "option2", "option3", "option4"}

// detectLVBParquet claims a Parquet table with option0 and the fields
// only LongVideoBench writes.
func detectLVBParquet(path string) bool {
	cols, _, err := records.ParquetColumns(path)
	if err != nil {
		return false
	}
	for _, c := range []string{"option0", "option1", "question_category", "video_path"} {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// readLVBParquet reads one of the dataset's tables into res.
func readLVBParquet(ctx context.Context, path string, res *items.Result) error {
	recs, err := records.ReadParquet(ctx, path)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		opts, err := lvbOptions(rec)
		if err != nil {
			return err
		}
		row, drop, err := longVideoBenchRecord(rec, opts, "option0")
		if err != nil {
			return err
		}
		row.Rec = rec.N
		keep(res, row, drop)
	}
	return nil
}

// lvbOptions reads option0 .. option4 up to the first "N/A". A filled
// option after an "N/A" would shift the letters of every later one: an
// error naming it.
func lvbOptions(rec *records.Record) ([]string, error) {
	var opts []string
	end := -1
	for i, c := range lvbOptionColumns {
		o, err := rec.Text(c, false)
		if err != nil {
			return nil, err
		}
		if o == "N/A" || !rec.Has(c) {
			if end < 0 {
				end = i
			}
			continue
		}
		if end >= 0 {
			return nil, rec.Fail(c, harness.ErrMissingField, "option%d is %q but %s is given: the options must not have gaps", end, "N/A", c)
		}
		opts = append(opts, o)
	}
	return opts, nil
}
