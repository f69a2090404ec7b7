package predictions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
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
		fail := func(field string, err error) error {
			return &harness.ParseError{File: name, Line: line, Field: field, Err: err}
		}
		docv, ok := m["doc"].(map[string]any)
		if !ok {
			return fail("doc", fmt.Errorf("%w: want the document as an object", harness.ErrFieldType))
		}
		doc := newRecord(docv)
		row := Row{Source: fmt.Sprintf("%s:%d", name, line), File: name, Line: line, Benchmark: task, Choice: -1}
		row.ID = doc.str(idNames)
		if row.ID == "" {
			if s, ok := text(m["doc_id"]); ok {
				row.ID = s
			}
		}
		row.Video = doc.str(videoNames)
		row.Question = doc.str(questionNames)
		row.Task = doc.str(taskNames)
		row.Duration = doc.number([]string{"duration"})
		var field string
		if row.Options, field, err = doc.options(); err != nil {
			return fail("doc."+field, fmt.Errorf("%w: %v", harness.ErrFieldType, err))
		}
		row.Gold, row.GoldIndex = doc.gold(goldNames)
		if row.Gold == "" {
			row.Gold, row.GoldIndex = newRecord(m).gold([]string{"target"})
		}
		if fr, ok := m["filtered_resps"]; ok {
			row.HasPrediction = true
			if err := sampleReply(fr, &row); err != nil {
				return fail("filtered_resps", fmt.Errorf("%w: %v", harness.ErrFieldType, err))
			}
		}
		rows = append(rows, row)
		return nil
	})
	return rows, err
}

// sampleReply reads filtered_resps: a generated reply (a string, possibly
// nested in lists), or per option a [log-likelihood, is-greedy] pair whose
// largest log-likelihood is the model's choice.
func sampleReply(v any, row *Row) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("got %T, want a list", v)
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
