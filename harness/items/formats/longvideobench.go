package formats

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// LongVideoBench reads LongVideoBench's lvb_val.json (longvideobench/
// LongVideoBench on Hugging Face): a list of questions {id, video_id,
// video_path, duration, question, candidates, correct_choice, ...}, where
// correct_choice is the 0-based index of the right candidate (absent in
// lvb_test_wo_gt.json, whose answers are held back) and video_path is the
// file under videos/. question_category (the 17 referring-reasoning
// categories, "S2E", "T3O", ...) becomes the task; the topic, level,
// duration group (the nominal length in seconds: 15, 60, 600, 3600), the
// question without its referring query and the subtitle fields go to meta.
func LongVideoBench() items.Format {
	return items.Format{
		Name:   "longvideobench",
		Title:  "LongVideoBench",
		Files:  "lvb_val.json (or lvb_test_wo_gt.json), or validation-00000-of-00001.parquet, from longvideobench/LongVideoBench",
		Detect: detectLongVideoBench,
		Read:   readLongVideoBench,
	}
}

// detectLongVideoBench looks for a list of records with the fields only
// LongVideoBench writes.
func detectLongVideoBench(path string, head []byte) bool {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return detectLVBParquet(path)
	}
	h := bytes.TrimSpace(head)
	return len(h) > 0 && h[0] == '[' &&
		bytes.Contains(head, []byte(`"candidates"`)) &&
		bytes.Contains(head, []byte(`"starting_timestamp_for_subtitles"`))
}

func readLongVideoBench(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	return readFiles(ctx, paths, func(ctx context.Context, path string, res *items.Result) error {
		if strings.EqualFold(filepath.Ext(path), ".parquet") {
			return readLVBParquet(ctx, path, res)
		}
		return readQuestionList(ctx, path, "a list of questions (LongVideoBench's lvb_val.json)", res,
			func(rec *records.Record, _ int) (items.Row, *items.Drop, error) { return longVideoBenchRow(rec) })
	})
}

func longVideoBenchRow(rec *records.Record) (items.Row, *items.Drop, error) {
	options, err := rec.Strs("candidates", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	return longVideoBenchRecord(rec, options, "candidates")
}

// longVideoBenchRecord makes the row of a question whose options, read
// from optionsField, are options.
func longVideoBenchRecord(rec *records.Record, options []string, optionsField string) (items.Row, *items.Drop, error) {
	id, err := rec.Text("id", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	video, err := rec.Text("video_path", false)
	if err != nil {
		return items.Row{}, nil, err
	}
	if video == "" {
		// Without video_path the file is videos/<video_id>.mp4, as the
		// dataset names them.
		vid, err := rec.Text("video_id", true)
		if err != nil {
			return items.Row{}, nil, err
		}
		video = vid + ".mp4"
	}
	question, err := rec.Str("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	if len(options) < 2 {
		return items.Row{}, nil, rec.Fail(optionsField, harness.ErrTooFewOptions, "%d", len(options))
	}
	gold, err := rec.Index("correct_choice")
	if err != nil {
		return items.Row{}, nil, err
	}
	if gold < 0 {
		return items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: "no correct_choice (the test split holds its answers back)"}, nil
	}
	if gold >= len(options) {
		return items.Row{}, nil, rec.Fail("correct_choice", harness.ErrAnswerRange, "%d for %d candidates", gold, len(options))
	}
	task, err := rec.Str("question_category", false)
	if err != nil {
		return items.Row{}, nil, err
	}
	duration, err := rec.Num("duration")
	if err != nil {
		return items.Row{}, nil, err
	}
	return items.Row{
		Source:    rec.Source(),
		File:      rec.File,
		Line:      rec.Line,
		ID:        id,
		Benchmark: "LongVideoBench",
		Video:     video,
		Question:  question,
		Options:   options,
		Task:      task,
		Duration:  duration,
		Gold:      fmt.Sprint(gold),
		GoldIndex: gold,
		Choice:    -1,
		Meta: rec.Meta("topic_category", "level", "duration_group", "question_wo_referring_query",
			"subtitle_path", "starting_timestamp_for_subtitles"),
	}, nil, nil
}
