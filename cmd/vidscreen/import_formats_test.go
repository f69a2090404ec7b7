package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/release/export"
)

// formatFixtures are a few records of each benchmark's own annotation
// files, in each layout's shape, under the names the benchmarks give them.
var formatFixtures = []struct {
	format string
	files  map[string]string // name -> body, given to import in sorted order
	items  int
}{
	{"videomme", map[string]string{"videomme.json": `[{"video_id": "001", "duration": "short", "domain": "Knowledge", "sub_category": "Humanity", "url": "https://www.youtube.com/watch?v=fFjv93ACGo8", "videoID": "fFjv93ACGo8", "question_id": "001-1", "task_type": "Counting Problem", "question": "How many?", "options": ["A. one", "B. two", "C. three", "D. four"], "answer": "B"},
{"video_id": "001", "duration": "short", "domain": "Knowledge", "sub_category": "Humanity", "url": "https://www.youtube.com/watch?v=fFjv93ACGo8", "videoID": "fFjv93ACGo8", "question_id": "001-2", "task_type": "Temporal Reasoning", "question": "Which order?", "options": ["A. (b)(a)(c).", "B. (a)(b)(c).", "C. (c)(a)(b).", "D. none"], "answer": "A"}]`}, 2},
	{"nextqa", map[string]string{"val.csv": "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4\n4010069381,369,640,480,why did the baby cry,2,6,CW,hungry,tired,fell,wet,cold\n4010069381,369,640,480,what did the man do after,0,7,TN,pick up,leave,sit,sing,run\n"}, 2},
	{"egoschema", map[string]string{"questions.json": `[{"q_uid": "00000000-0000-4000-8000-000000000001", "google_drive_id": "1a", "question": "What is c doing?", "option 0": "cooking", "option 1": "reading", "option 2": "cleaning", "option 3": "typing", "option 4": "sleeping"}, {"q_uid": "00000000-0000-4000-8000-000000000002", "google_drive_id": "1b", "question": "Why?", "option 0": "a", "option 1": "b", "option 2": "c", "option 3": "d", "option 4": "e"}]`,
		"subset_answers.json": `{"00000000-0000-4000-8000-000000000001": 2}`}, 1},
	{"mvbench", map[string]string{"action_sequence.json": "[\n{\"video\": \"3M5KP.mp4\", \"question\": \"What did the person do first?\", \"candidates\": [\"Sat on the bed.\", \"Took the towel.\", \"Opened the door.\"], \"answer\": \"Took the towel.\", \"start\": 4.5, \"end\": 12.0}\n]"}, 1},
	{"perceptiontest", map[string]string{"mc_question_valid.json": `{"video_1": {"metadata": {"video_id": "video_1", "num_frames": 900, "frame_rate": 30.0}, "mc_question": [{"id": 0, "question": "What is in the box?", "options": ["a cup", "a pen", "a key"], "answer_id": 1, "area": "memory", "reasoning": "descriptive", "tag": ["object"]}]}}`}, 1},
	{"tempcompass", map[string]string{"multi-choice.json": "{\"1025\": {\"action\": [{\"question\": \"What is the man doing?\\nA. running\\nB. walking\\nC. sitting\", \"answer\": \"B. walking\"}]}}"}, 1},
	{"mlvu", map[string]string{"1_plotQA.json": `[{"video": "movie101_66.mp4", "duration": 246, "question": "What colour is the car?", "candidates": ["red", "blue", "green", "black"], "answer": "blue", "question_type": "plotQA"}]`}, 1},
	{"longvideobench", map[string]string{"lvb_val.json": `[{"video_id": "86CxyhFV9MI", "question": "What is worn?", "question_wo_referring_query": "What is worn?", "candidates": ["a hat", "a scarf", "gloves"], "correct_choice": 2, "position": [1], "topic_category": "NP-News-Programs", "question_category": "TOS", "level": "L2-Relation", "id": "86CxyhFV9MI_0", "video_path": "86CxyhFV9MI.mp4", "subtitle_path": "86CxyhFV9MI_en.json", "duration_group": 600, "starting_timestamp_for_subtitles": 0, "duration": 527.0}]`}, 1},
	{"star", map[string]string{"STAR_val.json": `[{"question_id": "Interaction_T1_13", "question": "Which object was tidied up by the person?", "video_id": "6H78U", "start": 11.1, "end": 19.6, "answer": "The closet/cabinet.", "question_program": [], "choices": [{"choice_id": 0, "choice": "The blanket."}, {"choice_id": 1, "choice": "The closet/cabinet."}, {"choice_id": 2, "choice": "The table."}, {"choice_id": 3, "choice": "The towel."}], "situations": {}}]`}, 1},
	{"nextgqa", map[string]string{"val.csv": "video_id,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4\n4882821564,1,1,1,why did the girl run,to catch the ball,0,CW,to hide,to catch the ball,to eat,to sleep,to sing\n"}, 1},
	// TVBench's own task names (MVBench has none of them), so auto takes
	// them: TVBench's other eight share MVBench's names.
	{"tvbench", map[string]string{
		"object_count.json":        "[\n{\"video\": \"video_10012.mp4\", \"question\": \"How many moving metal objects are there when the video ends?\", \"candidates\": [\"0\", \"1\", \"2\"], \"answer\": \"2\"}\n]",
		"egocentric_sequence.json": `[{"video": "ego_0041.mp4", "question": "What did I do after I opened the fridge?", "candidates": ["Took out milk.", "Closed the door.", "Washed a cup."], "answer": "Took out milk."}]`}, 2},
}

// TestImportEachBenchmarkFormat imports each benchmark's fixture through
// the command, named and by auto: the items file must be read back by the
// audit's item reader with the expected count, and two imports of the same
// files must give byte-identical files.
func TestImportEachBenchmarkFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range formatFixtures {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			var files []string
			for _, name := range slices.Sorted(maps.Keys(tc.files)) {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(tc.files[name]), 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, p)
			}
			var outs [][]byte
			for i, format := range []string{tc.format, tc.format, "auto"} {
				out := filepath.Join(dir, format+string(rune('a'+i))+".jsonl")
				args := append(append([]string{"import", format}, files...), "--out", out)
				if code, _, stderr := runCmd(args...); code != 0 {
					t.Fatalf("import %s: exit %d: %s", format, code, stderr)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				got, err := harness.NewJSONLReader(bytes.NewReader(b), out).ReadAll()
				if err != nil {
					t.Fatalf("import %s: the items do not read back: %v", format, err)
				}
				if len(got) != tc.items {
					t.Errorf("import %s: %d items, want %d", format, len(got), tc.items)
				}
				outs = append(outs, b)
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("two imports differ:\n%s\n%s", outs[0], outs[1])
			}
			if !bytes.Equal(outs[0], outs[2]) {
				t.Errorf("import auto differs from import %s:\n%s\n%s", tc.format, outs[2], outs[0])
			}
		})
	}
}

// TestImportExportKeepsTaskGroupAndVideoPath: a release exported with
// select's --export-vlmevalkit and --export-lmms-eval imports back with
// each item's task, capability group and video_path as released: the
// table's task_type and category columns, the dataset's task, group and
// video_path fields.
func TestImportExportKeepsTaskGroupAndVideoPath(t *testing.T) {
	t.Parallel()
	name := "vidscreen-0123456789abcdef"
	dur := 31.5
	released := []*harness.Item{
		{ID: "nextqa/val/4010069381_3", Benchmark: name, Video: "4010069381", VideoPath: "nextqa/4010069381.mp4",
			Question: "why did the boy pick up the ball?", Options: []string{"to throw it", "it's his", "to hide it"},
			Answer: 1, Task: "CW", Group: "reasoning", Duration: &dur},
		{ID: "egoschema/0074f737", Benchmark: name, Video: "0074f737-11cb-497d-8d07-77c3a8127391", VideoPath: "egoschema/0074f737-11cb-497d-8d07-77c3a8127391.mp4",
			Question: "What is C doing?", Options: []string{"cooking", "cleaning", "reading"}, Answer: 2, Group: "perception"},
		{ID: "star/Interaction_T1_13", Benchmark: name, Video: "6H78U", Question: "Which object was tidied up?",
			Options: []string{"The closet.", "The blanket."}, Answer: 0, Task: "Interaction"},
	}
	r := &release.Release{Name: name, Lockfile: &release.Lockfile{Release: name, Seed: 7}, Items: released}
	dir := t.TempDir()
	tsv, lm := filepath.Join(dir, name+".tsv"), filepath.Join(dir, "lmms")
	if err := export.VLMEvalKit(context.Background(), r, tsv); err != nil {
		t.Fatal(err)
	}
	if err := export.LMMSEval(context.Background(), r, lm); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ format, file string }{
		{"vlmevalkit", tsv},
		{"lmms-eval-task", filepath.Join(lm, export.DatasetFile)},
	} {
		out := filepath.Join(dir, tc.format+".jsonl")
		if code, _, stderr := runCmd("import", tc.format, tc.file, "--out", out); code != 0 {
			t.Fatalf("import %s: exit %d: %s", tc.format, code, stderr)
		}
		got, err := harness.ReadFiles(context.Background(), []string{out}, harness.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(released) {
			t.Fatalf("import %s: %d items, want %d", tc.format, len(got), len(released))
		}
		for i, w := range released {
			g := got[i]
			if g.ID != w.ID || g.Task != w.Task || g.Group != w.Group || g.VideoPath != w.VideoPath {
				t.Errorf("import %s: item %s: task %q, group %q, video_path %q; want %q, %q, %q",
					tc.format, g.ID, g.Task, g.Group, g.VideoPath, w.Task, w.Group, w.VideoPath)
			}
		}
	}
}
