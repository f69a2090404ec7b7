package formats

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// egoQuestions is questions.json as EgoSchema ships it: one line, an array
// of records with five options each.
const egoQuestions = `[{"q_uid": "001934bb-81bd-4cd8-a574-0472ef3f6678", "google_drive_id": "15yGB0TI5zG5usdQZOXn0CrRzkJNB0gMl", "question": "What is c doing throughout the video?", "option 0": "c scrolls a phone", "option 1": "c reads a book", "option 2": "c types on a laptop", "option 3": "c cooks", "option 4": "c drinks tea"}, ` +
	`{"q_uid": "00b9a0de-c59e-49cb-a127-6081e2fb8c8e", "google_drive_id": "14pm6dj9_3cU-J65fF9u59ZtytG-8WTdN", "question": "What is the purpose of c's actions?", "option 0": "shopping", "option 1": "cleaning", "option 2": "painting", "option 3": "repairing", "option 4": "sorting papers"}, ` +
	`{"q_uid": "0074f737-11cb-497d-8d07-77c3a8127391", "question": "How does the woman help c?", "option 0": "she cuts pods", "option 1": "she pours water", "option 2": "she sweeps", "option 3": "she sings", "option 4": "she leaves"}]`

const egoAnswers = `{"0074f737-11cb-497d-8d07-77c3a8127391": 3, "001934bb-81bd-4cd8-a574-0472ef3f6678": 0, "ffffffff-0000-4000-8000-000000000000": 2}`

func TestEgoSchemaRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := writeFile(t, dir, "questions.json", egoQuestions)
	a := writeFile(t, dir, "subset_answers.json", egoAnswers)
	// The files may come in either order.
	res, err := readEgoSchema(context.Background(), []string{a, q}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID, Video, Question, Source string
		Options                     []string
		Gold                        int
		Meta                        map[string]any
	}
	want := []got{
		{"001934bb-81bd-4cd8-a574-0472ef3f6678", "001934bb-81bd-4cd8-a574-0472ef3f6678", "What is c doing throughout the video?", q + ": record 1",
			[]string{"c scrolls a phone", "c reads a book", "c types on a laptop", "c cooks", "c drinks tea"}, 0, map[string]any{"google_drive_id": "15yGB0TI5zG5usdQZOXn0CrRzkJNB0gMl"}},
		{"0074f737-11cb-497d-8d07-77c3a8127391", "0074f737-11cb-497d-8d07-77c3a8127391", "How does the woman help c?", q + ": record 3",
			[]string{"she cuts pods", "she pours water", "she sweeps", "she sings", "she leaves"}, 3, nil},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		g := got{r.ID, r.Video, r.Question, r.Source, r.Options, r.GoldIndex, r.Meta}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, g, want[i])
		}
		if r.Benchmark != "EgoSchema" || r.Task != "" || r.Line != 1 || r.Rec == 0 {
			t.Errorf("row %d: benchmark %q task %q line %d record %d", i, r.Benchmark, r.Task, r.Line, r.Rec)
		}
	}
	wantDrops := []items.Drop{
		{Source: q + ": record 2", ID: "00b9a0de-c59e-49cb-a127-6081e2fb8c8e", Reason: "no public answer (subset_answers.json holds 500 of EgoSchema's answers)"},
		{Source: a + ":1", ID: "ffffffff-0000-4000-8000-000000000000", Reason: "an answer to a question that no questions file holds"},
	}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped %+v, want %+v", res.Dropped, wantDrops)
	}
}

func TestEgoSchemaErrors(t *testing.T) {
	t.Parallel()
	rec := `{"q_uid": "u1", "question": "q?", "option 0": "a", "option 1": "b", "option 2": "c", "option 3": "d", "option 4": "e"}`
	for _, tc := range []struct {
		name, questions, answers string
		file                     string // which file the error names
		line                     int
		field                    string
		reason                   error
	}{
		{"gap in options", "[\n" + rec + ",\n" + `{"q_uid": "u2", "question": "q?", "option 0": "a", "option 1": "b", "option 3": "d", "option 4": "e"}` + "\n]", `{"u1": 0}`, "q", 3, "option 2", harness.ErrMissingField},
		{"option not text", "[\n" + `{"q_uid": "u2", "question": "q?", "option 0": "a", "option 1": 7}` + "\n]", `{"u2": 0}`, "q", 2, "option 1", harness.ErrFieldType},
		{"no question", `[{"q_uid": "u2", "option 0": "a", "option 1": "b"}]`, `{"u2": 0}`, "q", 1, "question", harness.ErrMissingField},
		{"no q_uid", `[{"question": "q?", "option 0": "a", "option 1": "b"}]`, `{"u2": 0}`, "q", 1, "q_uid", harness.ErrMissingField},
		{"duplicate q_uid", "[" + rec + ", " + rec + "]", `{"u1": 0}`, "q", 1, "q_uid", harness.ErrDuplicateID},
		{"answer past the options", "[" + rec + "]", "{\n\"u1\": 5\n}", "a", 2, "u1", harness.ErrAnswerRange},
		{"answer a letter", "[" + rec + "]", `{"u1": "B"}`, "a", 1, "u1", harness.ErrFieldType},
		{"option 4 missing (issue 33 §2.7: one rule, as NExT-QA's empty a4)", `[{"q_uid": "u2", "question": "q?", "option 0": "a", "option 1": "b", "option 2": "c", "option 3": "d"}]`, `{"u2": 0}`, "q", 1, "option 4", harness.ErrMissingField},
		{"answer a digit in quotes", "[" + rec + "]", `{"u1": "2"}`, "a", 1, "u1", harness.ErrFieldType},
		{"answer negative", "[" + rec + "]", `{"u1": -1}`, "a", 1, "u1", harness.ErrAnswerRange},
		{"record not an object", "[\n" + rec + ",\n\"x\"\n]", `{"u1": 0}`, "q", 3, "", harness.ErrSyntax},
		{"truncated questions", "[" + rec, `{"u1": 0}`, "q", 1, "", harness.ErrSyntax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			q := writeFile(t, dir, "questions.json", tc.questions)
			a := writeFile(t, dir, "subset_answers.json", tc.answers)
			_, err := readEgoSchema(context.Background(), []string{q, a}, items.NoOptions())
			file := q
			if tc.file == "a" {
				file = a
			}
			wantParseError(t, err, file, tc.line, tc.field, tc.reason)
		})
	}
	t.Run("no answers file", func(t *testing.T) {
		q := writeFile(t, t.TempDir(), "questions.json", "["+rec+"]")
		_, err := readEgoSchema(context.Background(), []string{q}, items.NoOptions())
		wantParseError(t, err, q, 0, "", harness.ErrMissingField)
	})
}

func TestEgoSchemaDetect(t *testing.T) {
	t.Parallel()
	checkDetect(t, detectEgoSchema, []detectCase{
		{"questions.json", egoQuestions[:300], true},
		{"subset_answers.json", egoAnswers[:60], true},
		{"questions.jsonl", egoQuestions[:300], false},
		{"mvbench.json", `[{"video": "a.mp4", "question": "q", "candidates": ["a", "b"], "answer": "a"}]`, false},
		{"other.json", `{"results": {}}`, false},
	})
}

func FuzzEgoSchema(f *testing.F) {
	f.Add([]byte(egoQuestions), []byte(egoAnswers))
	f.Add([]byte(`[{"q_uid": "u", "question": "q", "option 0": "a", "option 2": "c"}]`), []byte(`{"u": 1}`))
	f.Add([]byte(`[`), []byte(`{"u": 9}`))
	// One pair of files per fuzzing process: its calls run one at a time.
	dir := f.TempDir()
	q := filepath.Join(dir, "questions.json")
	a := filepath.Join(dir, "subset_answers.json")
	f.Fuzz(func(t *testing.T, questions, answers []byte) {
		if os.WriteFile(q, questions, 0o644) != nil || os.WriteFile(a, answers, 0o644) != nil {
			t.Fatal("write fixture")
		}
		res, err := readEgoSchema(context.Background(), []string{q, a}, items.NoOptions())
		checkFuzzRead(t, res, err, isChoice, q, a)
	})
}
