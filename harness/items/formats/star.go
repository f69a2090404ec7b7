package formats

import (
	"bytes"
	"context"
	"math"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// STAR reads STAR_val.json or STAR_train.json of the STAR situated-
// reasoning benchmark (csbobby/STAR): a list of questions {question_id,
// question, video_id, start, end, answer, choices: [{choice_id, choice}],
// question_program, situations}. Each question asks about the clip from
// start to end seconds of a Charades video (<video_id>.mp4), so the item
// keeps those bounds and its duration is the clip's. The answer is the text
// of one choice. The task is the question template, the question id
// without its number ("Interaction_T1"), and the group its type
// (Interaction, Sequence, Prediction, Feasibility). STAR_test.json holds no
// answers: its questions are dropped with the reason.
func STAR() items.Format {
	return items.Format{
		Name:   "star",
		Title:  "STAR",
		Files:  "STAR_val.json (or STAR_train.json) from csbobby/STAR",
		Detect: detectSTAR,
		Read:   readSTAR,
	}
}

// detectSTAR looks for STAR's choices objects beside a video id and clip
// bounds.
func detectSTAR(_ string, head []byte) bool {
	h := bytes.TrimSpace(head)
	return len(h) > 0 && h[0] == '[' &&
		bytes.Contains(head, []byte(`"question_id"`)) &&
		bytes.Contains(head, []byte(`"choice_id"`)) &&
		bytes.Contains(head, []byte(`"video_id"`)) &&
		bytes.Contains(head, []byte(`"start"`))
}

func readSTAR(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	return readFiles(ctx, paths, func(ctx context.Context, path string, res *items.Result) error {
		return readQuestionList(ctx, path, "a list of questions (STAR's STAR_val.json)", res,
			func(rec *records.Record, _ int) (items.Row, *items.Drop, error) { return starRow(rec) })
	})
}

func starRow(rec *records.Record) (items.Row, *items.Drop, error) {
	id, err := rec.Text("question_id", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	video, err := rec.Text("video_id", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	question, err := rec.Str("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	options, err := starChoices(rec)
	if err != nil {
		return items.Row{}, nil, err
	}
	start, err := rec.Num("start")
	if err != nil {
		return items.Row{}, nil, err
	}
	end, err := rec.Num("end")
	if err != nil {
		return items.Row{}, nil, err
	}
	var duration *float64
	switch {
	case start == nil || end == nil:
		// A question about the whole video.
		start, end = nil, nil
	case *start < 0 || *end <= *start:
		return items.Row{}, nil, rec.Fail("end", harness.ErrBadValue, "the clip runs from %v to %v seconds", *start, *end)
	default:
		d := math.Round((*end-*start)*1000) / 1000
		duration = &d
	}
	if !rec.Has("answer") {
		return items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: "no answer (the test split holds its answers back)"}, nil
	}
	gold, err := rec.Str("answer", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	k, why := answerTextIndex(options, gold)
	if k < 0 {
		return items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: why, OpenEnded: true}, nil
	}
	task, group := starTemplate(id)
	return items.Row{
		Source:    rec.Source(),
		File:      rec.File,
		Line:      rec.Line,
		ID:        id,
		Benchmark: "STAR",
		Video:     video + ".mp4",
		Question:  question,
		Options:   options,
		Task:      task,
		Group:     group,
		Duration:  duration,
		Start:     start,
		End:       end,
		Gold:      gold,
		GoldIndex: k,
		Choice:    -1,
	}, nil, nil
}

// starChoices returns the choices' texts, each at the place its choice_id
// names (0-based; the file lists them in that order, but the id is what
// defines it), or in list order when they carry no ids.
func starChoices(rec *records.Record) ([]string, error) {
	if !rec.Has("choices") {
		return nil, rec.Fail("choices", harness.ErrMissingField, "")
	}
	cs, err := rec.Records("choices")
	if err != nil {
		return nil, err
	}
	if len(cs) < 2 {
		return nil, rec.Fail("choices", harness.ErrTooFewOptions, "%d", len(cs))
	}
	out := make([]string, len(cs))
	set := make([]bool, len(cs))
	for i, c := range cs {
		text, err := c.Text("choice", true)
		if err != nil {
			return nil, err
		}
		at := i
		if c.Has("choice_id") {
			if at, err = c.Index("choice_id"); err != nil {
				return nil, err
			}
		}
		if at >= len(cs) || set[at] {
			return nil, c.Fail("choice_id", harness.ErrBadValue, "%d: the %d choices' ids must run 0 to %d, each once", at, len(cs), len(cs)-1)
		}
		out[at], set[at] = text, true
	}
	return out, nil
}

// starTemplate splits a question id "Interaction_T1_13" into its template
// ("Interaction_T1") and question type ("Interaction").
func starTemplate(id string) (task, group string) {
	task = id
	if i := strings.LastIndexByte(id, '_'); i > 0 {
		task = id[:i]
	}
	group, _, _ = strings.Cut(task, "_")
	return task, group
}
