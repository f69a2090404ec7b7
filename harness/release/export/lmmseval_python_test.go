package export

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/answer"
)

// runPython runs script with python3 in dir (the exported task directory on
// its import path) and decodes what it prints as JSON into out.
func runPython(t *testing.T, dir, script string, out any, args ...string) {
	t.Helper()
	py := python(t)
	f := filepath.Join(t.TempDir(), "check.py")
	head := "import json, math, sys\nsys.path.insert(0, sys.argv[1])\n"
	if strings.Contains(script, "utils.") {
		head += "import utils\n"
	}
	if err := os.WriteFile(f, []byte(head+script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, append([]string{"-B", f, dir}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	b, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("python3: %v\n%s", err, stderr)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("python3 printed %q: %v", b, err)
	}
}

func TestLMMSEvalUtilsCompiles(t *testing.T) {
	t.Parallel()
	py := python(t)
	dir := t.TempDir()
	exportTo(t, dir)
	cmd := exec.Command(py, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
		filepath.Join(dir, UtilsFile), filepath.Join(t.TempDir(), "utils.pyc"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("py_compile utils.py: %v\n%s", err, out)
	}
}

// TestLMMSEvalScoring runs utils.py's functions as lmms-eval calls them on
// the exported documents: the prompts, the targets, the blind documents,
// process_results on replies of every kind, and the per-group accuracies.
func TestLMMSEvalScoring(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exportTo(t, dir)
	r := testRelease(t)
	// Replies to the video task: right by letter, wrong, unreadable, right
	// by "the answer is", right by the option's text.
	video := []string{"B", "A. The closet/cabinet.", "!!!!!!!!", "The answer is (D).", "sewing"}
	wantRight := []bool{true, false, false, true, true}
	var got struct {
		Texts        []string           `json:"texts"`
		Targets      []string           `json:"targets"`
		Blind        [][]int            `json:"blind_orders"`
		BlindIndex   []int              `json:"blind_index"`
		BlindTargets []string           `json:"blind_targets"`
		BlindTexts   []string           `json:"blind_texts"`
		Video        map[string]float64 `json:"video"`
		BlindAcc     map[string]float64 `json:"blind"`
		Records      []map[string]any   `json:"records"`
		Keys         [][]string         `json:"keys"`
		Empty        string             `json:"empty"`
	}
	replies, _ := json.Marshal(video)
	runPython(t, dir, fmt.Sprintf(`
docs = [json.loads(l) for l in open(sys.argv[1] + "/dataset.jsonl", encoding="utf-8")]
kw = {"intro": "INTRO", "post_prompt": "POST"}
cols = {k: [d[k] for d in docs] for k in docs[0]}
b = utils.expand_blind(cols)
blind = [dict(zip(b, vals)) for vals in zip(*b.values())]
replies = json.loads(%q)
recs = [utils.process_results(d, [r]) for d, r in zip(docs, replies)]
# blind: right only under each item's first order
brecs = [utils.process_results(d, [utils.doc_to_target(d) if d["order_index"] == 0 else "I cannot tell"]) for d in blind]
agg = lambda rs: {m: getattr(utils, "aggregate_" + m)([r[m] for r in rs]) for m in utils.METRICS}
print(json.dumps({
  "texts": [utils.doc_to_text(d, kw) for d in docs],
  "targets": [utils.doc_to_target(d) for d in docs],
  "blind_orders": [d["order"] for d in blind],
  "blind_index": [d["order_index"] for d in blind],
  "blind_targets": [utils.doc_to_target(d) for d in blind],
  "blind_texts": [utils.doc_to_text(d, kw) for d in blind],
  "video": agg(recs), "blind": agg(brecs),
  "records": [r["accuracy"] for r in recs],
  "keys": [sorted(r) for r in recs],
  "empty": repr(utils.aggregate_accuracy_reasoning([])),
}))
`, string(replies)), &got)

	for k, it := range r.Items {
		want := "INTRO\n\n" + it.Question
		for j, o := range it.Options {
			want += "\n" + answer.Letter(j) + ". " + o
		}
		want += "\nPOST"
		if got.Texts[k] != want {
			t.Errorf("item %s: prompt\n%q\nwant\n%q", it.ID, got.Texts[k], want)
		}
		if got.Targets[k] != answer.Letter(it.Answer) {
			t.Errorf("item %s: target %s, want %s", it.ID, got.Targets[k], answer.Letter(it.Answer))
		}
		rec := got.Records[k]
		if rec["question_id"] != it.ID || rec["video"] != it.Video || rec["group"] != it.Group || rec["answer"] != answer.Letter(it.Answer) || (rec["score"] == 1.0) != wantRight[k] {
			t.Errorf("item %s: record %v for reply %q", it.ID, rec, video[k])
		}
		if !slices.Equal(got.Keys[k], []string{"accuracy", "accuracy_perception", "accuracy_reasoning", "accuracy_temporal"}) {
			t.Errorf("item %s: process_results keys %v", it.ID, got.Keys[k])
		}
	}
	if got.Records[2]["pred_answer"] != "" || got.Records[0]["pred_answer"] != "B" {
		t.Errorf("replies read as %v and %v, want B and nothing", got.Records[0]["pred_answer"], got.Records[2]["pred_answer"])
	}
	// Blind: BlindOrders documents per item, in the exported orders, the
	// target the gold's letter as shown.
	if len(got.Blind) != BlindOrders*len(r.Items) {
		t.Fatalf("%d blind documents, want %d", len(got.Blind), BlindOrders*len(r.Items))
	}
	for k, it := range r.Items {
		orders := blindOrders(7, it.ID, len(it.Options))
		for o := range BlindOrders {
			d := k*BlindOrders + o
			if got.BlindIndex[d] != o || !slices.Equal(got.Blind[d], orders[o]) {
				t.Errorf("item %s order %d: %v (index %d), want %v", it.ID, o, got.Blind[d], got.BlindIndex[d], orders[o])
			}
			shown := answer.Letter(slices.Index(orders[o], it.Answer))
			if got.BlindTargets[d] != shown || !strings.Contains(got.BlindTexts[d], "\n"+shown+". "+it.Options[it.Answer]+"\n") {
				t.Errorf("item %s order %d: target %s, want %s", it.ID, o, got.BlindTargets[d], shown)
			}
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	wantVideo := map[string]float64{"accuracy": 60, "accuracy_perception": 50, "accuracy_reasoning": 100, "accuracy_temporal": 0}
	wantBlind := map[string]float64{"accuracy": 25, "accuracy_perception": 25, "accuracy_reasoning": 25, "accuracy_temporal": 25}
	for m, w := range wantVideo {
		if !near(got.Video[m], w) {
			t.Errorf("video %s = %v, want %v", m, got.Video[m], w)
		}
		if !near(got.BlindAcc[m], wantBlind[m]) {
			t.Errorf("blind %s = %v, want %v (each item's four orders averaged first)", m, got.BlindAcc[m], wantBlind[m])
		}
	}
	if got.Empty != "nan" {
		t.Errorf("a group without items aggregates to %s, want nan", got.Empty)
	}
}

// TestLMMSEvalParseAgreesWithVidscreen: utils.py reads a reply as package
// answer does, so lmms-eval's accuracy is vidscreen's on the same replies.
func TestLMMSEvalParseAgreesWithVidscreen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exportTo(t, dir)
	opts := [][]string{
		{"a red cup", "a knife", "the phone", "a red cup holder"},
		{"3", "2", "5"},
		{"Yes", "No"},
		{"A. left", "B. right", "C. centre"},
		{"à gauche", "à droite", "au centre", "en haut"},
	}
	replies := []string{
		"B", "b", "(C) the phone", "C.", "[D]", "A man picks up the phone", "A", "A.", "I think it is C", "I", "I.",
		"The answer is B. Wait, the answer is C", "answer: (d)", "Option B", "choice-A", "the phone", "THE PHONE!",
		"a red cup", "red cup", "he picks a red cup holder", "2", "(3)", "17", "0", "", "   ", "!!!!!!!!",
		"Yes", "no.", "yes, and no", "à droite", "À DROITE", "right", "E", "P", "answer is Q", "\tB\n",
		"The correct choice is B)", "B) a knife", "Answer: I", "it is A or B",
	}
	type pair struct {
		Reply   string   `json:"reply"`
		Options []string `json:"options"`
	}
	var cases []pair
	for _, o := range opts {
		for _, r := range replies {
			cases = append(cases, pair{r, o})
		}
	}
	in, _ := json.Marshal(cases)
	var got []int
	runPython(t, dir, fmt.Sprintf("cases = json.loads(%q)\nprint(json.dumps([utils.parse_reply(c['reply'], c['options']) for c in cases]))\n", string(in)), &got)
	for i, c := range cases {
		want, _ := answer.Parse(c.Reply, c.Options)
		if got[i] != want {
			t.Errorf("reply %q to %q: utils.py reads %d, vidscreen %d", c.Reply, c.Options, got[i], want)
		}
	}
}

func TestLMMSEvalFrameIndices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exportTo(t, dir)
	every2 := func(from, to int) []int {
		var out []int
		for i := from; i <= to; i += 2 {
			out = append(out, i)
		}
		return out
	}
	cases := []struct {
		Args string `json:"args"`
		want []int
	}{
		{"40, 2.0", every2(0, 38)}, // 20 s at 2 fps: one frame a second
		{"40, 2.0, None, None, 1.0, 8", []int{0, 4, 10, 16, 20, 26, 32, 38}}, // 8 of the 20, first and last kept
		{"40, 2.0, 5.0, 8.5", []int{10, 12, 14, 16}},                         // the clip's seconds 5 to 8
		{"10, 0.5", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},                     // stored below 1 fps: every frame
		{"40, 2.0, None, None, 1.0, 1", []int{20}},                           // one frame: the middle one
		{"40, 2.0, 30.0, 35.0", []int{39}},                                   // bounds past the end: the last frame
		{"0, 25.0", nil},
		{"100, 25.0, None, None, 1.0, 512", []int{0, 25, 50, 75}},
	}
	var calls []string
	for _, c := range cases {
		calls = append(calls, "utils.frame_indices("+c.Args+")")
	}
	var got [][]int
	runPython(t, dir, "print(json.dumps(["+strings.Join(calls, ", ")+"]))\n", &got)
	for i, c := range cases {
		if !slices.Equal(got[i], c.want) {
			t.Errorf("frame_indices(%s) = %v, want %v", c.Args, got[i], c.want)
		}
	}
}

func TestLMMSEvalVideoFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exportTo(t, dir)
	root := t.TempDir()
	for _, f := range []string{"nextqa/4010069381.mp4", "6H78U.webm"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	runPython(t, dir, `
docs = [json.loads(l) for l in open(sys.argv[1] + "/dataset.jsonl", encoding="utf-8")]
env = {"VIDSCREEN_VIDEOS": sys.argv[2]}
out = []
for d in docs[:3] + [dict(docs[0], video_path="../escape.mp4")]:
    try:
        out.append(utils.video_file(d, env))
    except (FileNotFoundError, ValueError) as e:
        out.append(type(e).__name__)
try:
    utils.video_file(docs[0], {})
except RuntimeError as e:
    out.append("unset" if "VIDSCREEN_VIDEOS" in str(e) else str(e))
print(json.dumps(out))
`, &got, root)
	want := []string{
		filepath.Join(real, "nextqa/4010069381.mp4"), // video_path
		filepath.Join(real, "6H78U.webm"),            // video, an extension tried
		"FileNotFoundError",                          // no such file
		"ValueError",                                 // a path out of the root
		"unset",
	}
	if !slices.Equal(got, want) {
		t.Errorf("video files %q, want %q", got, want)
	}
}
