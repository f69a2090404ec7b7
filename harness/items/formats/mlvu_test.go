package formats

import (
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
)

// mlvuPlotQA is json/1_plotQA.json's layout: a list of questions with the
// answer written as the text of one candidate.
const mlvuPlotQA = `[
    {
        "video": "movie101_66.mp4",
        "duration": 246,
        "question": "What color is the main male character in the video?",
        "candidates": ["Yellow", "Red", "Green", "Blue"],
        "answer": "Yellow",
        "question_type": "plotQA"
    },
    {
        "video": "movie101_67.mp4",
        "duration": 512.5,
        "question": "Where does the dog hide?",
        "candidates": ["Under the bed", "In the car", "Behind the door", "On the roof"],
        "answer": "behind the door.",
        "question_type": "plotQA"
    },
    {
        "video": "movie101_68.mp4",
        "duration": 300,
        "question": "Who opens the letter?",
        "candidates": ["The mother", "The son", "The father", "The mother"],
        "answer": "The mother",
        "question_type": "plotQA"
    },
    {
        "video": "movie101_69.mp4",
        "duration": 300,
        "question": "What falls first?",
        "candidates": ["A cup", "A plate", "A book", "A vase"],
        "answer": "A spoon",
        "question_type": "plotQA"
    }
]
`

// mlvuSummary is json/9_summary.json's layout: a generation task, with no
// candidates.
const mlvuSummary = `[
    {"video": "subPlot_new_all_126.mp4", "duration": 600, "question": "Please summarize this video.",
     "answer": "A man goes fishing and ...", "question_type": "summary"}
]
`

func TestMLVUReadsMultipleChoiceTasksAndDropsTheOthers(t *testing.T) {
	t.Parallel()
	plot := writeFile(t, t.TempDir(), "1_plotQA.json", mlvuPlotQA)
	sum := writeFile(t, t.TempDir(), "9_summary.json", mlvuSummary)
	res, err := readAnno(t, MLVU(), plot, sum)
	if err != nil {
		t.Fatal(err)
	}
	d246, d512 := 246.0, 512.5
	want := []items.Row{
		{Source: plot + ":2", File: plot, Line: 2, ID: "plotQA/0", Benchmark: "MLVU", Video: "1_plotQA/movie101_66.mp4",
			Question: "What color is the main male character in the video?", Options: []string{"Yellow", "Red", "Green", "Blue"},
			Task: "plotQA", Duration: &d246, Gold: "Yellow", GoldIndex: 0, Choice: -1},
		{Source: plot + ":10", File: plot, Line: 10, ID: "plotQA/1", Benchmark: "MLVU", Video: "1_plotQA/movie101_67.mp4",
			Question: "Where does the dog hide?", Options: []string{"Under the bed", "In the car", "Behind the door", "On the roof"},
			Task: "plotQA", Duration: &d512, Gold: "behind the door.", GoldIndex: 2, Choice: -1},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", res.Rows, want)
	}
	wantDrops := []items.Drop{
		{Source: plot + ":18", ID: "plotQA/2", Reason: `open-ended: the answer "The mother" is the text of options A and D`, OpenEnded: true},
		{Source: plot + ":26", ID: "plotQA/3", Reason: `open-ended: the answer "A spoon" is the text of no option`, OpenEnded: true},
		{Source: sum + ":2", ID: "summary/0", Reason: "open-ended: summary is a generation task (no candidates)", OpenEnded: true},
	}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped:\n got %+v\nwant %+v", res.Dropped, wantDrops)
	}
}

func TestMLVUKeepsTheVideoAsWrittenOutsideATaskFile(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "mlvu_dev_subset.json", `[{"video": "a.mp4", "duration": 10, "question": "q?", "candidates": ["x", "y"], "answer": "y", "question_type": "count", "question_id": "CO_7"}]`)
	res, err := readAnno(t, MLVU(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Video != "a.mp4" || res.Rows[0].ID != "CO_7" || res.Rows[0].GoldIndex != 1 {
		t.Errorf("rows %+v: want one row CO_7, video a.mp4, gold 1", res.Rows)
	}
}

func TestMLVURefusesMalformedFiles(t *testing.T) {
	t.Parallel()
	checkBad(t, MLVU(), "2_needle.json", []badCase{
		{"an object instead of a list", `{"video": "a.mp4"}`, 1, "", "want a list of questions"},
		{"a question that is not an object", "[\n  \"What?\"\n]", 2, "", "want a question as an object"},
		{"no question_type", "[\n {\"video\": \"a.mp4\", \"duration\": 3, \"question\": \"q\", \"candidates\": [\"a\", \"b\"], \"answer\": \"a\"}\n]", 2, "question_type", "missing field"},
		{"candidates as a string", "[{\"video\": \"a.mp4\", \"duration\": 3, \"question\": \"q\",\n  \"candidates\": \"a b\", \"answer\": \"a\", \"question_type\": \"findNeedle\"}]", 2, "candidates", "want a list of strings"},
		{"a duration that is not a number", "[{\"video\": \"a.mp4\",\n\"duration\": \"long\", \"question\": \"q\", \"candidates\": [\"a\", \"b\"], \"answer\": \"a\", \"question_type\": \"findNeedle\"}]", 2, "duration", "want a number"},
		{"no video", `[{"duration": 3, "question": "q", "candidates": ["a", "b"], "answer": "a", "question_type": "findNeedle"}]`, 1, "video", "missing field"},
		{"trailing garbage", "[]\n]", 2, "", "not a JSON object"},
	})
}

func TestMLVUDetectsItsFilesOnly(t *testing.T) {
	t.Parallel()
	checkDetect(t, MLVU().Detect, []detectCase{
		{"1_plotQA.json", mlvuPlotQA, true},
		{"9_summary.json", mlvuSummary, true},
		{"lvb_val.json", longVideoBenchFixture, false},
		{"STAR_val.json", starFixture, false},
	})
}

func FuzzMLVU(f *testing.F) {
	fuzzAnno(f, MLVU(), "1_plotQA.json", mlvuPlotQA, mlvuSummary, `[{"candidates": [1, 2], "answer": 2}]`)
}
