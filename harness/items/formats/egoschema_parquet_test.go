package formats

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// egoParquetFixture is a row of lmms-lab/egoschema's tables as lmms-eval's
// egoschema task reads them: video_idx, question, option (five "A. text"
// strings), answer (the 0-based index as text, "" where hidden), with
// question_idx beside them.
type egoParquetFixture struct {
	QuestionIdx string   `parquet:"question_idx"`
	Question    string   `parquet:"question"`
	VideoIdx    string   `parquet:"video_idx"`
	Option      []string `parquet:"option,list"`
	Answer      string   `parquet:"answer"`
}

var egoParquetRows = []egoParquetFixture{
	{"0074f737-11cb-497d-8d07-77c3a8127391", "How does the woman help c?", "0074f737-11cb-497d-8d07-77c3a8127391",
		[]string{"A. she cuts pods", "B. she pours water", "C. she sweeps", "D. she sings", "E. she leaves"}, "3"},
	{"q-17", "What is c doing throughout the video?", "001934bb-81bd-4cd8-a574-0472ef3f6678",
		[]string{"A. c scrolls a phone", "B. c reads a book", "C. c types on a laptop", "D. c cooks", "E. c drinks tea"}, "0"},
	// The GENERATION and MC configs hold all 5,031 questions: the
	// answers of those outside the public 500 are blank.
	{"00b9a0de-c59e-49cb-a127-6081e2fb8c8e", "What is the purpose of c's actions?", "00b9a0de-c59e-49cb-a127-6081e2fb8c8e",
		[]string{"A. shopping", "B. cleaning", "C. painting", "D. repairing", "E. sorting papers"}, ""},
}

func writeEgoParquet[T any](t *testing.T, rows []T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "Subset", "test-00000-of-00001.parquet")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEgoSchemaParquet(t *testing.T) {
	t.Parallel()
	p := writeEgoParquet(t, egoParquetRows)
	if f, err := items.Detect(All(), p, nil); err != nil || f.Name != "egoschema" {
		t.Errorf("auto: %q, %v; want egoschema", f.Name, err)
	}
	res, err := readEgoSchema(context.Background(), []string{p}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID, Video, Source string
		Options           []string
		Gold              int
		Meta              map[string]any
	}
	want := []got{
		{"0074f737-11cb-497d-8d07-77c3a8127391", "0074f737-11cb-497d-8d07-77c3a8127391", p + ": row 1", egoParquetRows[0].Option, 3, nil},
		{"001934bb-81bd-4cd8-a574-0472ef3f6678", "001934bb-81bd-4cd8-a574-0472ef3f6678", p + ": row 2", egoParquetRows[1].Option, 0, map[string]any{"question_idx": "q-17"}},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		if g := (got{r.ID, r.Video, r.Source, r.Options, r.GoldIndex, r.Meta}); !reflect.DeepEqual(g, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, g, want[i])
		}
		if r.Benchmark != "EgoSchema" || r.HasPrediction {
			t.Errorf("row %d: benchmark %q, prediction %v", i, r.Benchmark, r.HasPrediction)
		}
	}
	wantDrops := []items.Drop{{Source: p + ": row 3", ID: "00b9a0de-c59e-49cb-a127-6081e2fb8c8e", Reason: "no public answer (lmms-lab/egoschema's Subset config holds the 500 public ones)"}}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped %+v, want %+v", res.Dropped, wantDrops)
	}
	// The same question from questions.json and a table is one question
	// given twice.
	q := writeFile(t, t.TempDir(), "questions.json", egoQuestions)
	a := writeFile(t, t.TempDir(), "subset_answers.json", egoAnswers)
	_, err = readEgoSchema(context.Background(), []string{p, q, a}, items.NoOptions())
	wantParseError(t, err, q, 1, "q_uid", harness.ErrDuplicateID)
}

// TestEgoSchemaParquetAnswerTypes: lmms-eval's egoschema README says the
// GENERATION and MC configs ship every answer as None (a null cell of an
// optional column) and the Subset config real indices 0-4, which
// egoschema_aggregate_score compares as str(): an integer column and a
// null cell read as the text column does.
func TestEgoSchemaParquetAnswerTypes(t *testing.T) {
	t.Parallel()
	opts := []string{"A. she cuts pods", "B. she pours water", "C. she sweeps", "D. she sings", "E. she leaves"}
	type nullable struct {
		Question string   `parquet:"question"`
		VideoIdx string   `parquet:"video_idx"`
		Option   []string `parquet:"option,list"`
		Answer   *string  `parquet:"answer,optional"`
	}
	type integer struct {
		Question string   `parquet:"question"`
		VideoIdx string   `parquet:"video_idx"`
		Option   []string `parquet:"option,list"`
		Answer   int64    `parquet:"answer"`
	}
	three := "3"
	for _, tc := range []struct {
		name    string
		path    string
		gold    []int
		dropped int
	}{
		{"null answers (GENERATION, MC)", writeEgoParquet(t, []nullable{{"q?", "v1", opts, &three}, {"q2?", "v2", opts, nil}}), []int{3}, 1},
		{"integer answers", writeEgoParquet(t, []integer{{"q?", "v1", opts, 4}, {"q2?", "v2", opts, 0}}), []int{4, 0}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := readEgoSchema(context.Background(), []string{tc.path}, items.NoOptions())
			if err != nil {
				t.Fatal(err)
			}
			var gold []int
			for _, r := range res.Rows {
				gold = append(gold, r.GoldIndex)
				// The letters go later, with the rules every format
				// follows (items.StripLetterPrefixes).
				if !reflect.DeepEqual(r.Options, opts) {
					t.Errorf("options %q, want %q", r.Options, opts)
				}
			}
			if !reflect.DeepEqual(gold, tc.gold) || len(res.Dropped) != tc.dropped {
				t.Errorf("gold %v, %d dropped; want %v, %d", gold, len(res.Dropped), tc.gold, tc.dropped)
			}
		})
	}
}

func TestEgoSchemaParquetErrors(t *testing.T) {
	t.Parallel()
	opts := []string{"A. x", "B. y", "C. z"}
	type noAnswer struct {
		Question string   `parquet:"question"`
		VideoIdx string   `parquet:"video_idx"`
		Option   []string `parquet:"option,list"`
	}
	type flatOption struct {
		Question string `parquet:"question"`
		VideoIdx string `parquet:"video_idx"`
		Option   string `parquet:"option"`
		Answer   string `parquet:"answer"`
	}
	for _, tc := range []struct {
		name   string
		path   string
		row    int
		field  string
		reason error
	}{
		{"an answer past the options", writeEgoParquet(t, []egoParquetFixture{{"", "q?", "v1", opts, "3"}}), 1, "answer", harness.ErrAnswerRange},
		{"an answer that is no index", writeEgoParquet(t, []egoParquetFixture{{"", "q?", "v1", opts, "B"}}), 1, "answer", harness.ErrBadValue},
		{"one option", writeEgoParquet(t, []egoParquetFixture{{"", "q?", "v1", opts[:1], "0"}}), 1, "option", harness.ErrTooFewOptions},
		{"no video", writeEgoParquet(t, []egoParquetFixture{{"", "q?", " ", opts, "0"}}), 1, "video_idx", harness.ErrEmptyField},
		{"the same video twice", writeEgoParquet(t, []egoParquetFixture{{"", "q?", "v1", opts, "0"}, {"", "q2?", "v1", opts, "1"}}), 2, "video_idx", harness.ErrDuplicateID},
		{"no answer column", writeEgoParquet(t, []noAnswer{{"q?", "v1", opts}}), 0, "answer", harness.ErrMissingField},
		{"options not a list", writeEgoParquet(t, []flatOption{{"q?", "v1", "A. x", "0"}}), 0, "option", harness.ErrFieldType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readEgoSchema(context.Background(), []string{tc.path}, items.NoOptions())
			wantParquetError(t, err, tc.path, tc.row, tc.field, tc.reason)
		})
	}
}

// FuzzEgoSchemaParquet feeds the lmms-lab table reader arbitrary bytes
// after a real table: no panic, every error a *harness.ParseError, every
// row's gold one of its options.
func FuzzEgoSchemaParquet(f *testing.F) {
	addParquetSeeds(f, egoParquetRows)
	fuzzRead(f, "test-00000-of-00001.parquet", readEgoSchema, isChoice)
}
