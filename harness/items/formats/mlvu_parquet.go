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

// MLVU's dev and test questions also come as the Parquet tables of the
// datasets lmms-eval's mlvu_dev and mlvu_test tasks load (sy1998/MLVU_dev,
// sy1998/MLVU_Test), one row per question with the fields
// lmms_eval/tasks/mlvu/utils.py reads: video_name (the video's file under
// the dataset's folder), question (the options written inside it, "(A)
// ..." lines, as mlvu_doc_to_text gives it to the model whole), answer
// (the letter its extract_characters_regex reply is compared with) and
// task_type (plotQA, needle, ego, count, order, anomaly_reco,
// topic_reasoning; the test set's needleQA, sportsQA, tutorialQA). The
// tables have no id: a row's id is <task_type>/<n>, n counting the task's
// rows in table order from 0, as the task files' ids count their records.

// mlvuParquetColumns are the columns such a table has.
var mlvuParquetColumns = []string{"video_name", "question", "answer", "task_type"}

// detectMLVUParquet claims a table with those columns and no option
// column: its options are in the question.
func detectMLVUParquet(path string) bool {
	cols, _, err := records.ParquetColumns(path)
	if err != nil {
		return false
	}
	for _, c := range mlvuParquetColumns {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return !slices.Contains(cols, "candidates") && !slices.Contains(cols, "options")
}

func readMLVUParquet(ctx context.Context, path string, res *items.Result) error {
	recs, err := records.ReadParquet(ctx, path)
	if err != nil {
		return err
	}
	place := map[string]int{}
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		task, err := rec.Filled("task_type")
		if err != nil {
			return err
		}
		task = strings.TrimSpace(task)
		id := fmt.Sprintf("%s/%d", task, place[task])
		place[task]++
		video, err := rec.Text("video_name", true)
		if err != nil {
			return err
		}
		text, err := rec.Filled("question")
		if err != nil {
			return err
		}
		gold, err := rec.Text("answer", false)
		if err != nil {
			return err
		}
		question, options := items.OptionsInQuestion(text)
		if len(options) < 2 {
			keep(res, items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: fmt.Sprintf("open-ended: %s has no lettered options in its question", task), OpenEnded: true})
			continue
		}
		if strings.TrimSpace(gold) == "" {
			return rec.Fail("answer", harness.ErrEmptyField, "")
		}
		duration, err := rec.Num("duration")
		if err != nil {
			return err
		}
		keep(res, items.Row{
			Source: rec.Source(), File: rec.File, Rec: rec.N,
			ID: id, Benchmark: "MLVU", Video: strings.TrimSpace(video),
			Question: question, Options: options, Task: task, Duration: duration,
			Gold: strings.TrimSpace(gold), GoldIndex: -1, Choice: -1,
		}, nil)
	}
	return nil
}
