package formats

import (
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
)

// The layouts of TempCompass's questions/*.json: video, dimension, list of
// {question, answer}, the options inside the question.
const (
	tempCompassMultiChoiceFixture = `{
    "1034419625": {
        "action": [
            {
                "question": "What is the man doing in the video?\nA. dunking a basketball\nB. dribbling a basketball\nC. passing a basketball",
                "answer": "A. dunking a basketball"
            },
            {
                "question": "Which activity is the man engaged in?\nA. passing a basketball\nB. dribbling a basketball\nC. dunking a basketball",
                "answer": "C. dunking a basketball"
            }
        ],
        "direction": [
            {
                "question": "In which direction is the man moving?\nA. away from the camera\nB. towards the camera\nC. from left to right",
                "answer": "B. from left to right"
            }
        ]
    },
    "1034419625_reverse": {
        "direction": [
            {
                "question": "What is the direction of the man?\nA. moving towards the camera\nB. moving from right to left",
                "answer": "B. moving from right to left"
            }
        ]
    }
}
`
	tempCompassCaptionFixture = `{
    "1098982673": {
        "speed": [
            {
                "question": "Which caption matches the video better?\nCaption A: The video is fast forwarded.\nCaption B: The video is playing at normal speed.",
                "answer": "Caption B: The video is playing at normal speed."
            },
            {
                "question": "Which description is a more suitable match for the video?\nOption 1: The video is playing at normal speed.\nOption 2: The video is being played in reverse.",
                "answer": "Option 1: The video is playing at normal speed."
            }
        ]
    }
}
`
	tempCompassYesNoFixture = `{
    "1111657885": {
        "speed": [
            {"question": "Is the video playing in slow motion?", "answer": "yes"},
            {"question": "Is the entire video presented in fast forward?", "answer": "no"}
        ]
    }
}
`
	// A file of predictions/<model>/multi-choice.json: a model's reply
	// beside each answer.
	tempCompassPredictionsFixture = `{
    "1111657885": {
        "action": [
            {
                "question": "What are the people doing?\nA. skiing\nB. ice skating\nC. swimming",
                "answer": "B. ice skating",
                "prediction": "B"
            },
            {
                "question": "What sport are the people engaged in?\nA. tennis\nB. soccer\nC. ice skating",
                "answer": "C. ice skating",
                "prediction": "The people are playing soccer."
            }
        ]
    }
}
`
	tempCompassCaptioningFixture = `{
    "1034419625": {
        "action": [
            {
                "question": "Please identify the information consistent with the video and write a caption.\nInformation A: {'subject': 'man', 'action': 'dribbling'}\nInformation B: {'subject': 'man', 'action': 'dunking'}\nGenerated Caption:",
                "answer": "B. dunking"
            }
        ]
    }
}
`
)

func TestTempCompassReadsEachTaskType(t *testing.T) {
	t.Parallel()
	mc := writeFile(t, t.TempDir(), "multi-choice.json", tempCompassMultiChoiceFixture)
	cm := writeFile(t, t.TempDir(), "caption_matching.json", tempCompassCaptionFixture)
	yn := writeFile(t, t.TempDir(), "yes_no.json", tempCompassYesNoFixture)
	res, err := readAnno(t, TempCompass(), mc, cm, yn)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(k string) map[string]any { return map[string]any{"task_type": k} }
	want := []items.Row{
		{Source: mc + ":4", File: mc, Line: 4, ID: "multi-choice/1034419625/action/0", Benchmark: "TempCompass", Video: "1034419625.mp4",
			Question: "What is the man doing in the video?", Options: []string{"dunking a basketball", "dribbling a basketball", "passing a basketball"},
			Task: "action", Gold: "A. dunking a basketball", GoldIndex: 0, Choice: -1, Meta: meta("multi-choice")},
		{Source: mc + ":8", File: mc, Line: 8, ID: "multi-choice/1034419625/action/1", Benchmark: "TempCompass", Video: "1034419625.mp4",
			Question: "Which activity is the man engaged in?", Options: []string{"passing a basketball", "dribbling a basketball", "dunking a basketball"},
			Task: "action", Gold: "C. dunking a basketball", GoldIndex: 2, Choice: -1, Meta: meta("multi-choice")},
		{Source: mc + ":22", File: mc, Line: 22, ID: "multi-choice/1034419625_reverse/direction/0", Benchmark: "TempCompass", Video: "1034419625_reverse.mp4",
			Question: "What is the direction of the man?", Options: []string{"moving towards the camera", "moving from right to left"},
			Task: "direction", Gold: "B. moving from right to left", GoldIndex: 1, Choice: -1, Meta: meta("multi-choice")},
		{Source: cm + ":4", File: cm, Line: 4, ID: "caption_matching/1098982673/speed/0", Benchmark: "TempCompass", Video: "1098982673.mp4",
			Question: "Which caption matches the video better?", Options: []string{"The video is fast forwarded.", "The video is playing at normal speed."},
			Task: "speed", Gold: "Caption B: The video is playing at normal speed.", GoldIndex: 1, Choice: -1, Meta: meta("caption_matching")},
		{Source: cm + ":8", File: cm, Line: 8, ID: "caption_matching/1098982673/speed/1", Benchmark: "TempCompass", Video: "1098982673.mp4",
			Question: "Which description is a more suitable match for the video?", Options: []string{"The video is playing at normal speed.", "The video is being played in reverse."},
			Task: "speed", Gold: "Option 1: The video is playing at normal speed.", GoldIndex: 0, Choice: -1, Meta: meta("caption_matching")},
		{Source: yn + ":4", File: yn, Line: 4, ID: "yes_no/1111657885/speed/0", Benchmark: "TempCompass", Video: "1111657885.mp4",
			Question: "Is the video playing in slow motion?", Options: []string{"yes", "no"},
			Task: "speed", Gold: "yes", GoldIndex: 0, Choice: -1, Meta: meta("yes_no")},
		{Source: yn + ":5", File: yn, Line: 5, ID: "yes_no/1111657885/speed/1", Benchmark: "TempCompass", Video: "1111657885.mp4",
			Question: "Is the entire video presented in fast forward?", Options: []string{"yes", "no"},
			Task: "speed", Gold: "no", GoldIndex: 1, Choice: -1, Meta: meta("yes_no")},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", res.Rows, want)
	}
	// The direction question's answer gives label B but option C's text.
	wantDrops := []items.Drop{{Source: mc + ":14", ID: "multi-choice/1034419625/direction/0",
		Reason: `open-ended: the answer "B. from left to right" names option B by its label and another by its text`, OpenEnded: true}}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped:\n got %+v\nwant %+v", res.Dropped, wantDrops)
	}
}

func TestTempCompassReadsAModelsPredictions(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "multi-choice.json", tempCompassPredictionsFixture)
	res, err := readAnno(t, TempCompass(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(res.Rows))
	}
	for i, want := range []struct {
		reply string
		gold  int
	}{{"B", 1}, {"The people are playing soccer.", 2}} {
		r := res.Rows[i]
		if !r.HasPrediction || r.Reply != want.reply || r.GoldIndex != want.gold || r.Choice != -1 {
			t.Errorf("row %d: prediction %v reply %q gold %d choice %d, want a prediction %q, gold %d, choice -1",
				i, r.HasPrediction, r.Reply, r.GoldIndex, r.Choice, want.reply, want.gold)
		}
	}
}

func TestTempCompassDropsCaptioningQuestions(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "captioning.json", tempCompassCaptioningFixture)
	res, err := readAnno(t, TempCompass(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || len(res.Dropped) != 1 || res.Dropped[0].ID != "captioning/1034419625/action/0" || !res.Dropped[0].OpenEnded {
		t.Errorf("rows %+v, dropped %+v: want the captioning question dropped as open-ended", res.Rows, res.Dropped)
	}
}

func TestTempCompassRefusesMalformedFiles(t *testing.T) {
	t.Parallel()
	checkBad(t, TempCompass(), "multi-choice.json", []badCase{
		{"a list of questions at the top", `[{"question": "q", "answer": "yes"}]`, 1, "", "want an object of videos"},
		{"a dimension that is not a list", "{\"v\": {\n\"speed\": {\"question\": \"q\"}}}", 2, "", `dimension "speed" of video "v" as a list`},
		{"a question without its answer", "{\"v\": {\"speed\": [\n  {\"question\": \"Is it fast?\"}]}}", 2, "answer", "missing field"},
		{"an answer that is a number", "{\"v\": {\"speed\": [{\"question\": \"Is it fast?\",\n \"answer\": 1}]}}", 2, "answer", "want a string"},
		{"a prediction that is a list", `{"v": {"speed": [{"question": "Is it fast?", "answer": "yes", "prediction": ["yes"]}]}}`, 1, "prediction", "want a string or a number"},
	})
}

func TestTempCompassDetectsItsFilesOnly(t *testing.T) {
	t.Parallel()
	checkDetect(t, TempCompass().Detect, []detectCase{
		{"multi-choice.json", tempCompassMultiChoiceFixture, true},
		{"yes_no.json", tempCompassYesNoFixture, true},
		{"mc_question_valid.json", perceptionTestFixture, false},
		{"lvb_val.json", longVideoBenchFixture, false},
	})
}

func FuzzTempCompass(f *testing.F) {
	fuzzAnno(f, TempCompass(), "multi-choice.json", tempCompassMultiChoiceFixture, tempCompassCaptionFixture,
		tempCompassYesNoFixture, tempCompassPredictionsFixture, tempCompassCaptioningFixture)
}
