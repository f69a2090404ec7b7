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
		Files:  "json/1_plotQA.json ... json/9_summary.json from MLVU (the Hugging Face dataset MLVU/MVLU)",
		Detect: detectMLVU,
		Read:   readMLVU,
	}
}

// mlvuTaskFile is MLVU's name for a task file: its number and task.
var mlvuTaskFile = regexp.MustCompile(`^[0-9]+_[A-Za-z_]+$`)

// detectMLVU looks for a list of records with MLVU's fields and none of
// LongVideoBench's (which also has candidates).
func detectMLVU(_ string, head []byte) bool {
	h := bytes.TrimSpace(head)
	return len(h) > 0 && h[0] == '[' &&
		bytes.Contains(head, []byte(`"question_type"`)) &&
		bytes.Contains(head, []byte(`"video"`)) &&
		bytes.Contains(head, []byte(`"duration"`)) &&
		!bytes.Contains(head, []byte(`"correct_choice"`))
}

func readMLVU(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	res := &items.Result{}
	for _, p := range paths {
		if err := readMLVUFile(ctx, p, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func readMLVUFile(ctx context.Context, path string, res *items.Result) error {
	a, closeFile, err := openAnno(path)
	if err != nil {
		return err
	}
	defer closeFile()
	if err := a.open('[', "a list of questions (MLVU's task files)"); err != nil {
		return err
	}
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	dir := ""
	if mlvuTaskFile.MatchString(stem) {
		dir = stem + "/"
	}
	for n := 0; a.more(); n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := a.record("a question")
		if err != nil {
			return err
		}
		row, drop, err := mlvuRow(rec, dir, n)
		if err != nil {
			return err
		}
		if drop != nil {
			res.Dropped = append(res.Dropped, *drop)
			continue
		}
		res.Rows = append(res.Rows, row)
	}
	if err := a.close(); err != nil {
		return err
	}
	return a.end()
}

func mlvuRow(rec *annoRecord, dir string, n int) (items.Row, *items.Drop, error) {
	task, err := rec.str("question_type", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	id, err := rec.text("question_id", false)
	if err != nil {
		return items.Row{}, nil, err
	}
	if id == "" {
		id = fmt.Sprintf("%s/%d", task, n)
	}
	video, err := rec.text("video", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	question, err := rec.str("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	if !rec.has("candidates") {
		return items.Row{}, &items.Drop{Source: rec.source(), ID: id, Reason: fmt.Sprintf("open-ended: %s is a generation task (no candidates)", task), OpenEnded: true}, nil
	}
	options, err := rec.strs("candidates", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	if len(options) < 2 {
		return items.Row{}, nil, rec.fail("candidates", harness.ErrTooFewOptions, "%d", len(options))
	}
	gold, err := rec.text("answer", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	k, why := answerTextIndex(options, gold)
	if k < 0 {
		return items.Row{}, &items.Drop{Source: rec.source(), ID: id, Reason: why, OpenEnded: true}, nil
	}
	duration, err := rec.num("duration")
	if err != nil {
		return items.Row{}, nil, err
	}
	return items.Row{
		Source:    rec.source(),
		File:      rec.file,
		Line:      rec.line,
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
