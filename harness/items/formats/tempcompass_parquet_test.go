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

// tempCompassParquetRow is a row of lmms-eval/TempCompass's tables as
// lmms-eval's tempcompass tasks read it: video_id, question (the options
// inside), answer, dim.
type tempCompassParquetRow struct {
	VideoID  string `parquet:"video_id"`
	Question string `parquet:"question"`
	Answer   string `parquet:"answer"`
	Dim      string `parquet:"dim"`
}

func writeTempCompassParquet(t testing.TB, config string, rows []tempCompassParquetRow) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), config, "test-00000-of-00001.parquet")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTempCompassParquet(t *testing.T) {
	t.Parallel()
	mc := writeTempCompassParquet(t, "multi-choice", []tempCompassParquetRow{
		{"1034419625", "What is the man doing in the video?\nA. dunking a basketball\nB. dribbling a basketball\nC. passing a basketball", "A. dunking a basketball", "action"},
		{"1034419625", "Which activity is the man engaged in?\nA. passing a basketball\nB. dribbling a basketball\nC. dunking a basketball", "C. dunking a basketball", "action"},
		{"1034419625_reverse", "In which direction is the man moving?\nA. away from the camera\nB. towards the camera", "B. towards the camera", "direction"},
	})
	yn := writeTempCompassParquet(t, "yes_no", []tempCompassParquetRow{
		{"1034419625", "Is the man dunking a basketball?", "yes", "action"},
	})
	for _, p := range []string{mc, yn} {
		head, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := items.Detect(All(), p, head); err != nil || f.Name != "tempcompass" {
			t.Errorf("%s: auto: %q, %v; want tempcompass", p, f.Name, err)
		}
	}
	res, err := readTempCompass(context.Background(), []string{mc, yn}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, res.Rows)
	type got struct {
		ID, Video, Task, Source string
		Options                 []string
		Gold                    int
	}
	want := []got{
		{"multi-choice/1034419625/action/0", "1034419625.mp4", "action", mc + ": row 1", []string{"dunking a basketball", "dribbling a basketball", "passing a basketball"}, 0},
		{"multi-choice/1034419625/action/1", "1034419625.mp4", "action", mc + ": row 2", []string{"passing a basketball", "dribbling a basketball", "dunking a basketball"}, 2},
		{"multi-choice/1034419625_reverse/direction/0", "1034419625_reverse.mp4", "direction", mc + ": row 3", []string{"away from the camera", "towards the camera"}, 1},
		{"yes_no/1034419625/action/0", "1034419625.mp4", "action", yn + ": row 1", []string{"yes", "no"}, 0},
	}
	var rows []got
	for _, r := range res.Rows {
		rows = append(rows, got{r.ID, r.Video, r.Task, r.Source, r.Options, r.GoldIndex})
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n got %+v\nwant %+v", rows, want)
	}
}

func TestTempCompassParquetErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		row    tempCompassParquetRow
		field  string
		reason error
	}{
		{"no dimension", tempCompassParquetRow{"1", "q?\nA. x\nB. y", "A. x", " "}, "dim", harness.ErrEmptyField},
		{"no video", tempCompassParquetRow{"", "q?\nA. x\nB. y", "A. x", "speed"}, "video_id", harness.ErrEmptyField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTempCompassParquet(t, "multi-choice", []tempCompassParquetRow{tc.row})
			_, err := readTempCompass(context.Background(), []string{p}, items.NoOptions())
			wantParquetError(t, err, p, 1, tc.field, tc.reason)
		})
	}
}
