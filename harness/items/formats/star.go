package formats

import (
	"bytes"
	"context"
	"math"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
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
	res := &items.Result{}
	for _, p := range paths {
		if err := readSTARFile(ctx, p, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func readSTARFile(ctx context.Context, path string, res *items.Result) error {
	a, closeFile, err := openAnno(path)
	if err != nil {
		return err
	}
	defer closeFile()
	if err := a.open('[', "a list of questions (STAR's STAR_val.json)"); err != nil {
		return err
	}
	for a.more() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := a.record("a question")
		if err != nil {
			return err
		}
		row, drop, err := starRow(rec)
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

func starRow(rec *annoRecord) (items.Row, *items.Drop, error) {
	id, err := rec.text("question_id", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	video, err := rec.text("video_id", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	question, err := rec.str("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	options, err := starChoices(rec)
	if err != nil {
		return items.Row{}, nil, err
	}
	start, err := rec.num("start")
	if err != nil {
		return items.Row{}, nil, err
	}
	end, err := rec.num("end")
	if err != nil {
		return items.Row{}, nil, err
	}
	var duration *float64
	switch {
	case start == nil || end == nil:
		// A question about the whole video.
		start, end = nil, nil
	case *start < 0 || *end <= *start:
		return items.Row{}, nil, rec.fail("end", harness.ErrBadValue, "the clip runs from %v to %v seconds", *start, *end)
	default:
		d := math.Round((*end-*start)*1000) / 1000
		duration = &d
	}
	if !rec.has("answer") {
		return items.Row{}, &items.Drop{Source: rec.source(), ID: id, Reason: "no answer (the test split holds its answers back)"}, nil
	}
	gold, err := rec.str("answer", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	k, why := answerTextIndex(options, gold)
	if k < 0 {
		return items.Row{}, &items.Drop{Source: rec.source(), ID: id, Reason: why, OpenEnded: true}, nil
	}
	task, group := starTemplate(id)
	return items.Row{
		Source:    rec.source(),
		File:      rec.file,
		Line:      rec.line,
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
func starChoices(rec *annoRecord) ([]string, error) {
	if !rec.has("choices") {
		return nil, rec.fail("choices", harness.ErrMissingField, "")
	}
	cs, err := rec.records("choices")
	if err != nil {
		return nil, err
	}
	if len(cs) < 2 {
		return nil, rec.fail("choices", harness.ErrTooFewOptions, "%d", len(cs))
	}
	out := make([]string, len(cs))
	set := make([]bool, len(cs))
	for i, c := range cs {
		text, err := c.text("choice", true)
		if err != nil {
			return nil, err
		}
		at := i
		if c.has("choice_id") {
			if at, err = c.index("choice_id"); err != nil {
				return nil, err
			}
		}
		if at >= len(cs) || set[at] {
			return nil, c.fail("choice_id", harness.ErrBadValue, "%d: the %d choices' ids must run 0 to %d, each once", at, len(cs), len(cs)-1)
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
