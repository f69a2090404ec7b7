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

// nextqaParquetRow is a row of lmms-eval/NExTQA's MC table as
// lmms-eval's nextqa_mc_test reads it: the CSV's columns, integers as
// integers.
type nextqaParquetRow struct {
	Video      int64  `parquet:"video"`
	FrameCount int64  `parquet:"frame_count"`
	Width      int64  `parquet:"width"`
	Height     int64  `parquet:"height"`
	Question   string `parquet:"question"`
	Answer     int64  `parquet:"answer"`
	Qid        int64  `parquet:"qid"`
	Type       string `parquet:"type"`
	A0         string `parquet:"a0"`
	A1         string `parquet:"a1"`
	A2         string `parquet:"a2"`
	A3         string `parquet:"a3"`
	A4         string `parquet:"a4"`
}

func writeNExTQAParquet[T any](t testing.TB, rows []T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "MC", "test-00000-of-00001.parquet")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNExTQAParquet(t *testing.T) {
	t.Parallel()
	p := writeNExTQAParquet(t, []nextqaParquetRow{
		{4010069381, 369, 640, 480, "how do the two man play the instrument", 2, 6, "CH", "roll the handle", "tap their feet", "strum the string", "hit with sticks", "pat with hand"},
		// qid numbers the questions of one video: the same qid of another
		// video is another question.
		{2435100235, 1200, 640, 360, "why did the baby cry", 0, 6, "CW", "hungry", "tired", "fell", "wet", "cold"},
	})
	head, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := items.Detect(All(), p, head); err != nil || f.Name != "nextqa" {
		t.Errorf("auto: %q, %v; want nextqa", f.Name, err)
	}
	res, err := readNExTQA(context.Background(), []string{p}, items.NoOptions())
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
		{"test/4010069381_6", "4010069381", "CH", p + ": row 1", 2, map[string]any{"frame_count": 369, "width": 640, "height": 480}},
		{"test/2435100235_6", "2435100235", "CW", p + ": row 2", 0, map[string]any{"frame_count": 1200, "width": 640, "height": 360}},
	}
	var rows []got
	for _, r := range res.Rows {
		rows = append(rows, got{r.ID, r.Video, r.Task, r.Source, r.GoldIndex, r.Meta})
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n got %+v\nwant %+v", rows, want)
	}
}

func TestNExTQAParquetErrors(t *testing.T) {
	t.Parallel()
	type noA2 struct {
		Video    int64  `parquet:"video"`
		Question string `parquet:"question"`
		Answer   int64  `parquet:"answer"`
		Qid      int64  `parquet:"qid"`
		A0       string `parquet:"a0"`
		A1       string `parquet:"a1"`
		A3       string `parquet:"a3"`
	}
	row := nextqaParquetRow{4010069381, 369, 640, 480, "how", 2, 6, "CH", "a", "b", "c", "d", "e"}
	past, blank, twice := row, row, row
	past.Answer = 5
	blank.A3 = " "
	for _, tc := range []struct {
		name   string
		path   string
		row    int
		field  string
		reason error
	}{
		{"an answer past the options", writeNExTQAParquet(t, []nextqaParquetRow{past}), 1, "answer", harness.ErrAnswerRange},
		{"a blank option", writeNExTQAParquet(t, []nextqaParquetRow{blank}), 1, "a3", harness.ErrEmptyField},
		{"video and qid twice", writeNExTQAParquet(t, []nextqaParquetRow{row, twice}), 2, "qid", harness.ErrDuplicateID},
		{"a gap in the option columns", writeNExTQAParquet(t, []noA2{{1, "q", 0, 1, "a", "b", "d"}}), 0, "a2", harness.ErrMissingField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readNExTQA(context.Background(), []string{tc.path}, items.NoOptions())
			wantParquetError(t, err, tc.path, tc.row, tc.field, tc.reason)
		})
	}
}

// FuzzNExTQAParquet: arbitrary bytes after a real table give no panic,
// only *harness.ParseError values, and rows whose gold is an option.
func FuzzNExTQAParquet(f *testing.F) {
	addParquetSeeds(f, []nextqaParquetRow{{4010069381, 369, 640, 480, "how", 2, 6, "CH", "a", "b", "c", "d", "e"}})
	fuzzRead(f, "test-00000-of-00001.parquet", readNExTQA, isChoice)
}
