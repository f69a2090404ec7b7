package items

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
)

// The names under which benchmark files hold each field, in order of
// preference; matched without regard to case. They come from the records
// of the video benchmarks as lmms-eval and VLMEvalKit load them (Video-MME:
// question_id, videoID, task_type, options, answer; MVBench: video,
// candidates, answer as text; NExT-QA: qid, a0..a4, answer as an index;
// LongVideoBench: candidates, correct_choice, question_category; EgoSchema:
// q_uid, option).
// videoID comes before video_id: Video-MME has both, and only videoID
// names the file (video_id is its number, "001"). They are functions so
// that no caller can change another's list.
func idNames() []string    { return []string{"id", "question_id", "qid", "q_uid", "uid", "index"} }
func benchNames() []string { return []string{"benchmark", "dataset"} }
func videoNames() []string {
	return []string{"video", "videoid", "video_path", "video_name", "video_id", "vid"}
}
func questionNames() []string { return []string{"question", "query", "prompt_question"} }
func optionNames() []string   { return []string{"options", "candidates", "choices", "option"} }
func goldNames() []string {
	return []string{"answer", "correct_choice", "gold", "gt", "label"}
}
func taskNames() []string {
	return []string{"task", "task_type", "task_category", "question_type", "question_category", "category", "sub_category", "type"}
}
func predNames() []string { return []string{"prediction", "pred", "response", "output"} }

// A Record is one decoded object (a JSON line's doc, a table row) with keys
// looked up without regard to case.
type Record map[string]any

// NewRecord keys m by lower-cased, trimmed names (the first of two names
// that differ only in case wins).
func NewRecord(m map[string]any) Record {
	r := Record{}
	for k, v := range m {
		lk := strings.ToLower(strings.TrimSpace(k))
		if _, dup := r[lk]; !dup {
			r[lk] = v
		}
	}
	return r
}

// First returns the value of the first of names present, not null and not
// blank.
func (r Record) First(names ...string) (string, any, bool) {
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

// Has reports whether the record has any of names, even blank.
func (r Record) Has(names ...string) bool {
	for _, n := range names {
		if _, ok := r[n]; ok {
			return true
		}
	}
	return false
}

// The fields every benchmark record may have, under the names above.
func (r Record) ID() string        { return NumberText(r.Str(idNames()...)) }
func (r Record) Benchmark() string { return r.Str(benchNames()...) }
func (r Record) Question() string  { return r.Str(questionNames()...) }
func (r Record) Task() string      { return r.Str(taskNames()...) }
func (r Record) Prediction() string {
	return r.Str(predNames()...)
}

// HasPrediction reports whether the record has a prediction field.
func (r Record) HasPrediction() bool { return r.Has(predNames()...) }

// HasQuestion reports whether the record has a question field.
func (r Record) HasQuestion() bool { return r.Has(questionNames()...) }

// Video returns the record's video and the field it came from. A video
// given only as a number (Video-MME's video_id "001" without videoID) is
// no file name: note says so, for Row.VideoFrom.
func (r Record) Video() (video, note string) {
	name, v, ok := r.First(videoNames()...)
	if !ok {
		return "", ""
	}
	s, _ := Text(v)
	s = strings.TrimSpace(s)
	if name == "video_id" && isDigits(s) {
		return s, "video_id, a video number"
	}
	return s, ""
}

// GoldAnswer returns the record's gold answer (see Gold).
func (r Record) GoldAnswer() (string, int) { return r.Gold(goldNames()...) }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Text returns a scalar as text: strings as they are, integers without a
// fraction ("17", not "17.0", as pandas writes an integer column holding a
// blank).
func Text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return NumberText(x.String()), true
	case float64:
		return NumberText(strconv.FormatFloat(x, 'f', -1, 64)), true
	case int:
		return strconv.Itoa(x), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// NumberText writes a whole number without its fraction ("17.0" -> "17").
func NumberText(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return s
}

// Integer returns v as an integer when it is one (a JSON number, or a
// string of digits in a table cell).
func Integer(v any) (int, bool) {
	s, ok := Text(v)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(NumberText(strings.TrimSpace(s)))
	return n, err == nil
}

// Str returns the first of names present as trimmed text, or "".
func (r Record) Str(names ...string) string {
	if _, v, ok := r.First(names...); ok {
		if s, ok := Text(v); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// Number returns the first of names present as a finite number, or nil.
func (r Record) Number(names ...string) *float64 {
	if _, v, ok := r.First(names...); ok {
		if s, ok := Text(v); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return &f
			}
		}
	}
	return nil
}

// Duration reads a duration in seconds, or a duration given as a category
// (Video-MME's "short", "medium", "long"), which is returned as the group.
func (r Record) Duration() (*float64, string) {
	if d := r.Number("duration"); d != nil {
		return d, ""
	}
	return nil, r.Str("duration")
}

// blank is an empty cell as pandas writes one: nothing, or "nan".
func blank(v any) bool {
	s, isText := Text(v)
	return v == nil || !isText || strings.TrimSpace(s) == "" || s == "nan"
}

// Options returns the options of a record: a list (or a list literal in a
// table cell) under one of the option names; else the columns A, B, ...
// that the record has, in order (VLMEvalKit's tables); else a0, a1, ...
// (NExT-QA). field names where they were found, for errors.
//
// A blank letter cell before a filled one is an empty option, kept in its
// place (pandas writes a None option as an empty cell; dropping it would
// shift every later letter): the item reader flags it empty_option.
// Trailing blank letter columns are no options. A blank a<i> before a
// filled a<j> is an error: NExT-QA always has five, and a gap is a broken
// row.
func (r Record) Options() (opts []string, field string, err error) {
	if name, v, ok := r.First(optionNames()...); ok {
		switch x := v.(type) {
		case []any:
			for i, e := range x {
				s, ok := Text(e)
				if !ok {
					return nil, fmt.Sprintf("%s[%d]", name, i), fmt.Errorf("got %T, want a string", e)
				}
				opts = append(opts, s)
			}
			return opts, name, nil
		case string:
			opts, err := ParseList(x)
			if err != nil {
				return nil, name, err
			}
			return opts, name, nil
		}
		return nil, name, fmt.Errorf("got %T, want a list of strings", v)
	}
	// The letter columns, up to the last filled one.
	last := -1
	for i := range answer.MaxOptions {
		if v, ok := r[strings.ToLower(answer.Letter(i))]; ok && !blank(v) {
			last = i
		}
	}
	if last >= 1 {
		for i := 0; i <= last; i++ {
			v := r[strings.ToLower(answer.Letter(i))]
			s, _ := Text(v)
			if blank(v) {
				s = ""
			}
			opts = append(opts, s)
		}
		return opts, "", nil
	}
	last = -1
	for i := range answer.MaxOptions {
		if v, ok := r["a"+strconv.Itoa(i)]; ok && !blank(v) {
			last = i
		}
	}
	for i := 0; i <= last; i++ {
		key := "a" + strconv.Itoa(i)
		v := r[key]
		if blank(v) {
			return nil, key, fmt.Errorf("%w: %w: %s is missing or blank but a%d is given: the a0, a1, ... options must not have gaps", harness.ErrMissingField, ErrOptionGap, key, last)
		}
		s, _ := Text(v)
		opts = append(opts, s)
	}
	if len(opts) >= 2 {
		return opts, "a0", nil
	}
	return nil, "", nil
}

// OptionsError is the reason of an error of Options for a
// *harness.ParseError: a gap is a missing field, anything else a wrong type.
func OptionsError(err error) error {
	if errors.Is(err, ErrOptionGap) {
		return err
	}
	return fmt.Errorf("%w: %w", harness.ErrFieldType, err)
}

// ErrOptionGap is a run of numbered option fields with one missing.
var ErrOptionGap = errors.New("options with a gap")

// Gold reads the correct answer: its text and, when given as a JSON
// integer, its index (0-based, as the benchmarks that give an index write
// it; a digit string stays text, for Gold to read with the index base).
func (r Record) Gold(names ...string) (string, int) {
	_, v, ok := r.First(names...)
	if !ok {
		return "", -1
	}
	if n, isNum := v.(json.Number); isNum {
		if i, err := strconv.Atoi(n.String()); err == nil && i >= 0 {
			return n.String(), i
		}
	}
	s, _ := Text(v)
	return strings.TrimSpace(s), -1
}
