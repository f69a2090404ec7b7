package formats

import (
	"context"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// mvbenchActionSequence is json/action_sequence.json as MVBench ships it:
// pretty-printed records with the clip's start and end.
const mvbenchActionSequence = `[
    {
        "video": "ZS9XR.mp4",
        "question": "What happened after the person took the food?",
        "candidates": [
            "Ate the medicine.",
            "Tidied up the blanket.",
            "Put down the cup/glass/bottle.",
            "Took the box."
        ],
        "answer": "Ate the medicine.",
        "start": 18.0,
        "end": 28.4
    },
    {
        "video": "1YNL2.mp4",
        "question": "What happened before the person sat on the bed?",
        "candidates": ["Opened the door.", "Threw the towel.", "Took the phone."],
        "answer": "Took the phone.",
        "start": 2.5,
        "end": 10
    },
    {
        "video": "QZ1V4.mp4",
        "question": "What happened after the person opened the window?",
        "candidates": ["Closed the window.", "Took the book."],
        "answer": "Ate the sandwich.",
        "start": 0,
        "end": 7.2
    }
]
`

// mvbenchActionCount is a task without clip bounds whose candidates and
// answer are counts, one as a number.
const mvbenchActionCount = `[{"video": "video_10026.mp4", "question": "How many times did the person launch objects on the table?", "candidates": ["3", "2", 4], "answer": "2"}]`

func TestMVBenchRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seq := writeFile(t, dir, "json/action_sequence.json", mvbenchActionSequence)
	count := writeFile(t, dir, "json/action_count.json", mvbenchActionCount)
	ep := writeFile(t, dir, "json/episodic_reasoning.json", `[{"video": "castle_s07e04_seg02_clip_14", "question": "Why?", "candidates": ["a", "b", "c"], "answer": "c", "start": 40.5, "end": 52.0}]`)
	res, err := readMVBench(context.Background(), []string{seq, count, ep}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	f := func(v float64) *float64 { return &v }
	end0 := 28.4 // a variable: end - start in float64, as the reader computes it
	type got struct {
		ID, Video, Task, Source string
		Options                 []string
		Gold                    int
		Start, End, Duration    *float64
		Meta                    map[string]any
	}
	want := []got{
		{"action_sequence/0", "star/Charades_v1_480/ZS9XR.mp4", "action_sequence", seq + ":2",
			[]string{"Ate the medicine.", "Tidied up the blanket.", "Put down the cup/glass/bottle.", "Took the box."}, 0, f(18), f(28.4), f(end0 - 18), nil},
		{"action_sequence/1", "star/Charades_v1_480/1YNL2.mp4", "action_sequence", seq + ":15",
			[]string{"Opened the door.", "Threw the towel.", "Took the phone."}, 2, f(2.5), f(10), f(7.5), nil},
		{"action_count/0", "perception/videos/video_10026.mp4", "action_count", count + ": record 1",
			[]string{"3", "2", "4"}, 1, nil, nil, nil, nil},
		{"episodic_reasoning/0", "tvqa/frames_fps3_hq/castle_s07e04_seg02_clip_14", "episodic_reasoning", ep + ": record 1",
			[]string{"a", "b", "c"}, 2, f(40.5), f(52), f(11.5), map[string]any{"video_frames": true}},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		g := got{r.ID, r.Video, r.Task, r.Source, r.Options, r.GoldIndex, r.Start, r.End, r.Duration, r.Meta}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, g, want[i])
		}
		if r.Benchmark != "MVBench" || r.Gold == "" || r.HasPrediction {
			t.Errorf("row %d: benchmark %q gold %q prediction %v", i, r.Benchmark, r.Gold, r.HasPrediction)
		}
	}
	wantDrops := []items.Drop{{Source: seq + ":23", ID: "action_sequence/2", Reason: `open-ended: the answer "Ate the sandwich." is no candidate's text`, OpenEnded: true}}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped %+v, want %+v", res.Dropped, wantDrops)
	}
}

func TestMVBenchErrors(t *testing.T) {
	t.Parallel()
	checkErrors(t, readMVBench, "action_antonym.json", []errCase{
		{"no candidates", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"answer\": \"x\"}\n]", 2, "candidates", harness.ErrMissingField},
		{"candidates not a list", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": \"x, y\", \"answer\": \"x\"}\n]", 2, "candidates", harness.ErrFieldType},
		{"candidate an object", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\", {}], \"answer\": \"x\"}\n]", 2, "candidates[1]", harness.ErrFieldType},
		{"one candidate", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\"], \"answer\": \"x\"}\n]", 2, "candidates", harness.ErrTooFewOptions},
		{"no video", "[\n{\"question\": \"q\", \"candidates\": [\"x\", \"y\"], \"answer\": \"x\"}\n]", 2, "video", harness.ErrMissingField},
		{"empty question", "[\n{\"video\": \"a.mp4\", \"question\": \" \", \"candidates\": [\"x\", \"y\"], \"answer\": \"x\"}\n]", 2, "question", harness.ErrEmptyField},
		{"end before start", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\", \"y\"], \"answer\": \"x\", \"start\": 9, \"end\": 3}\n]", 2, "end", harness.ErrBadValue},
		{"start not a number", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\", \"y\"], \"answer\": \"x\", \"start\": \"soon\"}\n]", 2, "start", harness.ErrBadValue},
		{"not an array", `{"video": "a.mp4"}`, 1, "", harness.ErrSyntax},
		{"broken second record", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\", \"y\"], \"answer\": \"x\"},\n{\"video\": }\n]", 3, "", harness.ErrSyntax},
	})
	t.Run("same task twice", func(t *testing.T) {
		dir := t.TempDir()
		a := writeFile(t, dir, "a/action_count.json", mvbenchActionCount)
		b := writeFile(t, dir, "b/action_count.json", mvbenchActionCount)
		_, err := readMVBench(context.Background(), []string{a, b}, items.NoOptions())
		wantParseError(t, err, b, 1, "", harness.ErrDuplicateID)
	})
}

func TestMVBenchDetect(t *testing.T) {
	t.Parallel()
	checkDetect(t, detectMVBench, []detectCase{
		{"MVBench/json/action_sequence.json", mvbenchActionSequence, true},
		{"action_count.json", mvbenchActionCount, true},
		// MLVU's records have the same shape under other names.
		{"json/1_plotQA.json", `[{"video": "movie101_66.mp4", "duration": 246, "question": "q", "candidates": ["a", "b"], "answer": "a", "question_type": "plotQA"}]`, false},
		{"action_count.jsonl", mvbenchActionCount, false},
		{"action_count.json", `{"video": "a"}`, false},
	})
}

func FuzzMVBench(f *testing.F) {
	f.Add([]byte(mvbenchActionSequence))
	f.Add([]byte(mvbenchActionCount))
	f.Add([]byte(`[{"video": "a", "question": "q", "candidates": ["x", "x"], "answer": "x", "start": 1e400}]`))
	fuzzRead(f, "action_sequence.json", readMVBench, isChoice)
}

// TestBenchmarkFilesReadTwice checks that reading the same files twice
// gives the same rows and drops, in the same order: EgoSchema's answers
// and the records' meta are maps, whose order must not leak out.
func TestBenchmarkFilesReadTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		read  func(context.Context, []string, items.Options) (*items.Result, error)
		paths []string
	}{
		{readMVBench, []string{writeFile(t, dir, "action_sequence.json", mvbenchActionSequence)}},
		{readEgoSchema, []string{writeFile(t, dir, "questions.json", egoQuestions), writeFile(t, dir, "subset_answers.json", egoAnswers)}},
		{readNExTQA, []string{writeFile(t, dir, "val.csv", nextqaHeader+"4010069381,369,640,480,how,0,6,CH,a,b,c,d,e\n")}},
		{readVideoMME, []string{writeFile(t, dir, "videomme.json", videommeFlatJSON), writeFile(t, dir, "results.json", videommeResults)}},
	} {
		a, err := tc.read(context.Background(), tc.paths, items.NoOptions())
		if err != nil {
			t.Fatal(err)
		}
		b, err := tc.read(context.Background(), tc.paths, items.NoOptions())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) || len(a.Rows) == 0 {
			t.Errorf("%v: two reads differ, or read nothing", tc.paths)
		}
	}
}
