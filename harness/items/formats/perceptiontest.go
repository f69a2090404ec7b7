package formats

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// PerceptionTest reads the multiple-choice questions of the Perception Test
// (google-deepmind/perception_test): mc_question_valid.json, or
// all_valid.json / all_train.json with every annotation of each video, of
// which only the questions are read. The file is one object keyed by video
// id; each video has its metadata and a list mc_question of questions with
// three options and answer_id, the 0-based index of the correct one (absent
// in the test split, whose answers are held back). area (Memory,
// Abstraction, Physics, Semantics) becomes the task; reasoning and the
// skill tags go to meta.
func PerceptionTest() items.Format {
	return items.Format{
		Name:   "perceptiontest",
		Title:  "Perception Test",
		Files:  "mc_question_valid.json, all_valid.json (or the train/test ones) from google-deepmind/perception_test, or mc_question_val/validation-00000-of-00001.parquet from lmms-eval/PerceptionTest_Val",
		Detect: detectPerceptionTest,
		Read:   readPerceptionTest,
	}
}

// detectPerceptionTest looks for a video's metadata as the Perception Test
// writes it: video ids "video_N" and a frame rate.
func detectPerceptionTest(path string, head []byte) bool {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return detectPTParquet(path)
	}
	h := bytes.TrimSpace(head)
	return len(h) > 0 && h[0] == '{' &&
		bytes.Contains(head, []byte(`"metadata"`)) &&
		bytes.Contains(head, []byte(`"frame_rate"`)) &&
		bytes.Contains(head, []byte(`"video_id": "video_`))
}

func readPerceptionTest(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	return readFiles(ctx, paths, readPerceptionTestFile)
}

func readPerceptionTestFile(ctx context.Context, path string, res *items.Result) error {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return readPTParquet(ctx, path, res)
	}
	return records.EachKey(ctx, path, "an object of videos keyed by video id (the Perception Test's annotation layout)", func(a *records.Walker, vid string) error {
		if err := readPerceptionTestVideo(a, vid, res); err != nil {
			return err
		}
		return nil
	})
}

// readPerceptionTestVideo reads one video's entry, keeping its metadata and
// questions and skipping the other annotations (object tracks, action and
// sound segments) without holding them.
func readPerceptionTestVideo(a *records.Walker, key string, res *items.Result) error {
	if err := a.Enter('{', fmt.Sprintf("video %q as an object with metadata and mc_question", key)); err != nil {
		return err
	}
	var meta, questions *records.Record
	for a.More() {
		k, err := a.Key()
		if err != nil {
			return err
		}
		switch k {
		case "metadata":
			if meta, err = a.Record("metadata"); err != nil {
				return err
			}
		case "mc_question":
			// The questions are wrapped as a record so that each keeps
			// its own line.
			if questions, err = a.Wrap("mc_question"); err != nil {
				return err
			}
		default:
			if err := a.Skip(); err != nil {
				return err
			}
		}
	}
	if err := a.Leave(); err != nil {
		return err
	}
	if questions == nil {
		return nil // a video with no multiple-choice question
	}
	video, duration := key, (*float64)(nil)
	if meta != nil {
		id, err := meta.Text("video_id", false)
		if err != nil {
			return err
		}
		if id != "" {
			video = id
		}
		if duration, err = perceptionTestDuration(meta); err != nil {
			return err
		}
	}
	if strings.TrimSpace(video) == "" {
		return questions.Fail("video_id", harness.ErrEmptyField, "the video's key names no video")
	}
	qs, err := questions.Records("mc_question")
	if err != nil {
		return err
	}
	for _, q := range qs {
		row, drop, err := perceptionTestRow(q, video, duration, "")
		if err != nil {
			return err
		}
		keep(res, row, drop)
	}
	return nil
}

// perceptionTestDuration is num_frames / frame_rate, nil when either is
// missing or zero.
func perceptionTestDuration(meta *records.Record) (*float64, error) {
	frames, err := meta.Num("num_frames")
	if err != nil {
		return nil, err
	}
	rate, err := meta.Num("frame_rate")
	if err != nil {
		return nil, err
	}
	if frames == nil || rate == nil || *rate <= 0 || *frames <= 0 {
		return nil, nil
	}
	d := math.Round(*frames / *rate * 1000) / 1000
	return &d, nil
}

// perceptionTestRow makes the row of question q of video; id is the
// question's id where the caller has made it, else (json's mc_question)
// <video>/<id>.
func perceptionTestRow(q *records.Record, video string, duration *float64, id string) (items.Row, *items.Drop, error) {
	if id == "" {
		qid, err := q.Text("id", true)
		if err != nil {
			return items.Row{}, nil, err
		}
		id = video + "/" + qid
	}
	question, err := q.Str("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	options, err := q.Strs("options", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	if len(options) < 2 {
		return items.Row{}, nil, q.Fail("options", harness.ErrTooFewOptions, "%d", len(options))
	}
	gold, err := q.Index("answer_id")
	if err != nil {
		return items.Row{}, nil, err
	}
	if gold < 0 {
		return items.Row{}, &items.Drop{Source: q.Source(), ID: id, Reason: "no answer_id (the test split holds its answers back)"}, nil
	}
	if gold >= len(options) {
		return items.Row{}, nil, q.Fail("answer_id", harness.ErrAnswerRange, "%d for %d options", gold, len(options))
	}
	area, err := q.Str("area", false)
	if err != nil {
		return items.Row{}, nil, err
	}
	row := items.Row{
		Source:    q.Source(),
		File:      q.File,
		Line:      q.Line,
		ID:        id,
		Benchmark: "PerceptionTest",
		Video:     video + ".mp4",
		Question:  question,
		Options:   options,
		Task:      area,
		Duration:  duration,
		Gold:      fmt.Sprint(gold),
		GoldIndex: gold,
		Choice:    -1,
		Meta:      q.Meta("reasoning", "tag"),
	}
	return row, nil, nil
}
