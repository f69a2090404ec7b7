package formats

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// tvbenchObjectCount is json/object_count.json as FunAILab/TVBench ships
// it: pretty-printed {video, question, candidates, answer} records, the
// answer a candidate's text, no clip bounds.
const tvbenchObjectCount = `[
    {
        "video": "video_10012.mp4",
        "question": "How many moving metal objects are there when the video ends?",
        "candidates": ["0", "1", "2", "3"],
        "answer": "2"
    },
    {
        "video": "video_10047.mp4",
        "question": "How many cubes enter the scene?",
        "candidates": ["1", "3", "4"],
        "answer": "5"
    }
]
`

// tvbenchActionLocalization is json/action_localization.json: the clip
// asked about is start..end of its Charades video.
const tvbenchActionLocalization = `[{"video": "3MSZA.mp4", "question": "During which part of the video does the action 'person opening a door' occur?", "candidates": ["At the beginning of the video.", "In the middle of the video.", "At the end of the video.", "Throughout the entire video."], "answer": "At the end of the video.", "start": 4.5, "end": 31.0}]`

func TestTVBenchRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	count := writeFile(t, dir, "TVBench/json/object_count.json", tvbenchObjectCount)
	loc := writeFile(t, dir, "TVBench/json/action_localization.json", tvbenchActionLocalization)
	res, err := readTVBench(context.Background(), []string{count, loc}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	f := func(v float64) *float64 { return &v }
	type got struct {
		ID, Video, Task, Source string
		Gold                    int
		Start, End, Duration    *float64
	}
	want := []got{
		{"object_count/0", "object_count/video_10012.mp4", "object_count", count + ":2", 2, nil, nil, nil},
		{"action_localization/0", "action_localization/3MSZA.mp4", "action_localization", loc + ":1", 2, f(4.5), f(31), f(26.5)},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		if g := (got{r.ID, r.Video, r.Task, r.Source, r.GoldIndex, r.Start, r.End, r.Duration}); !reflect.DeepEqual(g, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, g, want[i])
		}
		if r.Benchmark != "TVBench" || r.HasPrediction || r.Meta != nil {
			t.Errorf("row %d: benchmark %q, prediction %v, meta %v", i, r.Benchmark, r.HasPrediction, r.Meta)
		}
	}
	// A digit answer is a candidate's text: "5" among "1", "3", "4" is
	// none of them, not the sixth option.
	wantDrops := []items.Drop{{Source: count + ":8", ID: "object_count/1", Reason: `open-ended: the answer "5" is no candidate's text`, OpenEnded: true}}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped %+v, want %+v", res.Dropped, wantDrops)
	}
}

func TestTVBenchErrors(t *testing.T) {
	t.Parallel()
	checkErrors(t, readTVBench, "egocentric_sequence.json", []errCase{
		{"no candidates", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"answer\": \"x\"}\n]", 2, "candidates", harness.ErrMissingField},
		{"one candidate", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\"], \"answer\": \"x\"}\n]", 2, "candidates", harness.ErrTooFewOptions},
		{"no answer", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\", \"y\"]}\n]", 2, "answer", harness.ErrMissingField},
		{"end before start", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\", \"y\"], \"answer\": \"x\", \"start\": 9, \"end\": 3}\n]", 2, "end", harness.ErrBadValue},
		{"not a list", `{"video": "a.mp4"}`, 1, "", harness.ErrSyntax},
		{"broken second record", "[\n{\"video\": \"a.mp4\", \"question\": \"q\", \"candidates\": [\"x\", \"y\"], \"answer\": \"x\"},\n{\"video\": }\n]", 3, "", harness.ErrSyntax},
	})
	t.Run("same task twice", func(t *testing.T) {
		dir := t.TempDir()
		a := writeFile(t, dir, "a/object_count.json", tvbenchObjectCount)
		b := writeFile(t, dir, "b/object_count.json", tvbenchObjectCount)
		_, err := readTVBench(context.Background(), []string{a, b}, items.NoOptions())
		wantParseError(t, err, b, 2, "", harness.ErrDuplicateID)
	})
}

// TestTVBenchDetect: auto takes TVBench's own task names, and a task name
// both benchmarks use where the layout around the file is TVBench's: a
// TVBench folder on its path (the nearest benchmark name wins), TVBench's
// own task files beside it, or video/<task>/ beside json/ (infer.ipynb's
// data_list); MVBench's layout, or none, leaves it MVBench's. The trees
// are written by the test under neutral folder names.
func TestTVBenchDetect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// files are the tree written, the first being the file given.
		files []string
		head  string
		want  string // the format auto picks, or words of its error
	}{
		{"TVBench's own name", []string{"TVBench/json/object_count.json"}, tvbenchObjectCount, "tvbench"},
		{"TVBench's own name anywhere", []string{"json/egocentric_sequence.json"}, tvbenchObjectCount, "tvbench"},
		{"a shared name under MVBench", []string{"MVBench/json/action_count.json"}, tvbenchObjectCount, "mvbench"},
		{"a shared name under TVBench", []string{"TVBench/json/action_localization.json"}, tvbenchActionLocalization, "tvbench"},
		{"the Hugging Face cache's folder", []string{"hub/datasets--FunAILab--TVBench/snapshots/3f2a/json/action_count.json"}, tvbenchObjectCount, "tvbench"},
		{"the nearest name wins", []string{"mvbench-runs/TVBench/json/action_count.json"}, tvbenchObjectCount, "tvbench"},
		{"beside TVBench's own task files", []string{"data/json/action_count.json", "data/json/object_count.json"}, tvbenchObjectCount, "tvbench"},
		{"beside MVBench's own task files", []string{"data/json/action_count.json", "data/json/fine_grained_pose.json"}, tvbenchObjectCount, "mvbench"},
		{"beside both kinds", []string{"data/json/action_count.json", "data/json/fine_grained_pose.json", "data/json/object_count.json"}, tvbenchObjectCount, "mvbench"},
		{"TVBench's video/<task>/", []string{"data/json/action_sequence.json", "data/video/action_sequence/x.mp4"}, tvbenchActionLocalization, "tvbench"},
		{"MVBench's video/star/", []string{"data/json/action_sequence.json", "data/video/star/Charades_v1_480/x.mp4"}, tvbenchActionLocalization, "mvbench"},
		{"no sign at all", []string{"data/json/action_count.json"}, tvbenchObjectCount, "mvbench"},
		{"not .json", []string{"data/object_count.jsonl"}, tvbenchObjectCount, "no known layout"},
		{"not an array of records", []string{"data/object_count.json"}, `{"video": "a"}`, "no known layout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := neutralDir(t)
			for _, f := range tc.files {
				writeFile(t, root, f, tc.head)
			}
			path := filepath.Join(root, tc.files[0])
			f, err := items.Detect(All(), path, []byte(tc.head))
			switch {
			case err != nil && !strings.Contains(err.Error(), tc.want):
				t.Errorf("auto: %v; want %q", err, tc.want)
			case err == nil && f.Name != tc.want:
				t.Errorf("auto picks %s; want %q", f.Name, tc.want)
			}
		})
	}
}

// neutralDir is a temporary folder whose path names neither benchmark:
// t.TempDir() is named after the test, which names TVBench.
func neutralDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "layout")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func FuzzTVBench(f *testing.F) {
	f.Add([]byte(tvbenchObjectCount))
	f.Add([]byte(tvbenchActionLocalization))
	f.Add([]byte(`[{"video": "a", "question": "q", "candidates": ["x", "x"], "answer": "x", "end": -1e400}]`))
	fuzzRead(f, "action_localization.json", readTVBench, func(r items.Row) bool { return isChoice(r) && r.Benchmark == "TVBench" })
}
