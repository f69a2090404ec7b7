package formats

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// MLVU reads the task files of MLVU (JUNJIE99/MLVU; the MLVU dataset on
// Hugging Face): json/1_plotQA.json ... json/9_summary.json, each a list of
// {video, duration, question, candidates, answer, question_type}, the
// answer written as the text of one candidate. The multiple-choice tasks
// (plotQA, findNeedle, ego, count, order, anomaly_reco, topic_reasoning)
// become items; the generation tasks (subPlot, summary) have no candidates
// and are dropped as open-ended, with the reason.
//
// MLVU keeps each task's videos in a folder named as its file
// (video/1_plotQA/movie101_66.mp4), so a file named N_task.json gives
// videos "N_task/<video>", found under --videos MLVU/video. Records carry
// no id: an item's id is its question_type and its place in the file
// ("plotQA/0"), unless the record gives a question_id (MLVU's test set).
func MLVU() items.Format {
	return items.Format{
		Name:   "mlvu",
		Title:  "MLVU",
		Files:  "json/1_plotQA.json ... json/9_summary.json from MLVU (the Hugging Face dataset MLVU/MVLU), or the Parquet table of sy1998/MLVU_dev (lmms-eval's mlvu_dev)",
		Detect: detectMLVU,
		Read:   readMLVU,
	}
}

// mlvuTaskFile is MLVU's name for a task file: its number and task.
var mlvuTaskFile = regexp.MustCompile(`^[0-9]+_[A-Za-z_]+$`)

// detectMLVU looks for a list of records with MLVU's fields and none of
// LongVideoBench's (which also has candidates).
func detectMLVU(path string, head []byte) bool {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return detectMLVUParquet(path)
	}
	h := bytes.TrimSpace(head)
	return len(h) > 0 && h[0] == '[' &&
		bytes.Contains(head, []byte(`"question_type"`)) &&
		bytes.Contains(head, []byte(`"video"`)) &&
		bytes.Contains(head, []byte(`"duration"`)) &&
		!bytes.Contains(head, []byte(`"correct_choice"`))
}

func readMLVU(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	return readFiles(ctx, paths, func(ctx context.Context, path string, res *items.Result) error {
		if strings.EqualFold(filepath.Ext(path), ".parquet") {
			return readMLVUParquet(ctx, path, res)
		}
		stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		dir := ""
		if mlvuTaskFile.MatchString(stem) {
			dir = stem + "/"
		}
		return readQuestionList(ctx, path, "a list of questions (MLVU's task files)", res,
			func(rec *records.Record, n int) (items.Row, *items.Drop, error) { return mlvuRow(rec, dir, n) })
	})
}

func mlvuRow(rec *records.Record, dir string, n int) (items.Row, *items.Drop, error) {
	task, err := rec.Str("question_type", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	id, err := rec.Text("question_id", false)
	if err != nil {
		return items.Row{}, nil, err
	}
	if id == "" {
		id = fmt.Sprintf("%s/%d", task, n)
	}
	video, err := rec.Text("video", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	question, err := rec.Str("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	if !rec.Has("candidates") {
		return items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: fmt.Sprintf("open-ended: %s is a generation task (no candidates)", task), OpenEnded: true}, nil
	}
	options, err := rec.Strs("candidates", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	if len(options) < 2 {
		return items.Row{}, nil, rec.Fail("candidates", harness.ErrTooFewOptions, "%d", len(options))
	}
	gold, err := rec.Text("answer", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	k, why := answerTextIndex(options, gold)
	if k < 0 {
		return items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: why, OpenEnded: true}, nil
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
		Benchmark: "MLVU",
		Video:     dir + video,
		Question:  question,
		Options:   options,
		Task:      task,
		Duration:  duration,
		Gold:      gold,
		GoldIndex: k,
		Choice:    -1,
	}, nil, nil
}
