package formats

import (
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
)

// perceptionTestFixture is mc_question_valid.json's layout: an object keyed
// by video id, each video with its metadata and its questions, written as
// the Perception Test's README documents the fields. The second video also
// has an object track, as all_valid.json's entries do, which is skipped.
const perceptionTestFixture = `{
  "video_8241": {
    "metadata": {
      "split": "valid",
      "video_id": "video_8241",
      "frame_rate": 30,
      "num_frames": 915,
      "resolution": [1080, 1920]
    },
    "mc_question": [
      {
        "id": 0,
        "question": "What is the person going to do with the cup?",
        "options": ["put it down", "drink from it", "throw it"],
        "answer_id": 1,
        "area": "Physics",
        "reasoning": "Predictive",
        "tag": ["Action", "Task completion"]
      },
      {
        "id": 1,
        "question": "How many objects were put in the bowl?",
        "options": ["2", "3", "4"],
        "answer_id": 0,
        "area": "Memory",
        "reasoning": "Descriptive",
        "tag": ["Counting"]
      }
    ]
  },
  "video_77": {
    "metadata": {"split": "valid", "video_id": "video_77", "frame_rate": 25.0, "num_frames": 500},
    "object_tracks": [{"id": 0, "label": "cup", "bounding_boxes": [[1, 2, 3, 4]], "frame_ids": [0], "timestamps": [0]}],
    "mc_question": [
      {"id": 3, "question": "Is the camera moving?", "options": ["yes", "no", "I don't know"], "answer_id": 2,
       "area": "Semantics", "reasoning": "Descriptive", "tag": []}
    ]
  },
  "video_5": {"metadata": {"video_id": "video_5", "frame_rate": 30, "num_frames": 30}, "object_tracks": []}
}
`

func TestPerceptionTestReadsTheQuestionsOfEachVideo(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "mc_question_valid.json", perceptionTestFixture)
	res, err := readAnno(t, PerceptionTest(), p)
	if err != nil {
		t.Fatal(err)
	}
	d30, d20 := 30.5, 20.0
	want := []items.Row{
		{Source: p + ":11", File: p, Line: 11, ID: "video_8241/0", Benchmark: "PerceptionTest", Video: "video_8241.mp4",
			Question: "What is the person going to do with the cup?", Options: []string{"put it down", "drink from it", "throw it"},
			Task: "Physics", Duration: &d30, Gold: "1", GoldIndex: 1, Choice: -1,
			Meta: map[string]any{"reasoning": "Predictive", "tag": []any{"Action", "Task completion"}}},
		{Source: p + ":20", File: p, Line: 20, ID: "video_8241/1", Benchmark: "PerceptionTest", Video: "video_8241.mp4",
			Question: "How many objects were put in the bowl?", Options: []string{"2", "3", "4"},
			Task: "Memory", Duration: &d30, Gold: "0", GoldIndex: 0, Choice: -1,
			Meta: map[string]any{"reasoning": "Descriptive", "tag": []any{"Counting"}}},
		{Source: p + ":35", File: p, Line: 35, ID: "video_77/3", Benchmark: "PerceptionTest", Video: "video_77.mp4",
			Question: "Is the camera moving?", Options: []string{"yes", "no", "I don't know"},
			Task: "Semantics", Duration: &d20, Gold: "2", GoldIndex: 2, Choice: -1,
			Meta: map[string]any{"reasoning": "Descriptive", "tag": []any{}}},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", res.Rows, want)
	}
	if len(res.Dropped) != 0 {
		t.Errorf("dropped %+v", res.Dropped)
	}
}

func TestPerceptionTestDropsTheTestSplitsHiddenAnswers(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "mc_question_test.json", `{"video_1": {"metadata": {"video_id": "video_1", "frame_rate": 30, "num_frames": 60},
  "mc_question": [{"id": 0, "question": "q?", "options": ["a", "b", "c"], "area": "Memory", "reasoning": "Descriptive", "tag": []}]}}`)
	res, err := readAnno(t, PerceptionTest(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || len(res.Dropped) != 1 || res.Dropped[0].ID != "video_1/0" || res.Dropped[0].Source != p+":2" || res.Dropped[0].OpenEnded {
		t.Errorf("rows %+v, dropped %+v: want one drop of video_1/0 at line 2", res.Rows, res.Dropped)
	}
}

func TestPerceptionTestRefusesMalformedFiles(t *testing.T) {
	t.Parallel()
	checkBad(t, PerceptionTest(), "mc_question_valid.json", []badCase{
		{"a list instead of an object of videos", `[{"video_id": "video_1"}]`, 1, "", "want an object of videos"},
		{"a video that is not an object", "{\n \"video_1\": [1]\n}", 2, "", `video "video_1" as an object`},
		{"an answer_id past the options", `{"video_1": {"metadata": {"video_id": "video_1"},
 "mc_question": [
  {"id": 0, "question": "q?", "options": ["a", "b", "c"],
   "answer_id": 3}]}}`, 4, "answer_id", "answer out of range"},
		{"a negative answer_id", `{"video_1": {"mc_question": [{"id": 0, "question": "q?", "options": ["a", "b", "c"], "answer_id": -1}]}}`, 1, "answer_id", "want an option index from 0"},
		{"options that are not a list", "{\"video_1\": {\"mc_question\": [{\"id\": 0, \"question\": \"q?\",\n\"options\": \"a, b\", \"answer_id\": 0}]}}", 2, "options", "want a list of strings"},
		{"a question without its question", `{"video_1": {"mc_question": [{"id": 0, "options": ["a", "b"], "answer_id": 0}]}}`, 1, "question", "missing field"},
		{"a question without an id", `{"video_1": {"mc_question": [{"question": "q?", "options": ["a", "b"], "answer_id": 0}]}}`, 1, "id", "missing field"},
		{"one option", `{"video_1": {"mc_question": [{"id": 0, "question": "q?", "options": ["a"], "answer_id": 0}]}}`, 1, "options", "fewer than two options"},
		{"a file cut short", "{\"video_1\": {\"mc_question\": [\n{\"id\": 0,\n\n", 2, "", "cut short"},
		{"an empty video id", `{"": {"mc_question": [{"id": 0, "question": "q?", "options": ["a", "b"], "answer_id": 0}]}}`, 1, "video_id", "empty value"},
	})
}

func TestPerceptionTestDetectsItsFilesOnly(t *testing.T) {
	t.Parallel()
	checkDetect(t, PerceptionTest().Detect, []detectCase{
		{"mc_question_valid.json", perceptionTestFixture, true},
		{"lvb_val.json", `[{"video_id": "86CxyhFV9MI", "question": "q", "candidates": ["a"], "correct_choice": 0}]`, false},
		{"multi-choice.json", `{"1034419625": {"action": [{"question": "q", "answer": "A. x"}]}}`, false},
	})
}

func FuzzPerceptionTest(f *testing.F) {
	fuzzAnno(f, PerceptionTest(), "mc_question_valid.json", perceptionTestFixture, `{"v": {"mc_question": [{"id": 1}]}}`, `{}`)
}
