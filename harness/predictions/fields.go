package predictions

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
)

// The names under which benchmark files hold each field, in order of
// preference; matched without regard to case. They come from the records
// of the video benchmarks as lmms-eval and VLMEvalKit load them (Video-MME:
// question_id, videoID, task_type, options, answer; MVBench: video,
// candidates, answer as text; NExT-QA: qid, a0..a4, answer as an index;
// LongVideoBench: candidates, correct_choice; EgoSchema: q_uid, option).
// videoID comes before video_id: Video-MME has both, and only videoID
// names the file (video_id is its number, "001").
var (
	idNames       = []string{"id", "question_id", "qid", "q_uid", "uid", "index"}
	benchNames    = []string{"benchmark", "dataset"}
	videoNames    = []string{"video", "videoid", "video_id", "video_name", "video_path", "vid"}
	questionNames = []string{"question", "query", "prompt_question"}
	optionNames   = []string{"options", "candidates", "choices", "option"}
	goldNames     = []string{"answer", "correct_choice", "gold", "gt", "label"}
	taskNames     = []string{"task", "task_type", "task_category", "question_type", "category", "sub_category", "type"}
	predNames     = []string{"prediction", "pred", "response", "output"}
)

// record is one decoded object (a JSON line's doc, a table row) with keys
// looked up without regard to case.
type record map[string]any

func newRecord(m map[string]any) record {
	r := record{}
	for k, v := range m {
		lk := strings.ToLower(strings.TrimSpace(k))
		if _, dup := r[lk]; !dup {
			r[lk] = v
		}
	}
	return r
}

// first returns the value of the first of names present and not null.
func (r record) first(names []string) (string, any, bool) {
	for _, n := range names {
		if v, ok := r[n]; ok && v != nil {
			if s, isStr := v.(string); isStr && strings.TrimSpace(s) == "" {
				continue
			}
			return n, v, true
		}
	}
	return "", nil, false
}

// text returns a scalar as text: strings as they are, integers without a
// fraction ("17", not "17.0", as pandas writes an integer column holding a
// blank).
func text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return numberText(x.String()), true
	case float64:
		return numberText(strconv.FormatFloat(x, 'f', -1, 64)), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

func numberText(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return s
}

// integer returns v as an integer when it is one (a JSON number, or a
// string of digits in a table cell).
func integer(v any) (int, bool) {
	s, ok := text(v)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(numberText(strings.TrimSpace(s)))
	return n, err == nil
}

func (r record) str(names []string) string {
	if _, v, ok := r.first(names); ok {
		if s, ok := text(v); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

func (r record) number(names []string) *float64 {
	if _, v, ok := r.first(names); ok {
		if s, ok := text(v); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return &f
			}
		}
	}
	return nil
}

// options returns the options of a record: a list (or a list literal in a
// table cell) under one of optionNames, else the columns A, B, ... (up to
// the first absent or blank), else a0, a1, ... (NExT-QA). field names where
// they were found, for errors.
func (r record) options() (opts []string, field string, err error) {
	if name, v, ok := r.first(optionNames); ok {
		switch x := v.(type) {
		case []any:
			for i, e := range x {
				s, ok := text(e)
				if !ok {
					return nil, fmt.Sprintf("%s[%d]", name, i), fmt.Errorf("got %T, want a string", e)
				}
				opts = append(opts, s)
			}
			return opts, name, nil
		case string:
			opts, err := items.ParseList(x)
			if err != nil {
				return nil, name, err
			}
			return opts, name, nil
		}
		return nil, name, fmt.Errorf("got %T, want a list of strings", v)
	}
	for _, prefix := range []string{"", "a"} {
		opts = opts[:0]
		for i := range answer.MaxOptions {
			key := strings.ToLower(answer.Letter(i))
			if prefix != "" {
				key = prefix + strconv.Itoa(i)
			}
			v, ok := r[key]
			s, isText := text(v)
			if !ok || v == nil || !isText || strings.TrimSpace(s) == "" || s == "nan" {
				break
			}
			opts = append(opts, s)
		}
		if len(opts) >= 2 {
			return opts, "", nil
		}
	}
	return nil, "", nil
}

// gold reads the correct answer: its text and, when given as an integer,
// its index (0-based, as the benchmarks that give an index write it).
func (r record) gold(names []string) (string, int) {
	_, v, ok := r.first(names)
	if !ok {
		return "", -1
	}
	if n, isNum := v.(json.Number); isNum {
		if i, err := strconv.Atoi(n.String()); err == nil {
			return n.String(), i
		}
	}
	s, _ := text(v)
	return strings.TrimSpace(s), -1
}
