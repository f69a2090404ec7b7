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

// ptParquetRow is a row of lmms-eval/PerceptionTest_Val's mc_question_val
// table as lmms-eval's perceptiontest tasks read it (video_name, question,
// options, answer_id, question_id, area, reasoning, tag); the test
// config's rows have no answer.
type ptParquetRow struct {
	VideoName  string   `parquet:"video_name"`
	QuestionID string   `parquet:"question_id"`
	Question   string   `parquet:"question"`
	Options    []string `parquet:"options,list"`
	AnswerID   *int64   `parquet:"answer_id,optional"`
	Area       string   `parquet:"area"`
	Reasoning  string   `parquet:"reasoning"`
	Tag        []string `parquet:"tag,list"`
}

func writePTParquet(t testing.TB, rows []ptParquetRow) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mc_question_val", "validation-00000-of-00001.parquet")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPerceptionTestParquet(t *testing.T) {
	t.Parallel()
	one, two := int64(1), int64(2)
	p := writePTParquet(t, []ptParquetRow{
		{"video_10909", "0", "What is in the box?", []string{"a cup", "a pen", "a key"}, &one, "memory", "descriptive", []string{"object"}},
		{"video_10909", "1", "Who moved first?", []string{"the man", "the dog", "the cat"}, &two, "physics", "explanatory", nil},
		{"video_7", "0", "How many?", []string{"1", "2", "3"}, nil, "abstraction", "counting", nil},
	})
	head, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := items.Detect(All(), p, head); err != nil || f.Name != "perceptiontest" {
		t.Errorf("auto: %q, %v; want perceptiontest", f.Name, err)
	}
	res, err := readPerceptionTest(context.Background(), []string{p}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, res.Rows)
	type got struct {
		ID, Video, Task, Source string
		Gold                    int
		Meta                    map[string]any
	}
	want := []got{
		{"video_10909/0", "video_10909.mp4", "memory", p + ": row 1", 1, map[string]any{"reasoning": "descriptive", "tag": []any{"object"}}},
		{"video_10909/1", "video_10909.mp4", "physics", p + ": row 2", 2, map[string]any{"reasoning": "explanatory", "tag": []any{}}},
	}
	var rows []got
	for _, r := range res.Rows {
		rows = append(rows, got{r.ID, r.Video, r.Task, r.Source, r.GoldIndex, r.Meta})
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n got %+v\nwant %+v", rows, want)
	}
	if len(res.Dropped) != 1 || res.Dropped[0].ID != "video_7/0" {
		t.Errorf("dropped %+v; want video_7/0 without an answer", res.Dropped)
	}
}

func TestPerceptionTestParquetErrors(t *testing.T) {
	t.Parallel()
	one, five := int64(1), int64(5)
	opts := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name   string
		rows   []ptParquetRow
		row    int
		field  string
		reason error
	}{
		{"an answer past the options", []ptParquetRow{{"v", "0", "q?", opts, &five, "memory", "", nil}}, 1, "answer_id", harness.ErrAnswerRange},
		{"one option", []ptParquetRow{{"v", "0", "q?", opts[:1], &one, "memory", "", nil}}, 1, "options", harness.ErrTooFewOptions},
		{"no video", []ptParquetRow{{" ", "0", "q?", opts, &one, "memory", "", nil}}, 1, "video_name", harness.ErrEmptyField},
		{"one question twice", []ptParquetRow{{"v", "0", "q?", opts, &one, "memory", "", nil}, {"v", "0", "q2?", opts, &one, "memory", "", nil}}, 2, "question_id", harness.ErrDuplicateID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writePTParquet(t, tc.rows)
			_, err := readPerceptionTest(context.Background(), []string{p}, items.NoOptions())
			wantParquetError(t, err, p, tc.row, tc.field, tc.reason)
		})
	}
}

// FuzzPerceptionTestParquet: arbitrary bytes after a real table give no
// panic, only *harness.ParseError values, and rows whose gold is one of
// their options.
func FuzzPerceptionTestParquet(f *testing.F) {
	one := int64(1)
	addParquetSeeds(f, []ptParquetRow{{"v", "0", "q?", []string{"a", "b", "c"}, &one, "memory", "", nil}})
	fuzzRead(f, "validation-00000-of-00001.parquet", readPerceptionTest, isChoice)
}
