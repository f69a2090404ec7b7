package formats

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// TempCompass reads TempCompass's question files (llyx97/TempCompass,
// questions/): multi-choice.json, caption_matching.json and yes_no.json,
// each an object keyed by video ("1034419625", "1034419625_reverse"), then
// by temporal dimension (action, speed, direction, order,
// attribute_change), then a list of {question, answer}. The options are
// written inside the question:
//   - multi-choice: "...?\nA. dunking a basketball\nB. ...", answer
//     "A. dunking a basketball";
//   - caption matching: "...?\nCaption A: ...\nCaption B: ..." (or
//     "Sentence A:", "Option 1:"), answer "Caption A: ...";
//   - yes/no: no options, answer "yes" or "no": the item's options are
//     yes and no.
//
// The task type comes from the record, not the file name. The files the
// repository keeps under predictions/<model>/ have a prediction beside
// each answer: read from such a file, a row also holds the model's reply.
// captioning.json's questions ("Information A: ...", a caption to write)
// are open-ended and dropped with the reason.
//
// Records have no ids: an item's id is its task type, video, dimension and
// place in the list ("multi-choice/1034419625/action/0"); its video is
// <video>.mp4, its task the dimension.
func TempCompass() items.Format {
	return items.Format{
		Name:   "tempcompass",
		Title:  "TempCompass",
		Files:  "questions/multi-choice.json, caption_matching.json, yes_no.json (or predictions/<model>/*.json) from llyx97/TempCompass, or <task type>/test-00000-of-00001.parquet from lmms-eval/TempCompass",
		Detect: detectTempCompass,
		Read:   readTempCompass,
	}
}

// tempCompassHead is a TempCompass file's opening: a video, one of the
// five dimensions, a list of questions.
var tempCompassHead = regexp.MustCompile(`^\s*\{\s*"[^"]*"\s*:\s*\{\s*"(?:action|speed|direction|order|attribute_change)"\s*:\s*\[\s*\{\s*"question"\s*:`)

func detectTempCompass(path string, head []byte) bool {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return detectTempCompassParquet(path)
	}
	return tempCompassHead.Match(bytes.TrimPrefix(head, []byte("\ufeff")))
}

func readTempCompass(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	return readFiles(ctx, paths, readTempCompassFile)
}

func readTempCompassFile(ctx context.Context, path string, res *items.Result) error {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return readTempCompassParquet(ctx, path, res)
	}
	return records.EachKey(ctx, path, "an object of videos, then of dimensions (TempCompass's question files)", func(a *records.Walker, video string) error {
		if err := a.Enter('{', fmt.Sprintf("video %q as an object of dimensions", video)); err != nil {
			return err
		}
		for a.More() {
			dim, err := a.Key()
			if err != nil {
				return err
			}
			if err := a.Enter('[', fmt.Sprintf("dimension %q of video %q as a list of questions", dim, video)); err != nil {
				return err
			}
			for n := 0; a.More(); n++ {
				rec, err := a.Record("a question")
				if err != nil {
					return err
				}
				row, drop, err := tempCompassRow(rec, video, dim, n)
				if err != nil {
					return err
				}
				keep(res, row, drop)
			}
			if err := a.Leave(); err != nil {
				return err
			}
		}
		if err := a.Leave(); err != nil {
			return err
		}
		return nil
	})
}

// The task types, as TempCompass names its files.
const (
	tempCompassMultiChoice     = "multi-choice"
	tempCompassCaptionMatching = "caption_matching"
	tempCompassYesNo           = "yes_no"
	tempCompassCaptioning      = "captioning"
)

func tempCompassRow(rec *records.Record, video, dim string, n int) (items.Row, *items.Drop, error) {
	text, err := rec.Str("question", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	gold, err := rec.Str("answer", true)
	if err != nil {
		return items.Row{}, nil, err
	}
	kind, question, labels, options := tempCompassOptions(text, gold)
	id := fmt.Sprintf("%s/%s/%s/%d", kind, video, dim, n)
	switch {
	case kind == tempCompassCaptioning:
		return items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: "open-ended: a captioning question (the reply is a caption for a judge model to score)", OpenEnded: true}, nil
	case options == nil:
		return items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: "open-ended: no options in the question and the answer is neither yes nor no", OpenEnded: true}, nil
	}
	k, why := tempCompassGold(kind, gold, labels, options)
	if k < 0 {
		return items.Row{}, &items.Drop{Source: rec.Source(), ID: id, Reason: why, OpenEnded: true}, nil
	}
	row := items.Row{
		Source:    rec.Source(),
		File:      rec.File,
		Line:      rec.Line,
		ID:        id,
		Benchmark: "TempCompass",
		Video:     video + ".mp4",
		Question:  question,
		Options:   options,
		Task:      dim,
		Gold:      gold,
		GoldIndex: k,
		Choice:    -1,
		Meta:      map[string]any{"task_type": kind},
	}
	if rec.Has("prediction") {
		if row.Reply, err = rec.Text("prediction", false); err != nil {
			return items.Row{}, nil, err
		}
		row.HasPrediction = true
	}
	return row, nil, nil
}

// tempCompassLabelLine is an option line of a caption-matching or
// captioning question: "Caption A: ...", "Sentence B: ...", "Option 1:
// ...", "Information C: ...".
var tempCompassLabelLine = regexp.MustCompile(`^(Caption|Sentence|Option|Information) ([A-Z]|[1-9][0-9]?):\s*(.*)$`)

// tempCompassOptions finds a question's options and its task type:
// labelled lines (caption matching, or captioning when they are
// "Information" lines), else lettered options (multi-choice), else a yes/no
// answer. Labelled lines are tried first: items.OptionsInQuestion would
// read "Caption A: x" as an inline option A. labels are the
// options' labels as the answer names them ("A", "1"); options is nil when
// the question has none and the answer is not yes or no.
func tempCompassOptions(text, gold string) (kind, question string, labels, options []string) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		m := tempCompassLabelLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		word := m[1]
		for _, l := range lines[i:] {
			m := tempCompassLabelLine.FindStringSubmatch(strings.TrimSpace(l))
			if m == nil || m[1] != word {
				break
			}
			labels = append(labels, m[2])
			options = append(options, strings.TrimSpace(m[3]))
		}
		if len(options) < 2 {
			labels, options = nil, nil
			continue
		}
		question = strings.TrimSpace(strings.Join(lines[:i], "\n"))
		if word == "Information" {
			return tempCompassCaptioning, question, labels, options
		}
		return tempCompassCaptionMatching, question, labels, options
	}
	if q, opts := items.OptionsInQuestion(text); len(opts) >= 2 {
		labels = make([]string, len(opts))
		for i := range opts {
			labels[i] = answer.Letter(i)
		}
		return tempCompassMultiChoice, q, labels, opts
	}
	switch strings.ToLower(strings.TrimRight(strings.TrimSpace(gold), ".")) {
	case "yes", "no":
		return tempCompassYesNo, strings.TrimSpace(text), []string{"A", "B"}, []string{"yes", "no"}
	}
	return "", text, nil, nil
}

// tempCompassAnswer is an answer that names its option by label, then
// (usually) repeats its text: "B. dunking a basketball", "Caption A: The
// man ...", "Option 2: ...".
var tempCompassAnswer = regexp.MustCompile(`^(?:(?:Caption|Sentence|Option|Information)\s+)?\(?([A-Z]|[1-9][0-9]?)\)?[.:)](?:\s+(.*))?$`)

// tempCompassGold reads the answer: its label names the option, and the
// text after it, when there is one, must be that option's (a label and a
// text naming different options leave the answer open to either reading:
// open-ended). A yes/no answer is its word; an answer without a label is
// the text of one option.
func tempCompassGold(kind, gold string, labels, options []string) (int, string) {
	g := strings.TrimSpace(gold)
	if kind == tempCompassYesNo {
		if strings.EqualFold(strings.TrimRight(g, "."), "yes") {
			return 0, ""
		}
		return 1, ""
	}
	if m := tempCompassAnswer.FindStringSubmatch(g); m != nil {
		for i, l := range labels {
			if l != m[1] {
				continue
			}
			if m[2] != "" && answer.Normalize(m[2]) != answer.Normalize(options[i]) {
				return -1, fmt.Sprintf("open-ended: the answer %q names option %s by its label and another by its text", annoClip(g), l)
			}
			return i, ""
		}
		return -1, fmt.Sprintf("open-ended: the answer %q names label %s, which no option has", annoClip(g), m[1])
	}
	return answerTextIndex(options, g)
}
