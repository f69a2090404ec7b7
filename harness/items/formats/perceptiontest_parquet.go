package formats

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// The Perception Test's questions also come as the Parquet tables of the
// dataset lmms-eval's perceptiontest tasks load (lmms-eval/PerceptionTest_Val,
// config mc_question_val, validation-00000-of-00001.parquet; the test
// config without answers), one row per question with the fields
// lmms_eval/tasks/perceptiontest/val/utils.py reads: video_name (the
// video file without .mp4), question, options (the three options),
// answer_id (the 0-based index of the correct one), question_id, area,
// reasoning and tag.

// ptParquetColumns are the columns such a table must have.
var ptParquetColumns = []string{"video_name", "question", "options", "answer_id"}

// detectPTParquet claims a Parquet table with those columns.
func detectPTParquet(path string) bool {
	cols, lists, err := records.ParquetColumns(path)
	if err != nil || !lists["options"] {
		return false
	}
	for _, c := range ptParquetColumns {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// readPTParquet reads one table into res. The id is the json importer's
// <video>/<n> where question_id numbers the questions within their video
// (as mc_question's id does), else question_id as it is, else
// <video>/<n>, n counting the video's questions in table order from 0 (as
// mc_question numbers them): so that both imports of one question give
// one id.
func readPTParquet(ctx context.Context, path string, res *items.Result) error {
	cols, _, err := records.ParquetColumns(path)
	if err != nil {
		return err
	}
	for _, c := range ptParquetColumns[:3] {
		if !slices.Contains(cols, c) {
			return &harness.ParseError{File: path, Field: c, Err: harness.ErrMissingField}
		}
	}
	recs, err := records.ReadParquet(ctx, path)
	if err != nil {
		return err
	}
	seen := map[string]string{}
	perVideo := map[string]int{}
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		video, err := rec.Text("video_name", true)
		if err != nil {
			return err
		}
		video = strings.TrimSpace(video)
		qid, err := rec.Text("question_id", false)
		if err != nil {
			return err
		}
		qid = strings.TrimSpace(qid)
		id := qid
		switch {
		case qid == "":
			id = video + "/" + strconv.Itoa(perVideo[video])
		case isDigitsText(qid):
			id = video + "/" + qid
		}
		// perceptionTestRow names the id field "id"; a table's is
		// question_id.
		row, drop, err := perceptionTestRow(rec, video, nil, id)
		if err != nil {
			return err
		}
		if prev, dup := seen[id]; dup {
			return rec.Fail("question_id", harness.ErrDuplicateID, "%q is also %s", id, prev)
		}
		seen[id] = rec.Source()
		perVideo[video]++
		row.Rec = rec.N
		keep(res, row, drop)
	}
	return nil
}
