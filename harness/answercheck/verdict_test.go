package answercheck

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// TestKeepByHand ports the authors' keep_rule (compose/verify.py) case by
// case: supported keeps; not_verifiable keeps on a video of at least 60 s
// (59.9 s and an unknown duration drop, 60 s exactly keeps); contradicted,
// definition_dependent and no verdict drop.
func TestKeepByHand(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, tt := range []struct {
		verdict string
		seconds float64
		keep    bool
		reason  string
	}{
		{Supported, 10, true, "supported"},
		{Supported, nan, true, "supported"},
		{NotVerifiable, 60, true, "not_verifiable_long"},
		{NotVerifiable, 600, true, "not_verifiable_long"},
		{NotVerifiable, 59.9, false, "not_verifiable_short"},
		{NotVerifiable, nan, false, "not_verifiable_short"},
		{Contradicted, 600, false, "contradicted"},
		{DefinitionDependent, 600, false, "definition_dependent"},
		{"", 600, false, "no_verdict"},
	} {
		keep, reason := Keep(tt.verdict, tt.seconds)
		if keep != tt.keep || reason != tt.reason {
			t.Errorf("Keep(%q, %v) = %v, %q; want %v, %q", tt.verdict, tt.seconds, keep, reason, tt.keep, tt.reason)
		}
	}
}

// TestDecideByHand ports final_verdict and annotate: only contradicted and
// not_verifiable are asked again (RECHECK); the recheck's verdict replaces
// the first; a recheck that gave none leaves the first; an ordering
// question is never asked and has no verdict (run_pass skips
// ORDERING_RE), so it drops.
func TestDecideByHand(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "q1", Benchmark: "B", Question: "What does the man do?", Options: []string{"run", "sit"}, Answer: 1}
	order := &harness.Item{ID: "q2", Benchmark: "B", Question: "Please select the correct order of the following options.", Options: []string{"x", "y"}}
	for _, tt := range []struct {
		name          string
		it            *harness.Item
		first, second string
		seconds       float64
		want          Record
	}{
		{"supported at 32 frames, no recheck", it, Supported, Contradicted, 20,
			Record{Benchmark: "B", ID: "q1", Asked: true, First: Supported, Verdict: Supported, Frames: 32, Keep: true, Reason: "supported"}},
		{"contradicted at 32, supported at 512", it, Contradicted, Supported, 20,
			Record{Benchmark: "B", ID: "q1", Asked: true, First: Contradicted, Second: Supported, Verdict: Supported, Frames: 512, Keep: true, Reason: "supported"}},
		{"not verifiable twice on a short video", it, NotVerifiable, NotVerifiable, 30,
			Record{Benchmark: "B", ID: "q1", Asked: true, First: NotVerifiable, Second: NotVerifiable, Verdict: NotVerifiable, Frames: 512, Reason: "not_verifiable_short"}},
		{"not verifiable, then contradicted at 512", it, NotVerifiable, Contradicted, 300,
			Record{Benchmark: "B", ID: "q1", Asked: true, First: NotVerifiable, Second: Contradicted, Verdict: Contradicted, Frames: 512, Reason: "contradicted"}},
		{"contradicted, the recheck gave none", it, Contradicted, "", 300,
			Record{Benchmark: "B", ID: "q1", Asked: true, First: Contradicted, Verdict: Contradicted, Frames: 32, Reason: "contradicted"}},
		{"definition dependent is not rechecked", it, DefinitionDependent, Supported, 300,
			Record{Benchmark: "B", ID: "q1", Asked: true, First: DefinitionDependent, Verdict: DefinitionDependent, Frames: 32, Reason: "definition_dependent"}},
		{"no verdict at 32", it, "", "", 300,
			Record{Benchmark: "B", ID: "q1", Asked: true, Reason: "no_verdict"}},
		{"an ordering question is not asked", order, Supported, "", 300,
			Record{Benchmark: "B", ID: "q2", Reason: "no_verdict"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Decide(tt.it, tt.first, tt.second, tt.seconds); got != tt.want {
				t.Errorf("Decide = %+v\nwant     %+v", got, tt.want)
			}
		})
	}
}

// TestVerdictOf: the favoured letter of A-D names the verdict in the
// order of VERDICTS; a row of another length, or with NaN, gives none.
func TestVerdictOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		scores []float64
		want   string
	}{
		{[]float64{-0.1, -3, -4, -5}, Supported},
		{[]float64{-3, -0.2, -4, -5}, Contradicted},
		{[]float64{-3, -4, -0.3, -5}, NotVerifiable},
		{[]float64{-3, -4, -5, -0.1}, DefinitionDependent},
		{[]float64{-1, -1, -2, -2}, Supported}, // ties: the first
		{[]float64{-1, -2}, ""},
		{nil, ""},
		{[]float64{math.NaN(), -1, -2, -3}, ""},
	} {
		if got := VerdictOf(tt.scores); got != tt.want {
			t.Errorf("VerdictOf(%v) = %q, want %q", tt.scores, got, tt.want)
		}
	}
}

// TestItem: the verifier reads the item's question, its lettered options
// and the marked answer's letter, and answers with one of the four
// verdicts; the item keeps its key and clip.
func TestItem(t *testing.T) {
	t.Parallel()
	start := 3.0
	it := &harness.Item{ID: "q1", Benchmark: "B", Video: "v.mp4", Question: "What is held?", Options: []string{"a cup", "a pen", "a key"}, Answer: 2, Start: &start}
	v := Item(it)
	if v.Key() != it.Key() || v.Video != it.Video || v.Start != it.Start || len(v.Options) != 4 {
		t.Fatalf("verification item %+v: want the item's key, video and clip, and four verdicts", v)
	}
	for _, want := range []string{"Question: What is held?", "\nA. a cup\nB. a pen\nC. a key\n", "Marked answer: C\n"} {
		if !strings.Contains(v.Question, want) {
			t.Errorf("verification question lacks %q:\n%s", want, v.Question)
		}
	}
	for j, o := range v.Options {
		if !strings.HasPrefix(o, Verdicts[j]+":") {
			t.Errorf("option %c %q: want verdict %s first", 'A'+j, o, Verdicts[j])
		}
	}
	if it.Question != "What is held?" || len(it.Options) != 3 {
		t.Error("Item changed the item it was given")
	}
}

// TestReadFile: a file written reads back; a verdict that is none of the
// four is an error naming the file, the record and the field.
func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if f, err := Read(dir); f != nil || err != nil {
		t.Fatalf("Read without the file = %v, %v; want nil, nil", f, err)
	}
	it := &harness.Item{ID: "q1", Benchmark: "B", Question: "Q?", Options: []string{"x", "y"}}
	want := &File{Verifier: "vlm_reader:m", FirstSampler: FirstSampler, RecheckSampler: RecheckSampler, ShortVideoSeconds: ShortVideoSeconds,
		Items: []Record{Decide(it, Contradicted, NotVerifiable, 90)}}
	fh, err := os.Create(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := want.Write(fh); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	got, err := Read(dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, %v; want %+v", got, err, want)
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileName))
	os.WriteFile(filepath.Join(dir, FileName), []byte(strings.Replace(string(b), `"verdict": "not_verifiable"`, `"verdict": "maybe"`, 1)), 0o644)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "items[0] (B/q1): verdict \"maybe\"") {
		t.Errorf("a bad verdict: %v", err)
	}
}
