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

// mlvuParquetRow is a row of sy1998/MLVU_dev as lmms-eval's mlvu_dev reads
// it: video_name, question (with its "(A) ..." options), answer (a
// letter), task_type, and the duration beside them.
type mlvuParquetRow struct {
	VideoName string  `parquet:"video_name"`
	Duration  float64 `parquet:"duration"`
	Question  string  `parquet:"question"`
	Answer    string  `parquet:"answer"`
	TaskType  string  `parquet:"task_type"`
}

func writeMLVUParquet(t testing.TB, rows []mlvuParquetRow) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test-00000-of-00001.parquet")
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMLVUParquet(t *testing.T) {
	t.Parallel()
	p := writeMLVUParquet(t, []mlvuParquetRow{
		{"movie101_66.mp4", 246, "What colour is the main character's car?\n(A) red\n(B) blue\n(C) green\n(D) black", "B", "plotQA"},
		{"needle_32.mp4", 480, "What does the hand hold?\n(A) a cup\n(B) a pen\n(C) a key\n(D) a book", "D", "needle"},
		{"movie101_67.mp4", 301, "Why does he leave?\n(A) he is late\n(B) he is angry\n(C) he is tired\n(D) he is called", "A", "plotQA"},
		{"movie101_68.mp4", 120, "Describe the plot.", "", "plotQA"},
	})
	head, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := items.Detect(All(), p, head); err != nil || f.Name != "mlvu" {
		t.Errorf("auto: %q, %v; want mlvu", f.Name, err)
	}
	res, err := readMLVU(context.Background(), []string{p}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID, Video, Question, Task, Source string
		Options                           []string
		Gold                              int
	}
	want := []got{
		{"plotQA/0", "movie101_66.mp4", "What colour is the main character's car?", "plotQA", p + ": row 1", []string{"red", "blue", "green", "black"}, 1},
		{"needle/0", "needle_32.mp4", "What does the hand hold?", "needle", p + ": row 2", []string{"a cup", "a pen", "a key", "a book"}, 3},
		{"plotQA/1", "movie101_67.mp4", "Why does he leave?", "plotQA", p + ": row 3", []string{"he is late", "he is angry", "he is tired", "he is called"}, 0},
	}
	var rows []got
	for _, r := range res.Rows {
		g, open, err := items.Gold(r.Gold, r.Options, -1)
		if err != nil || open != "" {
			t.Errorf("%s: gold %q: %v %s", r.Source, r.Gold, err, open)
		}
		rows = append(rows, got{r.ID, r.Video, r.Question, r.Task, r.Source, r.Options, g})
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n got %+v\nwant %+v", rows, want)
	}
	if len(res.Dropped) != 1 || res.Dropped[0].ID != "plotQA/2" || !res.Dropped[0].OpenEnded {
		t.Errorf("dropped %+v; want plotQA/2, open-ended", res.Dropped)
	}
}

func TestMLVUParquetErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		row    mlvuParquetRow
		field  string
		reason error
	}{
		{"no task", mlvuParquetRow{"v.mp4", 1, "q?\n(A) x\n(B) y", "A", ""}, "task_type", harness.ErrEmptyField},
		{"no answer", mlvuParquetRow{"v.mp4", 1, "q?\n(A) x\n(B) y", " ", "count"}, "answer", harness.ErrEmptyField},
		{"no video", mlvuParquetRow{"", 1, "q?\n(A) x\n(B) y", "A", "count"}, "video_name", harness.ErrEmptyField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeMLVUParquet(t, []mlvuParquetRow{tc.row})
			_, err := readMLVU(context.Background(), []string{p}, items.NoOptions())
			wantParquetError(t, err, p, 1, tc.field, tc.reason)
		})
	}
}
