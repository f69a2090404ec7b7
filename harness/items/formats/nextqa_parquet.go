package formats

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// NExT-QA's multiple-choice questions also come as the Parquet table of
// the dataset lmms-eval's nextqa_mc_test task loads (lmms-eval/NExTQA,
// config MC, MC/test-00000-of-00001.parquet): the CSV's columns (video,
// frame_count, width, height, question, answer, qid, type, a0..a4), the
// integers stored as integers (lmms_eval/tasks/nextqa/utils.py reads
// doc["video"], doc["question"], doc[f"a{i}"], doc["answer"] as the
// 0-based index). The split is the file name's before its shard number
// (test-00000-of-00001: test), so the ids are the CSV's,
// <split>/<video>_<qid>.

// detectNExTQAParquet claims a Parquet table with NExT-QA's columns.
func detectNExTQAParquet(path string) bool {
	cols, _, err := records.ParquetColumns(path)
	if err != nil {
		return false
	}
	for _, c := range append(slices.Clone(nextqaRequired), "a0", "a1") {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// parquetSplit is the split a Hugging Face Parquet shard holds:
// test-00000-of-00001.parquet is test.
func parquetSplit(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if i := strings.Index(base, "-00"); i > 0 {
		return base[:i]
	}
	return base
}

func readNExTQAParquet(ctx context.Context, name string, seen map[string]string, res *items.Result) error {
	cols, _, err := records.ParquetColumns(name)
	if err != nil {
		return err
	}
	for _, c := range nextqaRequired {
		if !slices.Contains(cols, c) {
			return &harness.ParseError{File: name, Field: c, Err: fmt.Errorf("%w: no column %s (NExT-QA's columns are video, frame_count, width, height, question, answer, qid, type, a0..a4)", harness.ErrMissingField, c)}
		}
	}
	var optCols []string
	for i := 0; slices.Contains(cols, "a"+strconv.Itoa(i)); i++ {
		optCols = append(optCols, "a"+strconv.Itoa(i))
	}
	gap := len(optCols) < 2
	for _, c := range cols {
		if n, ok := optionColumnNumber(c); ok && n > len(optCols) {
			gap = true
		}
	}
	if gap {
		return &harness.ParseError{File: name, Field: "a" + strconv.Itoa(len(optCols)), Err: fmt.Errorf("%w: no column a%d: the option columns must run a0, a1, ... without a gap", harness.ErrMissingField, len(optCols))}
	}
	recs, err := records.ReadParquet(ctx, name)
	if err != nil {
		return err
	}
	return nextqaRows(recs, parquetSplit(name), optCols, slices.Contains(cols, "type"), seen, res)
}
