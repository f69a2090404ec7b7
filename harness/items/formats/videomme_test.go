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

// videommeParquetRow is a row of lmms-lab/Video-MME's
// videomme/test-00000-of-00001.parquet, with its column names and types.
type videommeParquetRow struct {
	VideoID     string   `parquet:"video_id"`
	Duration    string   `parquet:"duration"`
	Domain      string   `parquet:"domain"`
	SubCategory string   `parquet:"sub_category"`
	URL         string   `parquet:"url"`
	YouTubeID   string   `parquet:"videoID"`
	QuestionID  string   `parquet:"question_id"`
	TaskType    string   `parquet:"task_type"`
	Question    string   `parquet:"question"`
	Options     []string `parquet:"options,list"`
	Answer      string   `parquet:"answer"`
}

var videommeFixture = []videommeParquetRow{
	{"001", "short", "Knowledge", "Humanity & History", "https://www.youtube.com/watch?v=fFjv93ACGo8", "fFjv93ACGo8", "001-1", "Counting Problem",
		"When demonstrating the Germany modern Christmas tree is initially decorated with apples, candles and berries, which kind of the decoration has the largest number?",
		[]string{"A. Apples.", "B. Candles.", "C. Berries.", "D. The three kinds are of the same number."}, "C"},
	{"001", "short", "Knowledge", "Humanity & History", "https://www.youtube.com/watch?v=fFjv93ACGo8", "fFjv93ACGo8", "001-2", "Information Synopsis",
		"What is the genre of this video?", []string{"A. It is a news report.", "B. It is a documentary.", "C. It is a game.", "D. It is a cooking show."}, "B"},
	// An ordering question: the options are orderings of letters, which
	// the "A. " prefix rule keeps as text.
	{"301", "medium", "Film & Television", "Animation", "https://www.youtube.com/watch?v=xyz12345678", "xyz12345678", "301-3", "Temporal Reasoning",
		"In what order do the events happen?", []string{"A. (b)(a)(d)(c).", "B. (a)(b)(c)(d).", "C. (c)(a)(b)(d).", "D. (d)(c)(b)(a)."}, "A"},
}

func TestVideoMMEParquet(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "videomme", "test-00000-of-00001.parquet")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(p, videommeFixture); err != nil {
		t.Fatal(err)
	}
	if !detectVideoMME(p, nil) {
		t.Error("the parquet file is not detected")
	}
	res, err := readVideoMME(context.Background(), []string{p}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID, Video, Task, Group, Source string
		Options                        []string
		Gold                           int
		Meta                           map[string]any
	}
	meta := func(num, domain, sub, url string) map[string]any {
		return map[string]any{"video_id": num, "domain": domain, "sub_category": sub, "url": url}
	}
	want := []got{
		{"001-1", "fFjv93ACGo8", "Counting Problem", "short", p + ": row 1", []string{"Apples.", "Candles.", "Berries.", "The three kinds are of the same number."}, 2,
			meta("001", "Knowledge", "Humanity & History", "https://www.youtube.com/watch?v=fFjv93ACGo8")},
		{"001-2", "fFjv93ACGo8", "Information Synopsis", "short", p + ": row 2", []string{"It is a news report.", "It is a documentary.", "It is a game.", "It is a cooking show."}, 1,
			meta("001", "Knowledge", "Humanity & History", "https://www.youtube.com/watch?v=fFjv93ACGo8")},
		{"301-3", "xyz12345678", "Temporal Reasoning", "medium", p + ": row 3", []string{"(b)(a)(d)(c).", "(a)(b)(c)(d).", "(c)(a)(b)(d).", "(d)(c)(b)(a)."}, 0,
			meta("301", "Film & Television", "Animation", "https://www.youtube.com/watch?v=xyz12345678")},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		g := got{r.ID, r.Video, r.Task, r.DurationGroup, r.Source, r.Options, r.GoldIndex, r.Meta}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, g, want[i])
		}
		if r.Benchmark != "Video-MME" || r.Duration != nil || r.HasPrediction || r.Rec != i+1 || r.VideoFrom != "" {
			t.Errorf("row %d: benchmark %q duration %v prediction %v record %d video from %q", i, r.Benchmark, r.Duration, r.HasPrediction, r.Rec, r.VideoFrom)
		}
	}
}

// videommeFlatJSON holds the parquet's records as a JSON array.
const videommeFlatJSON = `[
  {"video_id": "001", "duration": "short", "domain": "Knowledge", "sub_category": "Humanity & History", "url": "https://www.youtube.com/watch?v=fFjv93ACGo8", "videoID": "fFjv93ACGo8", "question_id": "001-1", "task_type": "Counting Problem", "question": "Which decoration has the largest number?", "options": ["A. Apples.", "B. Candles.", "C. Berries.", "D. The same."], "answer": "C"},
  {"video_id": "002", "duration": "long", "domain": "Knowledge", "sub_category": "Law", "url": "https://www.youtube.com/watch?v=abcdefghijk", "videoID": "abcdefghijk", "question_id": "002-1", "task_type": "OCR Problems", "question": "Which two laws are shown?", "options": ["A. Tax.", "B. Trade.", "C. Labour.", "D. Land."], "answer": "A, C"}
]`

// videommeResults is the results file of Video-MME's evaluation script:
// one record per video, its questions with choices and a response.
const videommeResults = `[
    {
        "video_id": "003",
        "duration_category": "short",
        "video_category": "Knowledge",
        "video_subcategory": "Humanity & History",
        "questions": [
            {
                "question_id": "003-1",
                "task_type": "Object Reasoning",
                "question": "Which of the following statements is not correct?",
                "choices": ["A. Moina Michael first used the poppy.", "B. Poppies grow on battlefields.", "C. The poppy is a symbol since WW1.", "D. The poem was written in WW1."],
                "answer": "A",
                "response": "D"
            },
            {
                "question_id": "003-2",
                "task_type": "Attribute Perception",
                "question": "What is Moina Michael wearing?",
                "choices": ["A. Black shirts.", "B. Blue shirts.", "C. Red skirts.", "D. Brown hat."],
                "answer": "D",
                "response": "The answer is D."
            }
        ]
    }
]`

func TestVideoMMEJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flat := writeFile(t, dir, "videomme.json", videommeFlatJSON)
	lines := writeFile(t, dir, "videomme.jsonl", `{"duration": "long", "videoID": "zzzzzzzzzzz", "question_id": "900-1", "task_type": "Counting Problem", "question": "How many?", "options": ["A. 1.", "B. 2."], "answer": "B"}`+"\n")
	results := writeFile(t, dir, "results.json", videommeResults)
	for _, p := range []string{flat, lines, results} {
		head, _ := os.ReadFile(p)
		if !detectVideoMME(p, head) {
			t.Errorf("%s is not detected", p)
		}
	}
	res, err := readVideoMME(context.Background(), []string{flat, lines, results}, items.NoOptions())
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID, Video, VideoFrom, Group, Task, Source, Reply string
		HasPrediction                                    bool
		Options                                          []string
		Gold                                             int
	}
	numbered := "video_id (the video's number: the file gives no videoID, the name of the video file)"
	want := []got{
		{"001-1", "fFjv93ACGo8", "", "short", "Counting Problem", flat + ":2", "", false, []string{"Apples.", "Candles.", "Berries.", "The same."}, 2},
		{"900-1", "zzzzzzzzzzz", "", "long", "Counting Problem", lines + ": record 1", "", false, []string{"1.", "2."}, 1},
		{"003-1", "003", numbered, "short", "Object Reasoning", results + ":2: question 1", "D", true,
			[]string{"Moina Michael first used the poppy.", "Poppies grow on battlefields.", "The poppy is a symbol since WW1.", "The poem was written in WW1."}, 0},
		{"003-2", "003", numbered, "short", "Attribute Perception", results + ":2: question 2", "The answer is D.", true,
			[]string{"Black shirts.", "Blue shirts.", "Red skirts.", "Brown hat."}, 3},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		g := got{r.ID, r.Video, r.VideoFrom, r.DurationGroup, r.Task, r.Source, r.Reply, r.HasPrediction, r.Options, r.GoldIndex}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, g, want[i])
		}
	}
	if d := res.Rows[2].Meta; !reflect.DeepEqual(d, map[string]any{"video_id": "003", "domain": "Knowledge", "sub_category": "Humanity & History"}) {
		t.Errorf("results meta %v", d)
	}
	wantDrops := []items.Drop{{Source: flat + ":3", ID: "002-1", Reason: `open-ended: the answer "A, C" names several options (A, C)`, OpenEnded: true}}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped %+v, want %+v", res.Dropped, wantDrops)
	}
}

func TestVideoMMEErrors(t *testing.T) {
	t.Parallel()
	q := func(extra string) string {
		return `{"videoID": "v1", "duration": "short", "question_id": "001-1", "task_type": "T", "question": "q?", "options": ["A. x.", "B. y.", "C. z.", "D. w."]` + extra + `}`
	}
	checkErrors(t, readVideoMME, "videomme.json", []errCase{
		{"answer past the options", "[\n" + q(`, "answer": "E"`) + "\n]", 2, "answer", harness.ErrAnswerRange},
		{"digit answer", "[\n" + q(`, "answer": "2"`) + "\n]", 2, "answer", items.ErrAmbiguousIndex},
		{"duplicate question id", "[\n" + q(`, "answer": "A"`) + ",\n" + q(`, "answer": "B"`) + "\n]", 3, "question_id", harness.ErrDuplicateID},
		{"options not a list", "[\n" + `{"videoID": "v1", "question_id": "001-1", "question": "q?", "options": "A. x. B. y.", "answer": "A"}` + "\n]", 2, "options", harness.ErrFieldType},
		{"one option", "[\n" + `{"videoID": "v1", "question_id": "001-1", "question": "q?", "options": ["A. x."], "answer": "A"}` + "\n]", 2, "options", harness.ErrTooFewOptions},
		{"no question id", "[\n" + `{"videoID": "v1", "question": "q?", "options": ["A. x.", "B. y."], "answer": "A"}` + "\n]", 2, "question_id", harness.ErrMissingField},
		{"no video", "[\n" + `{"question_id": "001-1", "question": "q?", "options": ["A. x.", "B. y."], "answer": "A"}` + "\n]", 2, "videoID", harness.ErrMissingField},
		{"questions not a list", "[\n" + `{"video_id": "001", "duration_category": "short", "questions": {}}` + "\n]", 2, "questions", harness.ErrFieldType},
		{"bad json line", q(`, "answer": "A"`) + "\n{oops\n", 2, "", harness.ErrSyntax},
	})
	t.Run("digit answer with --index-base 1", func(t *testing.T) {
		p := writeFile(t, t.TempDir(), "videomme.json", "["+q(`, "answer": "2"`)+"]")
		res, err := readVideoMME(context.Background(), []string{p}, items.Options{IndexBase: 1})
		if err != nil || len(res.Rows) != 1 || res.Rows[0].GoldIndex != 1 {
			t.Errorf("rows %+v, error %v: want gold 1", res, err)
		}
	})
	t.Run("parquet without videoID", func(t *testing.T) {
		type row struct {
			QuestionID string   `parquet:"question_id"`
			Question   string   `parquet:"question"`
			Options    []string `parquet:"options,list"`
			Answer     string   `parquet:"answer"`
		}
		p := filepath.Join(t.TempDir(), "test-00000-of-00001.parquet")
		if err := parquet.WriteFile(p, []row{{"001-1", "q?", []string{"A. x.", "B. y."}, "A"}}); err != nil {
			t.Fatal(err)
		}
		if detectVideoMME(p, nil) {
			t.Error("a parquet file without videoID is detected as Video-MME's")
		}
		_, err := readVideoMME(context.Background(), []string{p}, items.NoOptions())
		wantParseError(t, err, p, 0, "videoID", harness.ErrMissingField)
	})
	t.Run("parquet answer past the options", func(t *testing.T) {
		rows := append([]videommeParquetRow(nil), videommeFixture...)
		rows[1].Answer = "F"
		p := filepath.Join(t.TempDir(), "test-00000-of-00001.parquet")
		if err := parquet.WriteFile(p, rows); err != nil {
			t.Fatal(err)
		}
		_, err := readVideoMME(context.Background(), []string{p}, items.NoOptions())
		wantParquetError(t, err, p, 2, "answer", harness.ErrAnswerRange)
	})
	t.Run("not parquet", func(t *testing.T) {
		p := writeFile(t, t.TempDir(), "test-00000-of-00001.parquet", "PAR1 not really")
		_, err := readVideoMME(context.Background(), []string{p}, items.NoOptions())
		wantParseError(t, err, p, 0, "", harness.ErrParquet)
	})
}

func TestVideoMMEDetect(t *testing.T) {
	t.Parallel()
	checkDetect(t, detectVideoMME, []detectCase{
		{"videomme.json", videommeFlatJSON, true},
		{"results.json", videommeResults, true},
		// lmms-eval's samples hold Video-MME's metric fields.
		{"20250101_000000_samples_videomme.jsonl", `{"doc_id": 0, "target": "C", "videomme_perception_score": {"question_id": "001-1", "duration": "short", "options": []}}`, false},
		// VLMEvalKit's records.
		{"Model_Video-MME.json", `[{"index": 0, "video": "fFjv93ACGo8", "question_id": "001-1", "candidates": "['A. x']", "prediction": "A"}]`, false},
		{"egoschema.json", `[{"q_uid": "u", "question": "q", "option 0": "a"}]`, false},
		{"videomme.csv", videommeFlatJSON, false},
	})
}

func FuzzVideoMMEJSON(f *testing.F) {
	f.Add([]byte(videommeFlatJSON))
	f.Add([]byte(videommeResults))
	f.Add([]byte(`{"videoID": "v", "question_id": "1", "question": "q", "options": ["A. x", "B. y"], "answer": "B", "response": 3}`))
	fuzzRead(f, "videomme.json", readVideoMME, func(r items.Row) bool { return isChoice(r) && r.Video != "" })
}

func FuzzVideoMMEParquet(f *testing.F) {
	addParquetSeeds(f, videommeFixture)
	fuzzRead(f, "test-00000-of-00001.parquet", readVideoMME, goldInRange)
}
