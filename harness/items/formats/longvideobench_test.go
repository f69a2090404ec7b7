package formats

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
)

// longVideoBenchFixture is lvb_val.json's layout: a list of questions with
// the fields the LongVideoBench dataloader reads (video_path, duration,
// subtitle_path, starting_timestamp_for_subtitles, candidates,
// correct_choice) and the categories of the dataset card.
const longVideoBenchFixture = `[
  {
    "video_id": "86CxyhFV9MI",
    "question": "In the video, which subtitles appear at the same time as the man with the red scarf?",
    "question_wo_referring_query": "Which subtitles appear at the same time?",
    "candidates": ["We'll go now", "Not yet", "Look there", "Run", "Wait"],
    "correct_choice": 3,
    "position": [1350, 1520],
    "topic_category": "NP-News-Programs",
    "question_category": "T3O",
    "level": "L2-Relation",
    "id": "86CxyhFV9MI_0",
    "video_path": "86CxyhFV9MI.mp4",
    "subtitle_path": "86CxyhFV9MI_en.json",
    "duration_group": 600,
    "starting_timestamp_for_subtitles": 0,
    "duration": 508.96,
    "view_count": 12345
  },
  {"video_id": "x1", "question": "What happens first?", "candidates": ["a", "b", "c", "d"], "correct_choice": 0,
   "question_category": "E3E", "id": "x1_2", "video_path": "x1.mp4", "duration_group": 15,
   "starting_timestamp_for_subtitles": 12.5, "duration": 14.2}
]
`

func TestLongVideoBenchReadsTheValidationQuestions(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "lvb_val.json", longVideoBenchFixture)
	res, err := readAnno(t, LongVideoBench(), p)
	if err != nil {
		t.Fatal(err)
	}
	d509, d14 := 508.96, 14.2
	want := []items.Row{
		{Source: p + ":2", File: p, Line: 2, ID: "86CxyhFV9MI_0", Benchmark: "LongVideoBench", Video: "86CxyhFV9MI.mp4",
			Question: "In the video, which subtitles appear at the same time as the man with the red scarf?",
			Options:  []string{"We'll go now", "Not yet", "Look there", "Run", "Wait"},
			Task:     "T3O", Duration: &d509, Gold: "3", GoldIndex: 3, Choice: -1,
			Meta: map[string]any{"topic_category": "NP-News-Programs", "level": "L2-Relation", "duration_group": json.Number("600"),
				"question_wo_referring_query": "Which subtitles appear at the same time?", "subtitle_path": "86CxyhFV9MI_en.json",
				"starting_timestamp_for_subtitles": json.Number("0")}},
		{Source: p + ":20", File: p, Line: 20, ID: "x1_2", Benchmark: "LongVideoBench", Video: "x1.mp4",
			Question: "What happens first?", Options: []string{"a", "b", "c", "d"},
			Task: "E3E", Duration: &d14, Gold: "0", GoldIndex: 0, Choice: -1,
			Meta: map[string]any{"duration_group": json.Number("15"), "starting_timestamp_for_subtitles": json.Number("12.5")}},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", res.Rows, want)
	}
}

func TestLongVideoBenchDropsTheTestSplitsHiddenAnswers(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "lvb_test_wo_gt.json", `[{"video_id": "v", "question": "q?", "candidates": ["a", "b"], "id": "v_0", "video_path": "v.mp4", "duration": 20, "starting_timestamp_for_subtitles": 0}]`)
	res, err := readAnno(t, LongVideoBench(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || len(res.Dropped) != 1 || res.Dropped[0].ID != "v_0" || res.Dropped[0].OpenEnded {
		t.Errorf("rows %+v, dropped %+v: want v_0 dropped, not open-ended", res.Rows, res.Dropped)
	}
}

func TestLongVideoBenchRefusesMalformedFiles(t *testing.T) {
	t.Parallel()
	checkBad(t, LongVideoBench(), "lvb_val.json", []badCase{
		{"correct_choice past the candidates", "[\n{\"id\": \"v_0\", \"video_path\": \"v.mp4\", \"question\": \"q\", \"candidates\": [\"a\", \"b\"],\n \"correct_choice\": 2}]", 3, "correct_choice", "answer out of range"},
		{"correct_choice as a letter", `[{"id": "v_0", "video_path": "v.mp4", "question": "q", "candidates": ["a", "b"], "correct_choice": "B"}]`, 1, "correct_choice", "want a number"},
		{"no id", `[{"video_path": "v.mp4", "question": "q", "candidates": ["a", "b"], "correct_choice": 0}]`, 1, "id", "missing field"},
		{"no video at all", `[{"id": "v_0", "question": "q", "candidates": ["a", "b"], "correct_choice": 0}]`, 1, "video_id", "missing field"},
		{"a fractional index", `[{"id": "v_0", "video_path": "v.mp4", "question": "q", "candidates": ["a", "b"], "correct_choice": 0.5}]`, 1, "correct_choice", "option index"},
	})
}

func FuzzLongVideoBench(f *testing.F) {
	fuzzAnno(f, LongVideoBench(), "lvb_val.json", longVideoBenchFixture, `[{"id": 1, "video_id": 2, "question": "", "candidates": ["a", "b"], "correct_choice": "1"}]`)
}
