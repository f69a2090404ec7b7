package formats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// EgoSchema reads EgoSchema's files as its repository ships them
// (egoschema/EgoSchema): questions.json, an array of {q_uid,
// google_drive_id, question, "option 0".."option 4"} for all 5,031
// questions, and subset_answers.json, {q_uid: index} with the 0-based
// correct option of the 500 questions whose answers are public. A question
// without an answer is dropped with the reason (the rest are scored only by
// the authors' server). The video is <q_uid>.mp4: the id is the video's.
// It also reads lmms-lab/egoschema's Parquet tables (egoschema_parquet.go).
func EgoSchema() items.Format {
	return items.Format{
		Name:   "egoschema",
		Title:  "EgoSchema",
		Files:  "questions.json and subset_answers.json from egoschema/EgoSchema, or <config>/test-00000-of-00001.parquet from lmms-lab/egoschema",
		Detect: detectEgoSchema,
		Read:   readEgoSchema,
	}
}

var (
	// egoQuestionsHead is the start of questions.json: an array whose
	// first record has a q_uid.
	egoQuestionsHead = regexp.MustCompile(`^\s*\[\s*\{\s*"q_uid"\s*:`)
	// egoAnswersHead is the start of subset_answers.json: an object from
	// a question's uuid to a number.
	egoAnswersHead = regexp.MustCompile(`^\s*\{\s*"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"\s*:\s*\d`)
)

func detectEgoSchema(path string, head []byte) bool {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return detectEgoParquet(path)
	}
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return false
	}
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	return egoQuestionsHead.Match(head) && bytes.Contains(head, []byte(`"option 0"`)) || egoAnswersHead.Match(head)
}

func readEgoSchema(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	res := &items.Result{}
	used := map[string]bool{}
	// lmms-lab's Parquet tables hold their answers: each is read alone.
	var jsonPaths []string
	for _, p := range paths {
		if strings.EqualFold(filepath.Ext(p), ".parquet") {
			if err := readEgoParquet(ctx, p, res, used); err != nil {
				return nil, err
			}
			continue
		}
		jsonPaths = append(jsonPaths, p)
	}
	if len(jsonPaths) == 0 {
		return res, nil
	}
	var questions []string
	answers := map[string]int{}
	answerFrom := map[string]egoAnswerAt{}
	for _, p := range jsonPaths {
		head, err := items.Head(p)
		if err != nil {
			return nil, err
		}
		// The two files are told apart by their content, not their
		// names: questions.json is an array, subset_answers.json an
		// object.
		if t := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
			if err := readEgoAnswers(ctx, p, answers, answerFrom); err != nil {
				return nil, err
			}
			continue
		}
		questions = append(questions, p)
	}
	if len(questions) == 0 {
		return nil, &harness.ParseError{File: jsonPaths[0], Err: fmt.Errorf("%w: no questions file: give questions.json along with %s", harness.ErrNoItems, filepath.Base(jsonPaths[0]))}
	}
	if len(answerFrom) == 0 {
		return nil, &harness.ParseError{File: questions[0], Err: fmt.Errorf("%w: no answers: EgoSchema's questions.json holds none; give subset_answers.json too (the public answers of 500 questions)", harness.ErrMissingField)}
	}
	for _, p := range questions {
		recs, err := records.Array(ctx, p, "EgoSchema's questions")
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			row, err := egoRow(p, rec)
			if err != nil {
				return nil, err
			}
			if used[row.ID] {
				return nil, rec.Fail("q_uid", harness.ErrDuplicateID, "%q appears twice", row.ID)
			}
			used[row.ID] = true
			g, ok := answers[row.ID]
			if !ok {
				res.Dropped = append(res.Dropped, items.Drop{Source: row.Source, ID: row.ID, Reason: "no public answer (subset_answers.json holds 500 of EgoSchema's answers)"})
				continue
			}
			if g >= len(row.Options) {
				at := answerFrom[row.ID]
				return nil, &harness.ParseError{File: at.file, Line: at.line, Field: row.ID, Err: fmt.Errorf("%w: %d is not an index into the %d options of %s", harness.ErrAnswerRange, g, len(row.Options), row.Source)}
			}
			row.Gold, row.GoldIndex = strconv.Itoa(g), g
			res.Rows = append(res.Rows, row)
		}
	}
	// Answers to questions no file holds are named, in the answers'
	// order, so that a user sees a questions file of another release.
	var orphans []string
	for id := range answerFrom {
		if !used[id] {
			orphans = append(orphans, id)
		}
	}
	slices.Sort(orphans)
	for _, id := range orphans {
		res.Dropped = append(res.Dropped, items.Drop{Source: answerFrom[id].String(), ID: id, Reason: "an answer to a question that no questions file holds"})
	}
	return res, nil
}

// egoOptions is the number of options of every EgoSchema question.
const egoOptions = 5

// egoAnswerAt is where an answer was read.
type egoAnswerAt struct {
	file string
	line int
}

func (a egoAnswerAt) String() string { return fmt.Sprintf("%s:%d", a.file, a.line) }

// readEgoAnswers reads subset_answers.json: {q_uid: 0-based index}.
func readEgoAnswers(ctx context.Context, name string, answers map[string]int, from map[string]egoAnswerAt) error {
	return records.EachKey(ctx, name, "EgoSchema's answers as one JSON object {q_uid: index}", func(w *records.Walker, id string) error {
		var v any
		line, err := w.Value(&v)
		if err != nil {
			return err
		}
		n, ok := v.(json.Number)
		g, err := strconv.Atoi(string(n))
		if s, isText := v.(string); isText {
			// "2" in quotes printed as 2 read as if the number were
			// refused: say it is text.
			return w.Fail(line, id, fmt.Errorf("%w: got the text %q (in quotes), want the 0-based index of the correct option as a bare JSON number", harness.ErrFieldType, s))
		}
		if !ok || err != nil {
			return w.Fail(line, id, fmt.Errorf("%w: got %v, want the 0-based index of the correct option as a JSON integer", harness.ErrFieldType, v))
		}
		if g < 0 {
			return w.Fail(line, id, fmt.Errorf("%w: %d (answers are 0-based)", harness.ErrAnswerRange, g))
		}
		if prev, dup := from[id]; dup && answers[id] != g {
			return w.Fail(line, id, fmt.Errorf("%w: answer %d, but %s gives %d", harness.ErrDuplicateID, g, prev, answers[id]))
		}
		answers[id], from[id] = g, egoAnswerAt{name, line}
		return nil
	})
}

// egoRow reads one record of questions.json.
func egoRow(name string, rec *records.Record) (items.Row, error) {
	id, err := rec.Filled("q_uid")
	if err != nil {
		return items.Row{}, err
	}
	q, err := rec.Filled("question")
	if err != nil {
		return items.Row{}, err
	}
	row := items.Row{
		Source:    rec.Source(),
		File:      name,
		Line:      rec.Line,
		Rec:       rec.N,
		ID:        strings.TrimSpace(id),
		Benchmark: "EgoSchema",
		Video:     strings.TrimSpace(id),
		Question:  q,
		GoldIndex: -1,
		Choice:    -1,
	}
	for i := 0; ; i++ {
		field := "option " + strconv.Itoa(i)
		if rec.Raw(field) == nil {
			break
		}
		o, err := rec.Filled(field)
		if err != nil {
			return items.Row{}, err
		}
		row.Options = append(row.Options, o)
	}
	// EgoSchema's questions all have five options: a record short of
	// one is damaged, refused as NExT-QA's empty a4 is (one rule for a
	// layout that fixes the number of options).
	if len(row.Options) < egoOptions {
		return items.Row{}, rec.Fail("option "+strconv.Itoa(len(row.Options)), harness.ErrMissingField, "EgoSchema's options are option 0..option %d, every one given", egoOptions-1)
	}
	for _, k := range rec.Fields() {
		if rest, ok := strings.CutPrefix(k, "option "); ok {
			if n, err := strconv.Atoi(rest); err == nil && n > len(row.Options) {
				return items.Row{}, rec.Fail("option "+strconv.Itoa(len(row.Options)), harness.ErrMissingField, "the record has %s but no option %d: the options must run from option 0 without a gap", k, len(row.Options))
			}
		}
	}
	if d, err := rec.Str("google_drive_id", false); err != nil {
		return items.Row{}, err
	} else if d != "" {
		row.Meta = map[string]any{"google_drive_id": d}
	}
	return row, nil
}
