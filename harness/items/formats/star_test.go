package formats

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// starFixture is STAR_val.json's layout as STAR's schema documents it:
// choices as objects with their ids, programs and situation graphs beside
// the question (the programs and situations are read past).
const starFixture = `[
  {
    "question_id": "Interaction_T1_13",
    "question": "Which object was tidied up by the person?",
    "video_id": "6H78U",
    "start": 11.1,
    "end": 19.6,
    "answer": "The clothes.",
    "question_program": [{"function": "Situations", "value_input": []}],
    "choices": [
      {"choice_id": 0, "choice": "The closet/cabinet.", "choice_program": []},
      {"choice_id": 1, "choice": "The blanket.", "choice_program": []},
      {"choice_id": 2, "choice": "The clothes.", "choice_program": []},
      {"choice_id": 3, "choice": "The table.", "choice_program": []}
    ],
    "situations": {"000199": {"rel_pairs": [["o000", "o001"]], "rel_labels": ["r001"], "actions": ["c001"]}}
  },
  {
    "question_id": "Sequence_T3_902",
    "question": "What did the person do after taking the cup?",
    "video_id": "0A8CF",
    "start": 2.0,
    "end": 9.25,
    "answer": "Opened the door.",
    "choices": [
      {"choice_id": 1, "choice": "Opened the door."},
      {"choice_id": 0, "choice": "Sat on the sofa."},
      {"choice_id": 2, "choice": "Took the towel."},
      {"choice_id": 3, "choice": "Put down the book."}
    ]
  },
  {
    "question_id": "Prediction_T1_5",
    "question": "What will the person do next?",
    "video_id": "ZZ0A1", "start": 0, "end": 4,
    "answer": "Take the phone.",
    "choices": [{"choice_id": 0, "choice": "Sit."}, {"choice_id": 1, "choice": "Stand."}, {"choice_id": 2, "choice": "Eat."}, {"choice_id": 3, "choice": "Run."}]
  }
]
`

func TestSTARReadsQuestionsWithTheirClips(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "STAR_val.json", starFixture)
	res, err := readAnno(t, STAR(), p)
	if err != nil {
		t.Fatal(err)
	}
	f := func(x float64) *float64 { return &x }
	want := []items.Row{
		{Source: p + ":2", File: p, Line: 2, ID: "Interaction_T1_13", Benchmark: "STAR", Video: "6H78U.mp4",
			Question: "Which object was tidied up by the person?",
			Options:  []string{"The closet/cabinet.", "The blanket.", "The clothes.", "The table."},
			Task:     "Interaction_T1", Group: "Interaction", Duration: f(8.5), Start: f(11.1), End: f(19.6),
			Gold: "The clothes.", GoldIndex: 2, Choice: -1},
		{Source: p + ":18", File: p, Line: 18, ID: "Sequence_T3_902", Benchmark: "STAR", Video: "0A8CF.mp4",
			Question: "What did the person do after taking the cup?",
			Options:  []string{"Sat on the sofa.", "Opened the door.", "Took the towel.", "Put down the book."},
			Task:     "Sequence_T3", Group: "Sequence", Duration: f(7.25), Start: f(2), End: f(9.25),
			Gold: "Opened the door.", GoldIndex: 1, Choice: -1},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", res.Rows, want)
	}
	wantDrops := []items.Drop{{Source: p + ":32", ID: "Prediction_T1_5", Reason: `open-ended: the answer "Take the phone." is the text of no option`, OpenEnded: true}}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped:\n got %+v\nwant %+v", res.Dropped, wantDrops)
	}
}

func TestSTARRefusesMalformedFiles(t *testing.T) {
	t.Parallel()
	q := func(extra string) string {
		return `[{"question_id": "Interaction_T1_1", "question": "q?", "video_id": "V", "start": 1, "end": 2, "answer": "a",` + extra + `}]`
	}
	checkBad(t, STAR(), "STAR_val.json", []badCase{
		{"no choices", q(`"x": 0`), 1, "choices", "missing field"},
		{"choices as strings", q(`"choices": ["a", "b"]`), 1, "choices[0]", "want an object"},
		{"a repeated choice id", q("\n\"choices\": [{\"choice_id\": 0, \"choice\": \"a\"},\n {\"choice_id\": 0, \"choice\": \"b\"}]"), 3, "choice_id", "each once"},
		{"a choice id past the choices", q(`"choices": [{"choice_id": 0, "choice": "a"}, {"choice_id": 5, "choice": "b"}]`), 1, "choice_id", "run 0 to 1"},
		{"a clip that ends before it starts", `[{"question_id": "S_1", "question": "q?", "video_id": "V", "start": 5, "end": 2, "answer": "a", "choices": [{"choice": "a"}, {"choice": "b"}]}]`, 1, "end", "from 5 to 2"},
		{"a choice without its text", q(`"choices": [{"choice_id": 0}, {"choice_id": 1, "choice": "b"}]`), 1, "choice", "missing field"},
	})
}

// TestSTARReadsBackTheProjectsSTARItems rebuilds STAR_val.json from the
// project's STAR items (../shared/data/star.jsonl, whose video is the clip
// <video_id>_<start>_<end>) and imports it: every item must come back with
// its id, options, answer, task and clip.
func TestSTARReadsBackTheProjectsSTARItems(t *testing.T) {
	t.Parallel()
	src := shareddata.Path(t, "star.jsonl")
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type item struct {
		ID       string   `json:"id"`
		Video    string   `json:"video"`
		Question string   `json:"question"`
		Options  []string `json:"options"`
		Answer   int      `json:"answer"`
		Task     string   `json:"task"`
		Duration float64  `json:"duration"`
	}
	var its []item
	var recs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(it.Video, "_")
		if len(parts) != 3 {
			t.Fatalf("%s: video %q is not <video_id>_<start>_<end>", it.ID, it.Video)
		}
		start, err1 := strconv.ParseFloat(parts[1], 64)
		end, err2 := strconv.ParseFloat(parts[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: clip bounds of %q", it.ID, it.Video)
		}
		choices := make([]map[string]any, len(it.Options))
		for k, o := range it.Options {
			choices[k] = map[string]any{"choice_id": k, "choice": o}
		}
		its = append(its, it)
		recs = append(recs, map[string]any{"question_id": it.ID, "question": it.Question, "video_id": parts[0],
			"start": start, "end": end, "answer": it.Options[it.Answer], "choices": choices})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	body, err := json.MarshalIndent(recs, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, t.TempDir(), "STAR_val.json", string(body))
	res, err := readAnno(t, STAR(), p)
	if err != nil {
		t.Fatal(err)
	}
	// An item whose answer text is also another option's (case and
	// punctuation aside) cannot be told apart by STAR's text answers.
	byID := map[string]items.Row{}
	for _, r := range res.Rows {
		byID[r.ID] = r
	}
	for _, d := range res.Dropped {
		t.Logf("dropped %s: %s", d.ID, d.Reason)
	}
	if len(res.Rows)+len(res.Dropped) != len(its) || len(res.Rows) < len(its)*99/100 {
		t.Fatalf("%d items gave %d rows and %d drops", len(its), len(res.Rows), len(res.Dropped))
	}
	for _, it := range its {
		r, ok := byID[it.ID]
		if !ok {
			continue
		}
		clip := fmt.Sprintf("%s_%v_%v", strings.TrimSuffix(r.Video, ".mp4"), *r.Start, *r.End)
		if !reflect.DeepEqual(r.Options, it.Options) || r.GoldIndex != it.Answer || r.Task != it.Task || clip != it.Video ||
			math.Abs(*r.Duration-it.Duration) > 0.051 {
			t.Errorf("%s: got options %q gold %d task %s clip %s duration %v, want %q %d %s %s %v",
				it.ID, r.Options, r.GoldIndex, r.Task, clip, *r.Duration, it.Options, it.Answer, it.Task, it.Video, it.Duration)
		}
	}
	t.Logf("%d STAR items read back, %d dropped", len(res.Rows), len(res.Dropped))
}

func FuzzSTAR(f *testing.F) {
	fuzzAnno(f, STAR(), "STAR_val.json", starFixture, `[{"question_id": 1, "video_id": "v", "question": "q", "answer": "a", "choices": [{"choice": "a"}, {"choice": "b", "choice_id": "1"}]}]`)
}
