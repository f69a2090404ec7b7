package formats

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// The TSVs VLMEvalKit's video datasets generate, column for column as
// their prepare_dataset writes them with DataFrame.to_csv(sep='\t',
// index=False): a None cell empty, a bool True/False, a list its Python
// repr (double-quoted where an element holds an apostrophe, and then the
// whole cell quoted by the csv writer, its quotes doubled).
//
//   - Video-MME (vlmeval/dataset/videomme.py generate_tsv): index, video
//     (the videoID), video_path, duration ("short"...), domain, candidates
//     (the parquet's options, "A. " prefixes and all), sub_category,
//     task_type, subtitle_path, question, answer (a letter). No question_id.
//   - MVBench (mvbench.py MVBench.generate_tsv): task_type ("Action
//     Sequence"), prefix, data_type, bound, start, end, video, question,
//     answer (a candidate's text), candidates, then index.
//   - MLVU_MCQ (mlvu.py): task_type, prefix, duration (seconds), video,
//     question, answer (a candidate's text), candidates, then index.
//
// A model's results (inference_video.py) are the same rows with a
// prediction column, in the .xlsx by default.
const (
	vlmVideoMMETSV = "index\tvideo\tvideo_path\tduration\tdomain\tcandidates\tsub_category\ttask_type\tsubtitle_path\tquestion\tanswer\n" +
		"0\tfFjv93ACGo8\t./video/fFjv93ACGo8.mp4\tshort\tKnowledge\t['A. Apples.', 'B. Candles.', 'C. Berries.', 'D. The three kinds are of the same number.']\tHumanity & History\tCounting Problem\t./subtitle/fFjv93ACGo8.srt\tWhen demonstrating the Germany modern Christmas tree is initially decorated with apples, candles and berries, which kind of the decoration has the largest number?\tC\n" +
		"1\tfFjv93ACGo8\t./video/fFjv93ACGo8.mp4\tshort\tKnowledge\t\"[\"\"A. The man's hat.\"\", 'B. A dog.', 'C. (b)(a)(d)(c).', 'D. None.']\"\tHumanity & History\tObject Recognition\t./subtitle/fFjv93ACGo8.srt\tWhat is shown first?\tA\n"
	vlmMVBenchTSV = "task_type\tprefix\tdata_type\tbound\tstart\tend\tvideo\tquestion\tanswer\tcandidates\tindex\n" +
		"Action Sequence\tvideo/star/Charades_v1_480/\tvideo\tTrue\t4.5\t12.0\t3M5KP.mp4\tWhat did the person do first?\tTook the towel.\t['Sat on the bed.', 'Took the towel.', 'Opened the door.']\t0\n" +
		"Action Antonym\tvideo/ssv2_video/\tvideo\tFalse\t\t\t166583.webm\tWhat is the action performed by the person in the video?\tPiling something up\t['Not sure', 'Scattering something down', 'Piling something up']\t1\n" +
		"Episodic Reasoning\tvideo/tvqa/frames_fps3_hq/\tframe\tTrue\t10.0\t40.5\tcastle_s07e04_seg02_clip_14\tWhy is Castle smiling?\tHe found a clue.\t['He found a clue.', 'He is tired.']\t2\n"
	// TempCompass_MCQ (tempcompass.py): task_type, prefix, suffix, video
	// (the video_id), question (its first line), answer ("A. text"), dim,
	// candidates (the question's other lines), then index.
	vlmTempCompassTSV = "task_type\tprefix\tsuffix\tvideo\tquestion\tanswer\tdim\tcandidates\tindex\n" +
		"multi-choice\t./videos\t.mp4\t1034419625\tWhat is the man doing in the video?\tC. passing a basketball\taction\t['A. dunking a basketball', 'B. dribbling a basketball', 'C. passing a basketball']\t0\n" +
		"caption_matching\t./videos\t.mp4\t1034419625_reverse\tWhich caption matches the video?\tCaption B: The man walks backwards.\tdirection\t['Caption A: The man walks forwards.', 'Caption B: The man walks backwards.']\t1\n"
	// LongVideoBench (longvideobench.py): lvb_val.json's records, video =
	// video_id, video_path under ./videos/, correct_choice 0-based.
	vlmLongVideoBenchTSV = "video_id\tquestion\tcandidates\tcorrect_choice\tquestion_category\tid\tvideo_path\tduration\tindex\tvideo\n" +
		"86CxyhFV9MI\tWhat is worn?\t['a hat', 'a scarf', 'gloves']\t2\tTOS\t86CxyhFV9MI_0\t./videos/86CxyhFV9MI.mp4\t508.96\t0\t86CxyhFV9MI\n"
	vlmMLVUTSV = "task_type\tprefix\tduration\tvideo\tquestion\tanswer\tcandidates\tindex\n" +
		"plotQA\t./MLVU/video/1_plotQA\t246.0\tmovie101_66.mp4\tWhat colour is the main male character's car?\tblue\t['red', 'blue', 'green', 'black']\t0\n"
)

func TestVLMEvalKitVideoDatasetTSVs(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	type got struct {
		ID, Video, VideoPath, Task string
		Options                    []string
		Gold                       int
		Start, End, Duration       *float64
		DurationGroup              string
	}
	for _, tc := range []struct {
		name, file, body, bench string
		want                    []got
	}{
		{"Video-MME", "Video-MME.tsv", vlmVideoMMETSV, "Video-MME", []got{
			{"0", "fFjv93ACGo8", "./video/fFjv93ACGo8.mp4", "Counting Problem", []string{"A. Apples.", "B. Candles.", "C. Berries.", "D. The three kinds are of the same number."}, 2, nil, nil, nil, "short"},
			{"1", "fFjv93ACGo8", "./video/fFjv93ACGo8.mp4", "Object Recognition", []string{"A. The man's hat.", "B. A dog.", "C. (b)(a)(d)(c).", "D. None."}, 0, nil, nil, nil, "short"},
		}},
		{"MVBench", "MVBench.tsv", vlmMVBenchTSV, "MVBench", []got{
			{"0", "video/star/Charades_v1_480/3M5KP.mp4", "", "Action Sequence", []string{"Sat on the bed.", "Took the towel.", "Opened the door."}, 1, f(4.5), f(12), f(7.5), ""},
			{"1", "video/ssv2_video/166583.webm", "", "Action Antonym", []string{"Not sure", "Scattering something down", "Piling something up"}, 2, nil, nil, nil, ""},
			{"2", "video/tvqa/frames_fps3_hq/castle_s07e04_seg02_clip_14", "", "Episodic Reasoning", []string{"He found a clue.", "He is tired."}, 0, f(10), f(40.5), f(30.5), ""},
		}},
		{"TempCompass_MCQ", "TempCompass_MCQ.tsv", vlmTempCompassTSV, "TempCompass_MCQ", []got{
			{"0", "videos/1034419625.mp4", "", "multi-choice", []string{"A. dunking a basketball", "B. dribbling a basketball", "C. passing a basketball"}, 2, nil, nil, nil, ""},
			{"1", "videos/1034419625_reverse.mp4", "", "caption_matching", []string{"Caption A: The man walks forwards.", "Caption B: The man walks backwards."}, 1, nil, nil, nil, ""},
		}},
		{"LongVideoBench", "LongVideoBench.tsv", vlmLongVideoBenchTSV, "LongVideoBench", []got{
			{"86CxyhFV9MI_0", "86CxyhFV9MI", "./videos/86CxyhFV9MI.mp4", "TOS", []string{"a hat", "a scarf", "gloves"}, 2, nil, nil, f(508.96), ""},
		}},
		{"MLVU_MCQ", "MLVU_MCQ.tsv", vlmMLVUTSV, "MLVU_MCQ", []got{
			{"0", "MLVU/video/1_plotQA/movie101_66.mp4", "", "plotQA", []string{"red", "blue", "green", "black"}, 1, nil, nil, f(246), ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), tc.file, tc.body)
			if !VLMEvalKit().Detect(p, mustHead(t, p)) {
				t.Errorf("Detect refuses %s", p)
			}
			rows, err := ReadVLMEvalKit(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, rows)
			if len(rows) != len(tc.want) {
				t.Fatalf("%d rows, want %d", len(rows), len(tc.want))
			}
			for i, r := range rows {
				gold, open, err := r.GoldIndex, "", error(nil)
				if gold < 0 {
					gold, open, err = items.Gold(r.Gold, r.Options, -1)
				}
				if err != nil || open != "" {
					t.Errorf("row %d: gold %q: %v %s", i, r.Gold, err, open)
				}
				g := got{r.ID, r.Video, r.VideoPath, r.Task, r.Options, gold, r.Start, r.End, r.Duration, r.DurationGroup}
				if !reflect.DeepEqual(g, tc.want[i]) {
					t.Errorf("row %d:\n got %+v\nwant %+v", i, g, tc.want[i])
				}
				if r.Benchmark != tc.bench || r.HasPrediction {
					t.Errorf("row %d: benchmark %q, prediction %v", i, r.Benchmark, r.HasPrediction)
				}
			}
		})
	}
}

// TestVLMEvalKitVideoResults: a model's results are the dataset's rows and
// prediction, in outputs/<model>/<eval id>/<model>_<dataset>.xlsx as
// today's run.py writes them; the benchmark is the dataset.
func TestVLMEvalKitVideoResults(t *testing.T) {
	dir := t.TempDir()
	p := writeSheet(t, filepath.Join(dir, "outputs", "InternVL2-8B", "T20250612-093015", "InternVL2-8B_MVBench_8frame.xlsx"), [][]string{
		{"task_type", "prefix", "data_type", "bound", "start", "end", "video", "question", "answer", "candidates", "index", "prediction"},
		{"Action Sequence", "video/star/Charades_v1_480/", "video", "True", "4.5", "12", "3M5KP.mp4", "What did the person do first?", "Took the towel.", "['Sat on the bed.', 'Took the towel.', 'Opened the door.']", "0", "(B) Took the towel."},
		{"Action Antonym", "video/ssv2_video/", "video", "False", "", "", "166583.webm", "What is done?", "Piling something up", "['Not sure', 'Scattering something down', 'Piling something up']", "1", "A"},
	})
	rows, err := ReadVLMEvalKit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for i, want := range []struct {
		video, reply string
		choice       int
	}{{"video/star/Charades_v1_480/3M5KP.mp4", "(B) Took the towel.", 1}, {"video/ssv2_video/166583.webm", "A", 0}} {
		r := rows[i]
		c, _, err := items.Reply(r.Reply, r.Options, -1)
		if r.Benchmark != "MVBench" || r.Video != want.video || !r.HasPrediction || r.Reply != want.reply || err != nil || c != want.choice {
			t.Errorf("row %d: benchmark %q, video %q, reply %q -> %d (%v); want MVBench, %q, %q -> %d", i, r.Benchmark, r.Video, r.Reply, c, err, want.video, want.reply, want.choice)
		}
	}
}

func TestVLMEvalKitClipErrors(t *testing.T) {
	t.Parallel()
	body := "task_type\tprefix\tdata_type\tbound\tstart\tend\tvideo\tquestion\tanswer\tcandidates\tindex\n" +
		"Action Sequence\tvideo/star/\tvideo\tTrue\t4.5\t12\tA.mp4\tq?\tx\t['x', 'y']\t0\n" +
		"Action Sequence\tvideo/star/\tvideo\tTrue\t12\t4.5\tB.mp4\tq?\tx\t['x', 'y']\t1\n"
	p := writeFile(t, t.TempDir(), "MVBench.tsv", body)
	_, err := ReadVLMEvalKit(context.Background(), p)
	wantParseError(t, err, p, 3, "end", harness.ErrBadValue)
}

// TestVLMEvalKitQuotedResults: with PRED_FORMAT=tsv (and for .csv) dump
// writes DataFrame.to_csv(quoting=csv.QUOTE_ALL) (vlmeval/smp/file.py
// dump_tsv, dump_csv): every cell quoted, the header too, a missing value
// an empty quoted cell, a question holding a line break kept in one cell.
func TestVLMEvalKitQuotedResults(t *testing.T) {
	t.Parallel()
	q := func(cells ...string) string {
		out := ""
		for i, c := range cells {
			if i > 0 {
				out += "\t"
			}
			out += `"` + c + `"`
		}
		return out + "\n"
	}
	body := q("index", "video", "video_path", "duration", "domain", "candidates", "sub_category", "task_type", "subtitle_path", "question", "answer", "prediction") +
		q("0", "fFjv93ACGo8", "./video/fFjv93ACGo8.mp4", "short", "Knowledge", "['A. Apples.', 'B. Candles.', 'C. Berries.', 'D. Same.']", "Humanity", "Counting Problem", "./subtitle/fFjv93ACGo8.srt", "Which kind\nis most?", "C", "C") +
		q("1", "fFjv93ACGo8", "./video/fFjv93ACGo8.mp4", "short", "Knowledge", `[""A. The man's hat."", 'B. A dog.']`, "Humanity", "Object Recognition", "./subtitle/fFjv93ACGo8.srt", "What first?", "A", "")
	p := writeFile(t, filepath.Join(t.TempDir(), "outputs", "Qwen2-VL-7B"), "Qwen2-VL-7B_Video-MME_8frame.tsv", body)
	if !VLMEvalKit().Detect(p, mustHead(t, p)) {
		t.Errorf("Detect refuses the quoted header")
	}
	rows, err := ReadVLMEvalKit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID, Question, Reply, Source string
		Options                     int
	}
	want := []got{{"0", "Which kind\nis most?", "C", p + ":2", 4}, {"1", "What first?", "", p + ":4", 2}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if g := (got{r.ID, r.Question, r.Reply, r.Source, len(r.Options)}); g != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, g, want[i])
		}
		if r.Benchmark != "Video-MME" || !r.HasPrediction {
			t.Errorf("row %d: benchmark %q, prediction %v", i, r.Benchmark, r.HasPrediction)
		}
	}
}

// TestVLMEvalKitPickleNamed: dump falls back to <model>_<dataset>.pkl when
// it cannot write the table (vlmeval/smp/file.py); auto takes it as
// VLMEvalKit's, and the import says how to turn it into a TSV.
func TestVLMEvalKitPickleNamed(t *testing.T) {
	t.Parallel()
	p := writeFile(t, filepath.Join(t.TempDir(), "outputs", "Qwen2-VL-7B"), "Qwen2-VL-7B_Video-MME_8frame.pkl", "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\x8c\x06pandas")
	if f, err := items.Detect(All(), p, mustHead(t, p)); err != nil || f.Name != "vlmevalkit" {
		t.Errorf("auto: %q, %v; want vlmevalkit", f.Name, err)
	}
	_, err := ReadVLMEvalKit(context.Background(), p)
	pe := parseError(t, err)
	if pe.File != p || !errors.Is(err, harness.ErrNotAFile) || !strings.Contains(err.Error(), "pd.read_pickle") {
		t.Errorf("error %v; want one naming the file and how to convert it", err)
	}
}
