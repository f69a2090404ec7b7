package formats

import (
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
)

// The layouts of NExT-GQA's datasets/nextgqa/: the question table (the
// answer as text), the evidence spans per video and qid, and the map from
// video id to VidOR path.
const (
	nextGQATable = `video_id,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4
4882821564,2697,640,480,why did the boy pick up one present from the group of them and move to the sofa,unwrap it,1,CW,share with the girl,approach lady sitting there,unwrap it,playing with toy train,gesture something
2834146886,1881,496,370,what does the white dog do after going to the cushion,smells the black dog,8,TN,drink again,shake its body,smells the black dog,wagging tail,touch lady in blue stripes
4882821564,2697,640,480,"how does the boy open the box, at the end",tear it,3,CH,cut it,,pull the ribbon,kick it,tear it
2834146886,1881,496,370,what is the dog chewing,a bone,2,TC,a shoe,a stick,a ball,a toy,a cushion
`
	nextGQASpansFile = `{"4882821564": {"duration": 90, "location": {"1": [[12.1, 17.1], [20.0, 23.5]], "3": [[80.0, 89.5]]}, "fps": 29.97},
 "2834146886": {"duration": 62, "location": {"8": [[1.2, 5.8]]}, "fps": 29.97}}`
	nextGQAMapFile = `{"4882821564": "1006/4882821564", "2834146886": "0000/2834146886"}`
)

func TestNExTGQAJoinsTheTableWithSpansAndPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	table := writeFile(t, dir, "val.csv", nextGQATable)
	spans := writeFile(t, dir, "gsub_val.json", nextGQASpansFile)
	paths := writeFile(t, dir, "map_vid_vidorID.json", nextGQAMapFile)
	res, err := readAnno(t, NExTGQA(), table, spans, paths)
	if err != nil {
		t.Fatal(err)
	}
	d90, d62 := 90.0, 62.0
	want := []items.Row{
		{Source: table + ":2", File: table, Line: 2, ID: "val/4882821564_1", Benchmark: "NExT-GQA", Video: "1006/4882821564",
			Question: "why did the boy pick up one present from the group of them and move to the sofa",
			Options:  []string{"share with the girl", "approach lady sitting there", "unwrap it", "playing with toy train", "gesture something"},
			Task:     "CW", Duration: &d90, Gold: "unwrap it", GoldIndex: 2, Choice: -1,
			Meta: map[string]any{"evidence": [][]float64{{12.1, 17.1}, {20.0, 23.5}}}},
		{Source: table + ":3", File: table, Line: 3, ID: "val/2834146886_8", Benchmark: "NExT-GQA", Video: "0000/2834146886",
			Question: "what does the white dog do after going to the cushion",
			Options:  []string{"drink again", "shake its body", "smells the black dog", "wagging tail", "touch lady in blue stripes"},
			Task:     "TN", Duration: &d62, Gold: "smells the black dog", GoldIndex: 2, Choice: -1,
			Meta: map[string]any{"evidence": [][]float64{{1.2, 5.8}}}},
		// An empty option keeps its place (a1 is blank).
		{Source: table + ":4", File: table, Line: 4, ID: "val/4882821564_3", Benchmark: "NExT-GQA", Video: "1006/4882821564",
			Question: "how does the boy open the box, at the end",
			Options:  []string{"cut it", "", "pull the ribbon", "kick it", "tear it"},
			Task:     "CH", Duration: &d90, Gold: "tear it", GoldIndex: 4, Choice: -1,
			Meta: map[string]any{"evidence": [][]float64{{80.0, 89.5}}}},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", res.Rows, want)
	}
	wantDrops := []items.Drop{{Source: table + ":5", ID: "val/2834146886_2", Reason: `open-ended: the answer "a bone" is the text of no option`, OpenEnded: true}}
	if !reflect.DeepEqual(res.Dropped, wantDrops) {
		t.Errorf("dropped:\n got %+v\nwant %+v", res.Dropped, wantDrops)
	}
}

func TestNExTGQAReadsTheTableAlone(t *testing.T) {
	t.Parallel()
	table := writeFile(t, t.TempDir(), "test.csv", nextGQATable)
	res, err := readAnno(t, NExTGQA(), table)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || res.Rows[0].ID != "test/4882821564_1" || res.Rows[0].Video != "4882821564" || res.Rows[0].Duration != nil || res.Rows[0].Meta != nil {
		t.Errorf("rows %+v: want test/ ids, bare video ids, no durations", res.Rows)
	}
}

func TestNExTGQARefusesMalformedFiles(t *testing.T) {
	t.Parallel()
	checkBad(t, NExTGQA(), "val.csv", []badCase{
		{"no answer column", "video_id,question,qid,a0,a1\n1,q,0,x,y\n", 1, "answer", "no column answer"},
		{"a repeated video and qid", nextGQATable + "4882821564,1,1,1,again?,x,1,CW,x,y,z,u,v\n", 6, "qid", "duplicate id"},
		{"a qid that is not a number", "video_id,question,answer,qid,a0,a1\n1,q,x,first,x,y\n", 2, "qid", "not a question number"},
		{"a row with a stray quote", "video_id,question,answer,qid,a0,a1\n1,\"q,x,0,x,y\n", 2, "", "not a CSV table"},
		{"no question", "video_id,question,answer,qid,a0,a1\n1,,x,0,x,y\n", 2, "question", "empty value"},
	})
	dir := t.TempDir()
	table := writeFile(t, dir, "val.csv", nextGQATable)
	for _, c := range []struct {
		name, file, body string
		line             int
		field, want      string
	}{
		{"spans that are not a list", "gsub_val.json", "{\"4882821564\": {\"duration\": 90,\n \"location\": {\"1\": \"12-17\"}}}", 2, "1", "want a list of [start, end] spans"},
		{"a span that ends before it starts", "gsub_val.json", `{"4882821564": {"duration": 90, "location": {"1": [[17.1, 12.1]]}}}`, 1, "1", "start <= end"},
		{"a path out of the video folder", "map_vid_vidorID.json", "{\"4882821564\": \"1006/4882821564\",\n \"2834146886\": \"../x\"}", 2, "2834146886", "not a path under the video folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			side := writeFile(t, t.TempDir(), c.file, c.body)
			_, err := readAnno(t, NExTGQA(), table, side)
			checkParseError(t, err, side, c.line, c.field, c.want)
		})
	}
}

func TestNExTGQADetectsItsFilesOnly(t *testing.T) {
	t.Parallel()
	checkAuto(t, []autoCase{
		{"val.csv", nextGQATable, "nextgqa"},
		{"gsub_val.json", nextGQASpansFile, "nextgqa"},
		{"map_vid_vidorID.json", nextGQAMapFile, "nextgqa"},
		{"val.csv", "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4\n", "nextqa"},
	})
}

func FuzzNExTGQA(f *testing.F) {
	fuzzAnno(f, NExTGQA(), "val.csv", nextGQATable, "video_id,question,answer,qid,a0,a1\n1,q,x,0,x,\n")
}
