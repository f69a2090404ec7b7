package formats

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/internal/shareddata"
)

const nextqaHeader = "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4\n"

func TestNExTQARows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	val := writeFile(t, dir, "val.csv", nextqaHeader+
		"4010069381,369,640,480,how do the two man play the instrument,0,6,CH,roll the handle,tap their feet,strum the string,hit with sticks,pat with hand\n"+
		"7508439506,765,640,480,why did the boy put his hands on the baby,0,1,CW,play with baby,to give her food,play,support the baby,fall and pounce on the boy\n"+
		// Two questions of one video; qid 1 is also a question of
		// another video, in test.csv: the ids stay apart.
		"7508439506,765,640,480,where is this video taken,4,4,DL,swimming pool,outdoor,field,desert,bed room\n")
	test := writeFile(t, dir, "test.csv", nextqaHeader+
		`8547321641,327,640,362,"how many babies are in the video, roughly",4,1,DC,kitchen,four,two,three,one`+"\n")
	res, err := readNExTQA(context.Background(), []string{val, test}, items.Options{IndexBase: -1})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID, Video, Task string
		Options         []string
		Gold            int
		Meta            map[string]any
	}
	want := []got{
		{"val/4010069381_6", "4010069381", "CH", []string{"roll the handle", "tap their feet", "strum the string", "hit with sticks", "pat with hand"}, 0, map[string]any{"frame_count": 369, "width": 640, "height": 480}},
		{"val/7508439506_1", "7508439506", "CW", []string{"play with baby", "to give her food", "play", "support the baby", "fall and pounce on the boy"}, 0, map[string]any{"frame_count": 765, "width": 640, "height": 480}},
		{"val/7508439506_4", "7508439506", "DL", []string{"swimming pool", "outdoor", "field", "desert", "bed room"}, 4, map[string]any{"frame_count": 765, "width": 640, "height": 480}},
		{"test/8547321641_1", "8547321641", "DC", []string{"kitchen", "four", "two", "three", "one"}, 4, map[string]any{"frame_count": 327, "width": 640, "height": 362}},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(res.Rows), len(want))
	}
	for i, r := range res.Rows {
		g := got{r.ID, r.Video, r.Task, r.Options, r.GoldIndex, r.Meta}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, g, want[i])
		}
		if r.Benchmark != "NExT-QA" || r.Duration != nil || r.HasPrediction || r.Choice != -1 {
			t.Errorf("row %d: benchmark %q duration %v prediction %v choice %d", i, r.Benchmark, r.Duration, r.HasPrediction, r.Choice)
		}
	}
	if res.Rows[3].Question != "how many babies are in the video, roughly" || res.Rows[3].Source != test+":2" || res.Rows[3].Line != 2 {
		t.Errorf("quoted row: question %q source %q line %d", res.Rows[3].Question, res.Rows[3].Source, res.Rows[3].Line)
	}
	if len(res.Dropped) != 0 {
		t.Errorf("dropped %v", res.Dropped)
	}
}

func TestNExTQAErrors(t *testing.T) {
	t.Parallel()
	row := "4010069381,369,640,480,how do they play,0,6,CH,roll,tap,strum,hit,pat\n"
	checkErrors(t, readNExTQA, "val.csv", []errCase{
		{"gap in option columns", "video,question,answer,qid,type,a0,a1,a3,a4\n4010069381,q,0,6,CH,x,y,z,w\n", 1, "a2", harness.ErrMissingField},
		{"one option column", "video,question,answer,qid,a0\n4010069381,q,0,6,x\n", 1, "a1", harness.ErrMissingField},
		{"no qid column", "video,question,answer,a0,a1\n4010069381,q,0,x,y\n", 1, "qid", harness.ErrMissingField},
		{"empty option cell", nextqaHeader + row + "4010069381,369,640,480,q,0,7,CH,roll,tap,,hit,pat\n", 3, "a2", harness.ErrEmptyField},
		{"answer out of range", nextqaHeader + "4010069381,369,640,480,q,5,6,CH,a,b,c,d,e\n", 2, "answer", harness.ErrAnswerRange},
		{"answer a letter", nextqaHeader + "4010069381,369,640,480,q,B,6,CH,a,b,c,d,e\n", 2, "answer", harness.ErrFieldType},
		{"negative answer", nextqaHeader + "4010069381,369,640,480,q,-1,6,CH,a,b,c,d,e\n", 2, "answer", harness.ErrAnswerRange},
		{"duplicate video and qid", nextqaHeader + row + row, 3, "qid", harness.ErrDuplicateID},
		{"empty question", nextqaHeader + "4010069381,369,640,480,,0,6,CH,a,b,c,d,e\n", 2, "question", harness.ErrEmptyField},
		{"bad frame count", nextqaHeader + "4010069381,many,640,480,q,0,6,CH,a,b,c,d,e\n", 2, "frame_count", harness.ErrFieldType},
		{"short row", nextqaHeader + row + "4010069381,369,640\n", 3, "", harness.ErrSyntax},
		{"duplicate column", "video,question,answer,qid,a0,a1,a0\n", 1, "a0", harness.ErrBadValue},
	})
}

func TestNExTQADetect(t *testing.T) {
	t.Parallel()
	checkDetect(t, detectNExTQA, []detectCase{
		{"val.csv", nextqaHeader, true},
		{"x/test.csv", "\ufeff" + nextqaHeader + "1,2,3", true},
		{"val.tsv", nextqaHeader, false},
		{"star.csv", "question_id,question,video_id,start,end,answer,a0,a1\n", false},
		{"val.csv", "video_id,qid,question,answer\n", false},
	})
}

// TestNExTQASharedData rebuilds NExT-QA's val.csv and test.csv from the
// project's own NExT-QA items (converted from those tables) and checks that
// the import gives back the same ids, videos, questions, options, answers
// and tasks, in order.
func TestNExTQASharedData(t *testing.T) {
	t.Parallel()
	f, err := os.Open(shareddata.Path(t, "nextqa.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []harness.Item
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it harness.Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		want = append(want, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]*csv.Writer{}
	var paths []string
	for _, it := range want {
		split, rest, _ := strings.Cut(it.ID, "/")
		w := files[split]
		if w == nil {
			out, err := os.Create(filepath.Join(dir, split+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			w = csv.NewWriter(out)
			files[split] = w
			paths = append(paths, out.Name())
			w.Write(strings.Split(strings.TrimSpace(nextqaHeader), ","))
		}
		qid := rest[strings.LastIndexByte(rest, '_')+1:]
		rec := append([]string{it.Video, "", "", "", it.Question, strconv.Itoa(it.Answer), qid, it.Task}, it.Options...)
		w.Write(rec)
	}
	for _, w := range files {
		w.Flush()
		if err := w.Error(); err != nil {
			t.Fatal(err)
		}
	}
	res, err := readNExTQA(context.Background(), paths, items.Options{IndexBase: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(res.Rows), len(want))
	}
	for i, r := range res.Rows {
		w := want[i]
		if r.ID != w.ID || r.Video != w.Video || r.Question != w.Question || !reflect.DeepEqual(r.Options, w.Options) || r.GoldIndex != w.Answer || r.Task != w.Task || r.Benchmark != w.Benchmark {
			t.Fatalf("row %d: %+v, want %+v", i, r, w)
		}
	}
}

func FuzzNExTQA(f *testing.F) {
	f.Add([]byte(nextqaHeader + "4010069381,369,640,480,how,0,6,CH,a,b,c,d,e\n"))
	f.Add([]byte("video,question,answer,qid,a0,a1,a3\n1,q,0,1,x,y,z\n"))
	f.Add([]byte(nextqaHeader + "\"unterminated\n"))
	fuzzRead(f, "val.csv", readNExTQA, isChoice)
}

// TestBenchmarkFilesDetectedOnce checks that auto picks these formats for
// their own files among every built-in format.
func TestBenchmarkFilesDetectedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pq := filepath.Join(dir, "videomme", "test-00000-of-00001.parquet")
	if err := os.MkdirAll(filepath.Dir(pq), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(pq, videommeFixture); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{writeFile(t, dir, "val.csv", nextqaHeader+"4010069381,369,640,480,how,0,6,CH,a,b,c,d,e\n"), "nextqa"},
		{writeFile(t, dir, "questions.json", egoQuestions), "egoschema"},
		{writeFile(t, dir, "subset_answers.json", egoAnswers), "egoschema"},
		{writeFile(t, dir, "json/action_sequence.json", mvbenchActionSequence), "mvbench"},
		{writeFile(t, dir, "json/action_count.json", mvbenchActionCount), "mvbench"},
		{writeFile(t, dir, "videomme.json", videommeFlatJSON), "videomme"},
		{writeFile(t, dir, "results.json", videommeResults), "videomme"},
		{pq, "videomme"},
	} {
		head, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(head) > 64<<10 {
			head = head[:64<<10]
		}
		f, err := items.Detect(All(), c.path, head)
		if err != nil || f.Name != c.want {
			t.Errorf("%s: detected %q (%v), want %s", filepath.Base(c.path), f.Name, err, c.want)
		}
	}
}
