package formats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
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
		Files:  "mc_question_valid.json, all_valid.json (or the train/test ones) from google-deepmind/perception_test",
		Detect: detectPerceptionTest,
		Read:   readPerceptionTest,
	}
}

// detectPerceptionTest looks for a video's metadata as the Perception Test
// writes it: video ids "video_N" and a frame rate.
func detectPerceptionTest(_ string, head []byte) bool {
	h := bytes.TrimSpace(head)
	return len(h) > 0 && h[0] == '{' &&
		bytes.Contains(head, []byte(`"metadata"`)) &&
		bytes.Contains(head, []byte(`"frame_rate"`)) &&
		bytes.Contains(head, []byte(`"video_id": "video_`))
}

func readPerceptionTest(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	res := &items.Result{}
	for _, p := range paths {
		if err := readPerceptionTestFile(ctx, p, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func readPerceptionTestFile(ctx context.Context, path string, res *items.Result) error {
	a, closeFile, err := openAnno(path)
	if err != nil {
		return err
	}
	defer closeFile()
	if err := a.open('{', "an object of videos keyed by video id (the Perception Test's annotation layout)"); err != nil {
		return err
	}
	for a.more() {
		if err := ctx.Err(); err != nil {
			return err
		}
		vid, err := a.key()
		if err != nil {
			return err
		}
		if err := readPerceptionTestVideo(a, vid, res); err != nil {
			return err
		}
	}
	if err := a.close(); err != nil {
		return err
	}
	return a.end()
}

// readPerceptionTestVideo reads one video's entry, keeping its metadata and
// questions and skipping the other annotations (object tracks, action and
// sound segments) without holding them.
func readPerceptionTestVideo(a *annoReader, key string, res *items.Result) error {
	if err := a.open('{', fmt.Sprintf("video %q as an object with metadata and mc_question", key)); err != nil {
		return err
	}
	var meta, questions *annoRecord
	for a.more() {
		k, err := a.key()
		if err != nil {
			return err
		}
		switch k {
		case "metadata":
			if meta, err = a.record("metadata"); err != nil {
				return err
			}
		case "mc_question":
			// The questions are wrapped as a record so that each keeps
			// its own line.
			start := a.dec.InputOffset()
			var raw json.RawMessage
			if err := a.dec.Decode(&raw); err != nil {
				return a.syntax(err)
			}
			line := a.lines.lineAt(start)
			wrapped := append(append([]byte(`{"mc_question":`), raw...), '}')
			questions = &annoRecord{file: a.name, line: line, raw: wrapped, fields: map[string]json.RawMessage{"mc_question": raw}}
		default:
			if err := a.skip(); err != nil {
				return err
			}
		}
	}
	if err := a.close(); err != nil {
		return err
	}
	if questions == nil {
		return nil // a video with no multiple-choice question
	}
	video, duration := key, (*float64)(nil)
	if meta != nil {
		id, err := meta.text("video_id", false)
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
		return questions.fail("video_id", harness.ErrEmptyField, "the video's key names no video")
	}
	qs, err := questions.records("mc_question")
	if err != nil {
		return err
	}
	for _, q := range qs {
		row, drop, err := perceptionTestRow(q, video, duration)
		if err != nil {
			return err
		}
		if drop != nil {
			res.Dropped = append(res.Dropped, *drop)
			continue
		}
		res.Rows = append(res.Rows, row)
	}
	return nil
}

// perceptionTestDuration is num_frames / frame_rate, nil when either is
// missing or zero.
func perceptionTestDuration(meta *annoRecord) (*float64, error) {
	frames, err := meta.num("num_frames")
	if err != nil {
		return nil, err
	}
	rate, err := meta.num("frame_rate")
	if err != nil {
		return nil, err
	}
	if frames == nil || rate == nil || *rate <= 0 || *frames <= 0 {
		return nil, nil
	}
	d := math.Round(*frames / *rate * 1000) / 1000
	return &d, nil
}

func perceptionTestRow(q *annoRecord, video string, duration *float64) (items.Row, *items.Drop, error) {
	qid, err := q.text("id", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	id := video + "/" + qid
	question, err := q.str("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	options, err := q.strs("options", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	if len(options) < 2 {
		return items.Row{}, nil, q.fail("options", harness.ErrTooFewOptions, "%d", len(options))
	}
	gold, err := q.index("answer_id")
	if err != nil {
		return items.Row{}, nil, err
	}
	if gold < 0 {
		return items.Row{}, &items.Drop{Source: q.source(), ID: id, Reason: "no answer_id (the test split holds its answers back)"}, nil
	}
	if gold >= len(options) {
		return items.Row{}, nil, q.fail("answer_id", harness.ErrAnswerRange, "%d for %d options", gold, len(options))
	}
	area, err := q.str("area", false)
	if err != nil {
		return items.Row{}, nil, err
	}
	row := items.Row{
		Source:    q.source(),
		File:      q.file,
		Line:      q.line,
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
		Meta:      q.meta("reasoning", "tag"),
	}
	return row, nil, nil
}
