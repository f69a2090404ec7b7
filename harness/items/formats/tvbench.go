package formats

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// TVBench reads TVBench's annotation files as the FunAILab/TVBench dataset
// ships them: json/<task>.json, one per task, each an array of {video,
// question, candidates, answer} records, the answer being the text of one
// candidate, with start and end (seconds) for action_sequence and
// action_localization, the tasks whose clip is part of its video. It is
// MVBench's record layout (the authors' vqa_dataset.py is MVBench's loader):
// the rows are built as MVBench's are, with TVBench's video folders. The
// task is the file's name; the id is <task>/<index>, the 0-based position
// in the file; the video is video/<task>/<video> in the dataset, so it is
// <task>/<video> under --videos TVBench/video.
func TVBench() items.Format {
	return items.Format{
		Name:   "tvbench",
		Title:  "TVBench",
		Files:  "json/<task>.json (one per task, e.g. object_count.json) from FunAILab/TVBench",
		Detect: detectTVBench,
		Read:   readTVBench,
	}
}

// tvbenchTasks are TVBench's ten tasks by file name (the configs of its
// dataset card). Eight share their names with MVBench's tasks; only
// egocentric_sequence and object_count are TVBench's alone.
var tvbenchTasks = map[string]bool{
	"action_antonym": true, "action_count": true, "action_localization": true, "action_sequence": true,
	"egocentric_sequence": true, "moving_direction": true, "object_count": true, "object_shuffle": true,
	"scene_transition": true, "unexpected_action": true,
}

// detectTVBench claims a task file of MVBench's record shape named after
// a TVBench task, where the name is TVBench's alone or the layout around
// the file is TVBench's (taskFamily: a TVBench folder on its path,
// TVBench's own task files beside it, video/<task>/ beside json/). A
// shared name with no such sign, or with MVBench's, is MVBench's: the
// records themselves are alike.
func detectTVBench(path string, head []byte) bool {
	base := filepath.Base(path)
	task := strings.TrimSuffix(base, ".json")
	if !tvbenchTasks[task] || !strings.HasSuffix(base, ".json") {
		return false
	}
	if _, mvbench := mvbenchTasks[task]; mvbench && taskFamily(path) != familyTVBench {
		return false
	}
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	return mvbenchHead.Match(head) && bytes.Contains(head, []byte(`"candidates"`))
}

func readTVBench(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	res := &items.Result{}
	seen := map[string]string{}
	for _, p := range paths {
		task := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		// A file named after none of the ten tasks (a renamed copy)
		// keeps the record's video as it is: its folder is unknown.
		info := mvbenchTask{}
		if tvbenchTasks[task] {
			info.folder = task + "/"
		}
		err := readQuestionList(ctx, p, "a TVBench task's questions (json/<task>.json)", res, func(rec *records.Record, n int) (items.Row, *items.Drop, error) {
			row, drop, err := mvbenchRow(p, rec, task, n, info)
			if err != nil {
				return items.Row{}, nil, err
			}
			row.Benchmark = "TVBench"
			if prev, dup := seen[row.ID]; dup {
				return items.Row{}, nil, rec.Fail("", harness.ErrDuplicateID, "%q is also %s: give each task's file once", row.ID, prev)
			}
			seen[row.ID] = row.Source
			return row, drop, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}
