package formats

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// MVBench reads MVBench's annotation files as OpenGVLab/MVBench ships
// them: one file per task, json/<task>.json, each an array of {video,
// question, candidates, answer} records, the answer being the text of one
// candidate, with start and end (seconds) for the tasks that ask about a
// part of their video. The task is the file's name; the id is
// <task>/<index>, the 0-based position in the file, as the records have
// no id of their own. The video is the file under MVBench's video/ folder:
// the task's folder (as MVBench's evaluation notebook names it) joined to
// the record's video.
func MVBench() items.Format {
	return items.Format{
		Name:   "mvbench",
		Title:  "MVBench",
		Files:  "json/<task>.json (one per task, e.g. action_sequence.json) from OpenGVLab/MVBench",
		Detect: detectMVBench,
		Read:   readMVBench,
	}
}

// An mvbenchTask is where a task's videos are under MVBench's video/
// folder, and how they are stored.
type mvbenchTask struct {
	folder string
	// frames: each video is a folder of frames (TVQA's, 3 per second).
	frames bool
}

// mvbenchTasks are MVBench's 20 tasks by file name, with the folders of
// the evaluation notebook (video_chat2/mvbench.ipynb in
// OpenGVLab/Ask-Anything).
var mvbenchTasks = map[string]mvbenchTask{
	"action_sequence":          {folder: "star/Charades_v1_480/"},
	"action_prediction":        {folder: "star/Charades_v1_480/"},
	"action_antonym":           {folder: "ssv2_video/"},
	"fine_grained_action":      {folder: "Moments_in_Time_Raw/videos/"},
	"unexpected_action":        {folder: "FunQA_test/test/"},
	"object_existence":         {folder: "clevrer/video_validation/"},
	"object_interaction":       {folder: "star/Charades_v1_480/"},
	"object_shuffle":           {folder: "perception/videos/"},
	"moving_direction":         {folder: "clevrer/video_validation/"},
	"action_localization":      {folder: "sta/sta_video/"},
	"scene_transition":         {folder: "scene_qa/video/"},
	"action_count":             {folder: "perception/videos/"},
	"moving_count":             {folder: "clevrer/video_validation/"},
	"moving_attribute":         {folder: "clevrer/video_validation/"},
	"state_change":             {folder: "perception/videos/"},
	"fine_grained_pose":        {folder: "nturgbd/"},
	"character_order":          {folder: "perception/videos/"},
	"egocentric_navigation":    {folder: "vlnqa/"},
	"episodic_reasoning":       {folder: "tvqa/frames_fps3_hq/", frames: true},
	"counterfactual_inference": {folder: "clevrer/video_validation/"},
}

// mvbenchHead is the start of a task file: an array of records with a
// video.
var mvbenchHead = regexp.MustCompile(`^\s*\[\s*\{\s*"video"\s*:`)

// detectMVBench claims a JSON file named after one of MVBench's tasks
// whose records hold candidates: other benchmarks (MLVU) write records of
// the same shape, under other names. A name TVBench shares is left to
// TVBench where the layout around the file is TVBench's (taskFamily).
func detectMVBench(path string, head []byte) bool {
	base := filepath.Base(path)
	task := strings.TrimSuffix(base, ".json")
	if _, ok := mvbenchTasks[task]; !ok || !strings.HasSuffix(base, ".json") {
		return false
	}
	if tvbenchTasks[task] && taskFamily(path) == familyTVBench {
		return false
	}
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	return mvbenchHead.Match(head) && bytes.Contains(head, []byte(`"candidates"`))
}

func readMVBench(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	res := &items.Result{}
	seen := map[string]string{}
	for _, p := range paths {
		recs, err := records.Array(ctx, p, "an MVBench task's questions")
		if err != nil {
			return nil, err
		}
		task := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		// A task none of MVBench's 20 (a renamed file) keeps the
		// record's video as it is: its folder is unknown.
		info := mvbenchTasks[task]
		for i, rec := range recs {
			row, drop, err := mvbenchRow(p, rec, task, i, info)
			if err != nil {
				return nil, err
			}
			if prev, dup := seen[row.ID]; dup {
				// Two files of one task name (two copies of
				// action_sequence.json) would mix their items.
				return nil, rec.Fail("", harness.ErrDuplicateID, "%q is also %s: give each task's file once", row.ID, prev)
			}
			seen[row.ID] = row.Source
			keep(res, row, drop)
		}
	}
	return res, nil
}

// mvbenchRow reads the i-th record of a task file. A record whose answer
// is no candidate's text, or several candidates', is dropped as open-ended.
func mvbenchRow(name string, rec *records.Record, task string, i int, info mvbenchTask) (items.Row, *items.Drop, error) {
	video, err := rec.Text("video", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	q, err := rec.Text("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	opts, err := rec.Strs("candidates", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	gold, err := rec.Text("answer", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	row := items.Row{
		Source:    rec.Source(),
		File:      name,
		Line:      rec.Line,
		Rec:       rec.N,
		ID:        fmt.Sprintf("%s/%d", task, i),
		Benchmark: "MVBench",
		Video:     info.folder + strings.TrimSpace(video),
		Question:  q,
		Options:   opts,
		Task:      task,
		Gold:      gold,
		GoldIndex: -1,
		Choice:    -1,
	}
	if info.frames {
		row.Meta = map[string]any{"video_frames": true}
	}
	if row.Start, err = rec.Num("start"); err != nil {
		return items.Row{}, nil, err
	}
	if row.End, err = rec.Num("end"); err != nil {
		return items.Row{}, nil, err
	}
	if row.Start != nil && row.End != nil {
		if *row.End < *row.Start {
			return items.Row{}, nil, rec.Fail("end", harness.ErrBadValue, "the clip ends (%g s) before it starts (%g s)", *row.End, *row.Start)
		}
		d := *row.End - *row.Start
		row.Duration = &d
	}
	if len(opts) < 2 {
		return items.Row{}, nil, rec.Fail("candidates", harness.ErrTooFewOptions, "%d candidates", len(opts))
	}
	idx, open := mvbenchGold(gold, opts)
	if idx < 0 {
		return row, &items.Drop{Source: row.Source, ID: row.ID, Reason: "open-ended: " + open, OpenEnded: true}, nil
	}
	row.GoldIndex = idx
	return row, nil, nil
}

// mvbenchGold finds the candidate whose text is the answer: MVBench's
// layout says the answer is a text, so a digit answer is a candidate's
// text ("3" among "2", "3", "4"), never an index.
func mvbenchGold(gold string, opts []string) (int, string) {
	g := strings.TrimSpace(gold)
	found := -1
	for i, o := range opts {
		if strings.TrimSpace(o) == g {
			if found >= 0 {
				return -1, fmt.Sprintf("the answer %q is the text of several candidates (%s and %s)", g, answer.Letter(found), answer.Letter(i))
			}
			found = i
		}
	}
	if found >= 0 {
		return found, ""
	}
	if i := answer.MatchText(g, opts); i >= 0 {
		return i, ""
	}
	return -1, fmt.Sprintf("the answer %q is no candidate's text", g)
}
