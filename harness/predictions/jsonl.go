package predictions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
)

// decodeLine decodes one JSON object, numbers kept exact.
func decodeLine(b []byte, name string, line int) (map[string]any, error) {
	if !utf8.Valid(b) {
		return nil, &harness.ParseError{File: name, Line: line, Err: harness.ErrInvalidUTF8}
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		if err == nil {
			err = fmt.Errorf("got null")
		}
		return nil, &harness.ParseError{File: name, Line: line, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
	}
	return m, nil
}

// readProject reads the project's layout: {"id", "benchmark", "pred"} with
// pred a 0-based option index or the reply as text, and optionally question
// and options (to match by text when ids differ).
func readProject(r io.Reader, name string) ([]Row, error) {
	var rows []Row
	err := readLines(r, name, func(b []byte, line int) error {
		m, err := decodeLine(b, name, line)
		if err != nil {
			return err
		}
		rec := newRecord(m)
		fail := func(field string, err error) error {
			return &harness.ParseError{File: name, Line: line, Field: field, Err: err}
		}
		row := Row{Source: fmt.Sprintf("%s:%d", name, line), File: name, Line: line, Choice: -1, GoldIndex: -1, HasPrediction: true}
		row.ID = rec.str([]string{"id"})
		row.Benchmark = rec.str([]string{"benchmark"})
		row.Question = rec.str(questionNames)
		if row.ID == "" && row.Question == "" {
			return fail("id", fmt.Errorf("%w: give id (and benchmark), or question and options", harness.ErrMissingField))
		}
		if row.Options, _, err = rec.options(); err != nil {
			return fail("options", fmt.Errorf("%w: %v", harness.ErrFieldType, err))
		}
		v, ok := m["pred"]
		switch x := v.(type) {
		case json.Number:
			i, err := x.Int64()
			if errors.Is(err, strconv.ErrRange) {
				return fail("pred", fmt.Errorf("%w: %s is not an index into the options (0-based)", harness.ErrAnswerRange, x))
			}
			if err != nil {
				return fail("pred", fmt.Errorf("%w: %s is not an integer option index", harness.ErrFieldType, x))
			}
			row.Choice = int(i)
		case string:
			row.Reply = x
		default:
			if !ok {
				return fail("pred", harness.ErrMissingField)
			}
			return fail("pred", fmt.Errorf("%w: got %T, want a 0-based option index or the reply as text", harness.ErrFieldType, v))
		}
		rows = append(rows, row)
		return nil
	})
	return rows, err
}

// sampleName finds the task in lmms-eval's file names:
// samples_<task>_<ISO time>.jsonl (and <time>_samples_<task>.jsonl in later
// releases).
var sampleName = regexp.MustCompile(`samples_(.+?)(?:_\d{4}-\d{2}-\d{2}T[0-9.:\-]+)?$`)

// TaskName is the benchmark an lmms-eval samples file belongs to, from its
// name; the base name without extension when it does not follow the
// pattern.
func TaskName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if m := sampleName.FindStringSubmatch(base); m != nil {
		return m[1]
	}
	return base
}

// readLMMSEval reads lmms-eval's samples file, written by its evaluator
// with --log_samples: one object per document with doc_id, doc (the
// dataset's own record), target (the gold as the task's doc_to_target
// gives it), resps (the raw replies) and filtered_resps (after the task's
// filters: for a generation task a list holding the reply, for a
// multiple-choice log-likelihood task one [log-likelihood, is-greedy] pair
// per option), plus metric fields.
func readLMMSEval(r io.Reader, name string) ([]Row, error) {
	task := TaskName(name)
	var rows []Row
	err := readLines(r, name, func(b []byte, line int) error {
		m, err := decodeLine(b, name, line)
		if err != nil {
			return err
		}
		row, err := lmmsRow(m, name, task, line, 0)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		return nil
	})
	return rows, err
}

// readLMMSEvalLogs reads the <task>.json lmms-eval v0.2.0-v0.2.3 wrote
// with --log_samples: one object {"args", "model_configs", "logs": [...],
// "time"}, logs holding one sample per document as the later samples
// files do. An error names the sample as a row (logs[0] is row 1).
func readLMMSEvalLogs(b []byte, name string) ([]Row, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var top struct {
		Logs []json.RawMessage `json:"logs"`
	}
	if err := d.Decode(&top); err != nil {
		return nil, &harness.ParseError{File: name, Err: fmt.Errorf("%w: not lmms-eval's <task>.json object with logs: %v", harness.ErrSyntax, err)}
	}
	task := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	rows := make([]Row, 0, len(top.Logs))
	for i, raw := range top.Logs {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil || m == nil {
			return nil, &harness.ParseError{File: name, Row: i + 1, Field: "logs", Err: fmt.Errorf("%w: want each sample as an object", harness.ErrFieldType)}
		}
		row, err := lmmsRow(m, name, task, 0, i+1)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// isLMMSEvalLogs says whether a .json file is lmms-eval's v0.2 <task>.json:
// an object with a logs list.
func isLMMSEvalLogs(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return false
	}
	l, ok := top["logs"]
	return ok && len(bytes.TrimSpace(l)) > 0 && bytes.TrimSpace(l)[0] == '['
}

// lmmsRow reads one sample of an lmms-eval log, at line (a JSON Lines
// file) or rec (the logs of a <task>.json).
func lmmsRow(m map[string]any, name, task string, line, rec int) (Row, error) {
	fail := func(field string, err error) error {
		return &harness.ParseError{File: name, Line: line, Row: rec, Field: field, Err: err}
	}
	source := fmt.Sprintf("%s:%d", name, line)
	if line == 0 {
		source = fmt.Sprintf("%s: row %d", name, rec)
	}
	row := Row{Source: source, File: name, Line: line, Rec: rec, Benchmark: task, Choice: -1}
	metricName, metric := metricObject(m)
	if dv, hasDoc := m["doc"]; hasDoc {
		docv, ok := dv.(map[string]any)
		if !ok {
			return Row{}, fail("doc", fmt.Errorf("%w: want the document as an object", harness.ErrFieldType))
		}
		if err := rowFromDoc(newRecord(docv), m, &row); err != nil {
			return Row{}, err
		}
	} else if err := rowFromLog(m, metricName, metric, &row); err != nil {
		return Row{}, err
	}
	row.Gold = strings.TrimSpace(row.Gold)
	if fr, ok := m["filtered_resps"]; ok {
		row.HasPrediction = true
		if err := sampleReply(fr, &row); err != nil {
			return Row{}, fail("filtered_resps", fmt.Errorf("%w: %v", harness.ErrFieldType, err))
		}
	}
	// The task's own parse of the reply (Video-MME's pred_answer) is
	// what the task scored: use it, so that the accuracy is the one
	// lmms-eval reported; "" is its unparsed reply.
	if pa, ok := metric["pred_answer"].(string); ok && row.Choice < 0 {
		row.HasPrediction = true
		row.Reply = strings.TrimSpace(pa)
		row.ReplyFrom = metricName + ".pred_answer"
	}
	return row, nil
}

// rowFromDoc fills row from the benchmark's record that lmms-eval up to
// v0.3 logs as doc.
func rowFromDoc(doc record, m map[string]any, row *Row) error {
	row.ItemsFrom = "doc"
	row.ID = doc.str(idNames)
	if row.ID == "" {
		if s, ok := text(m["doc_id"]); ok {
			row.ID = s
		}
	}
	row.Video = doc.str(videoNames)
	row.Question = doc.str(questionNames)
	row.Task = doc.str(taskNames)
	row.Duration, row.DurationGroup = duration(doc)
	opts, field, err := doc.options()
	if err != nil {
		return &harness.ParseError{File: row.File, Line: row.Line, Row: row.Rec, Field: "doc." + field, Err: fmt.Errorf("%w: %v", harness.ErrFieldType, err)}
	}
	row.Options = opts
	row.Gold, row.GoldIndex = doc.gold(goldNames)
	if row.Gold == "" {
		row.Gold, row.GoldIndex = newRecord(m).gold([]string{"target"})
	}
	return nil
}

// rowFromLog fills row from a line without doc (lmms-eval since v0.4):
// the question and lettered options from input, the prompt the model was
// given; the id, video, task and duration from the task's metric object
// (Video-MME's videomme_perception_score); the gold from target, else the
// metric object's answer.
func rowFromLog(m map[string]any, metricName string, metric record, row *Row) error {
	fail := func(field string, err error) error {
		return &harness.ParseError{File: row.File, Line: row.Line, Row: row.Rec, Field: field, Err: err}
	}
	row.ItemsFrom = "input"
	if metricName != "" {
		row.ItemsFrom = "input and " + metricName
	}
	in, ok := m["input"]
	if !ok {
		return fail("input", fmt.Errorf("%w: a line without doc must hold the prompt (input) to read the question and options from", harness.ErrMissingField))
	}
	prompt, ok := in.(string)
	if !ok {
		return fail("input", fmt.Errorf("%w: got %T, want the prompt as text", harness.ErrFieldType, in))
	}
	row.Question, row.Options = parsePrompt(prompt)
	if len(row.Options) < 2 {
		return fail("input", fmt.Errorf("%w: the prompt holds no run of lettered options (\"A. ...\", \"B. ...\" lines); a multiple-choice item needs at least two", harness.ErrTooFewOptions))
	}
	row.ID = metric.str(idNames)
	if row.ID == "" {
		if s, ok := text(m["doc_id"]); ok {
			row.ID = s
		}
	}
	row.Video = metric.str(logVideoNames)
	if row.Video == "" {
		// Video-MME before v0.6 logs no video: its question ids are
		// <video number>-<question>, the number standing for the video.
		if g := videoNumber.FindStringSubmatch(row.ID); g != nil {
			row.Video, row.VideoFrom = g[1], "the question id"
		}
	}
	row.Task = metric.str(taskNames)
	row.Duration, row.DurationGroup = duration(metric)
	row.Gold, row.GoldIndex = newRecord(m).gold([]string{"target"})
	if row.Gold == "" {
		row.Gold, row.GoldIndex = metric.gold(goldNames)
	}
	return nil
}

// logVideoNames are the names of the video in a metric object: the video
// file's id first (Video-MME's videoID, not its video_id number).
var logVideoNames = []string{"video", "videoid", "video_name", "video_path", "video_id", "vid"}

var videoNumber = regexp.MustCompile(`^(\d+)-\d+$`)

// metricObject finds the task's metric object in a line: the first, by
// name, object-valued field other than doc that holds an id or the task's
// parse of the reply.
func metricObject(m map[string]any) (string, record) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		obj, ok := m[k].(map[string]any)
		if !ok || k == "doc" {
			continue
		}
		r := newRecord(obj)
		if _, _, ok := r.first(append([]string{"pred_answer"}, idNames...)); ok {
			return k, r
		}
	}
	return "", record{}
}

// duration reads a duration in seconds, or a duration given as a category
// (Video-MME's "short", "medium", "long"), which is kept as the group.
func duration(r record) (*float64, string) {
	if d := r.number([]string{"duration"}); d != nil {
		return d, ""
	}
	return nil, r.str([]string{"duration"})
}

// optionLine is one lettered option of a prompt: "A. text", "(A) text",
// "A) text" or "A: text".
var optionLine = regexp.MustCompile(`^\(?([A-P])[.):]\s+(\S.*)$`)

// parsePrompt reads a multiple-choice prompt as lmms-eval's tasks write it
// (Video-MME: an instruction line, the question, one "A. text" line per
// option, then the post prompt): the options are the first run of lines
// lettered A, B, C, ... in order, and the question is the last line before
// them that is not "Options:".
func parsePrompt(p string) (question string, options []string) {
	lines := strings.Split(strings.ReplaceAll(p, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		g := optionLine.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if g == nil || g[1] != "A" {
			continue
		}
		var opts []string
		j := i
		for ; j < len(lines); j++ {
			g := optionLine.FindStringSubmatch(strings.TrimSpace(lines[j]))
			if g == nil || g[1] != answer.Letter(len(opts)) {
				break
			}
			opts = append(opts, strings.TrimSpace(g[2]))
		}
		if len(opts) < 2 {
			continue
		}
		for k := i - 1; k >= 0; k-- {
			l := strings.TrimSpace(lines[k])
			if l == "" || strings.EqualFold(strings.TrimSuffix(l, ":"), "options") {
				continue
			}
			question = l
			break
		}
		return question, opts
	}
	return "", nil
}

// sampleReply reads filtered_resps: a generated reply (a string, possibly
// nested in lists), or per option a [log-likelihood, is-greedy] pair whose
// largest log-likelihood is the model's choice.
func sampleReply(v any, row *Row) error {
	if s, ok := v.(string); ok {
		row.Reply = s // since v0.7, one request's reply unwrapped
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("got %T, want the reply, a list of replies or of [log-likelihood, is-greedy] pairs", v)
	}
	if len(list) == 0 {
		return nil // no reply: counted as unparsed
	}
	if pair, ok := list[0].([]any); ok && len(pair) == 2 {
		if _, num := pair[0].(json.Number); num {
			best, bestLL := -1, 0.0
			for i, e := range list {
				p, ok := e.([]any)
				if !ok || len(p) == 0 {
					return fmt.Errorf("entry %d: want a [log-likelihood, is-greedy] pair", i)
				}
				n, ok := p[0].(json.Number)
				ll, err := n.Float64()
				if !ok || err != nil {
					return fmt.Errorf("entry %d: log-likelihood %v is not a number", i, p[0])
				}
				if best < 0 || ll > bestLL {
					best, bestLL = i, ll
				}
			}
			row.Choice = best
			return nil
		}
	}
	for {
		switch x := list[0].(type) {
		case string:
			row.Reply = x
			return nil
		case []any:
			if len(x) == 0 {
				return nil
			}
			list = x
		default:
			s, ok := text(x)
			if !ok {
				return fmt.Errorf("reply of type %T", x)
			}
			row.Reply = s
			return nil
		}
	}
}
