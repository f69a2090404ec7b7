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

// lvbParquetRow is a row of the longvideobench/LongVideoBench tables the
// datasets library loads (validation-00000-of-00001.parquet), as
// lmms-eval's longvideobench tasks read them: lvb_val.json's fields with
// the candidates in option0 .. option4, "N/A" past the last one; the test
// table has no correct_choice.
type lvbParquetRow struct {
	VideoID                       string  `parquet:"video_id"`
	Question                      string  `parquet:"question"`
	QuestionWoReferringQuery      string  `parquet:"question_wo_referring_query"`
	Option0                       string  `parquet:"option0"`
	Option1                       string  `parquet:"option1"`
	Option2                       string  `parquet:"option2"`
	Option3                       string  `parquet:"option3"`
	Option4                       string  `parquet:"option4"`
	CorrectChoice                 *int64  `parquet:"correct_choice,optional"`
	TopicCategory                 string  `parquet:"topic_category"`
	QuestionCategory              string  `parquet:"question_category"`
	Level                         string  `parquet:"level"`
	ID                            string  `parquet:"id"`
	VideoPath                     string  `parquet:"video_path"`
	SubtitlePath                  string  `parquet:"subtitle_path"`
	DurationGroup                 int64   `parquet:"duration_group"`
	StartingTimestampForSubtitles float64 `parquet:"starting_timestamp_for_subtitles"`
	Duration                      float64 `parquet:"duration"`
}

func lvbRow(id string, opts [5]string, gold *int64) lvbParquetRow {
	return lvbParquetRow{VideoID: "86CxyhFV9MI", Question: "What is worn?", QuestionWoReferringQuery: "What is worn?",
		Option0: opts[0], Option1: opts[1], Option2: opts[2], Option3: opts[3], Option4: opts[4], CorrectChoice: gold,
		TopicCategory: "NP-News-Programs", QuestionCategory: "TOS", Level: "L2-Relation", ID: id, VideoPath: "86CxyhFV9MI.mp4",
		SubtitlePath: "86CxyhFV9MI_en.json", DurationGroup: 600, Duration: 508.96}
}

func writeLVBParquet(t *testing.T, name string, rows []lvbParquetRow) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLongVideoBenchParquet(t *testing.T) {
	t.Parallel()
	two, zero := int64(2), int64(0)
	p := writeLVBParquet(t, "validation-00000-of-00001.parquet", []lvbParquetRow{
		lvbRow("86CxyhFV9MI_0", [5]string{"a hat", "a scarf", "gloves", "a coat", "boots"}, &two),
		lvbRow("86CxyhFV9MI_1", [5]string{"yes", "no", "N/A", "N/A", "N/A"}, &zero),
		lvbRow("86CxyhFV9MI_2", [5]string{"red", "blue", "green", "N/A", "N/A"}, nil),
	})
	head, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := items.Detect(All(), p, head); err != nil || f.Name != "longvideobench" {
		t.Errorf("auto: %q, %v; want longvideobench", f.Name, err)
	}
	res, err := readLongVideoBench(context.Background(), []string{p}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, res.Rows)
	type got struct {
		ID, Video, Source, Task string
		Options                 []string
		Gold                    int
	}
	want := []got{
		{"86CxyhFV9MI_0", "86CxyhFV9MI.mp4", p + ": row 1", "TOS", []string{"a hat", "a scarf", "gloves", "a coat", "boots"}, 2},
		{"86CxyhFV9MI_1", "86CxyhFV9MI.mp4", p + ": row 2", "TOS", []string{"yes", "no"}, 0},
	}
	var rows []got
	for _, r := range res.Rows {
		rows = append(rows, got{r.ID, r.Video, r.Source, r.Task, r.Options, r.GoldIndex})
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n got %+v\nwant %+v", rows, want)
	}
	if len(res.Dropped) != 1 || res.Dropped[0].ID != "86CxyhFV9MI_2" {
		t.Errorf("dropped %+v; want the question without correct_choice", res.Dropped)
	}
}

func TestLongVideoBenchParquetErrors(t *testing.T) {
	t.Parallel()
	one, nine := int64(1), int64(9)
	for _, tc := range []struct {
		name   string
		row    lvbParquetRow
		field  string
		reason error
	}{
		{"an option after N/A", lvbRow("x_0", [5]string{"a", "N/A", "c", "N/A", "N/A"}, &one), "option2", harness.ErrMissingField},
		{"one option", lvbRow("x_0", [5]string{"a", "N/A", "N/A", "N/A", "N/A"}, &one), "option0", harness.ErrTooFewOptions},
		{"an answer past the options", lvbRow("x_0", [5]string{"a", "b", "N/A", "N/A", "N/A"}, &nine), "correct_choice", harness.ErrAnswerRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeLVBParquet(t, "validation-00000-of-00001.parquet", []lvbParquetRow{tc.row})
			_, err := readLongVideoBench(context.Background(), []string{p}, items.NoOptions())
			wantParquetError(t, err, p, 1, tc.field, tc.reason)
		})
	}
}

// FuzzLongVideoBenchParquet feeds the table reader arbitrary bytes after a
// real table: no panic, every error a *harness.ParseError, every row's
// gold one of its options.
func FuzzLongVideoBenchParquet(f *testing.F) {
	one := int64(1)
	addParquetSeeds(f, []lvbParquetRow{lvbRow("x_0", [5]string{"a", "b", "N/A", "N/A", "N/A"}, &one)})
	fuzzRead(f, "validation-00000-of-00001.parquet", readLongVideoBench, isChoice)
}
