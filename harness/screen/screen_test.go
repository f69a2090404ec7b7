package screen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// v is a verdict: attacker, scored, abstained, choice, margin (correct is
// choice == 0, the gold of every fixture item).
func v(att string, scored, abstained bool, choice int32, margin float64) Verdict {
	return Verdict{Attacker: att, Scored: scored, Abstained: abstained, Choice: choice, Correct: choice == 0, Margin: margin}
}

const (
	fp  = "fixed-position"
	br  = "blind-reader"
	sh  = "shuffled-frames-reader"
	ten = "contiguous-tenth-reader"
)

// fixture is a hand-worked run of six items (gold 0 of four options) in two
// benchmarks under four attackers; the expectations of each test are worked
// out in its comments.
func fixture() *Input {
	opts := []string{"w", "x", "y", "z"}
	row := func(id, bench, group string, cluster int32, vs ...Verdict) Row {
		return Row{ID: id, Benchmark: bench, Video: id + ".mp4", Group: group, Question: "q " + id, Options: opts, Cluster: cluster, Quality: []string{}, Verdicts: vs}
	}
	rows := []Row{
		// a1: fixed-position correct; blind-reader margin 1.0 > log 2:
		// two diagnostics solve it, lowest level option.
		row("a1", "A", "temporal", 0, v(fp, true, false, 0, 0.3), v(br, true, false, 0, 1.0), v(sh, true, false, 0, 0.5), v(ten, true, true, 0, 0)),
		// a2: blind-reader correct but margin 0.6 < log 2, not solved;
		// shuffled solves it alone (sensitivity, unique); the tenth's 0.5
		// is below log 2.
		row("a2", "A", "temporal", 1, v(fp, true, false, 1, -0.2), v(br, true, false, 0, 0.6), v(sh, true, false, 0, 2.0), v(ten, true, false, 0, 0.5)),
		// a3: nothing solves it; fixed-position was not scored; the three
		// scored answers 2, 1, 3 have no majority (consistency). It leads
		// the cross-source cluster {a3, b1} and is kept.
		row("a3", "A", "temporal", 2, v(fp, false, false, 0, 0.1), v(br, true, false, 2, -1), v(sh, true, false, 1, -0.5), v(ten, true, false, 3, -2)),
		// b1: nothing solves it, all answer 1; a cross-source duplicate of a3.
		row("b1", "B", "", 2, v(fp, true, false, 1, -1), v(br, true, false, 1, -1), v(sh, true, false, 1, -1), v(ten, true, false, 1, -1)),
		// b2: solved by fixed-position and the blind reader; video failed.
		row("b2", "B", "", 4, v(fp, true, false, 0, 0.4), v(br, true, false, 0, 3), v(sh, true, true, 2, 0), v(ten, true, true, 1, 0)),
		// b3: solved by the tenth alone (redundancy, unique); flagged
		// repeated_option.
		row("b3", "B", "", 5, v(fp, true, false, 2, -0.1), v(br, true, false, 0, 0.2), v(sh, true, false, 0, 0.1), v(ten, true, false, 0, 1.5)),
	}
	rows[4].Failure = "missing"
	rows[5].Quality = []string{"repeated_option"}
	q := kernels.NewMatrix(len(rows), 2)
	for i := range rows {
		rows[i].Embedding = int32(i)
		q.Row(i)[0] = float32(i)
	}
	return &Input{Run: "fixture", Rows: rows, Embeddings: Embeddings{Question: q},
		Attackers: []Attacker{{Name: fp, Level: "option"}, {Name: br, Level: "text"}, {Name: sh, Level: "order"}, {Name: ten, Level: "order"}}}
}

func TestComputeHandWorked(t *testing.T) {
	s, err := Compute(fixture(), Options{DropQuality: []string{"repeated_option"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		solvedBy    []string
		diagnostics int32
		cons, red   bool
		sens        bool
		agreement   float64
		crossDup    bool
		reasons     []string
	}{
		{[]string{fp, br}, 2, false, false, false, 1, false, []string{ReasonSolved}},
		{[]string{sh}, 1, false, false, true, 0.75, false, []string{ReasonSolved}},
		{nil, 0, true, false, false, 1.0 / 3, false, nil},
		{nil, 0, false, false, false, 1, true, []string{ReasonDuplicate}},
		{[]string{fp, br}, 2, false, false, false, 1, false, []string{ReasonSolved, ReasonFailed}},
		{[]string{ten}, 1, false, true, false, 0.75, false, []string{ReasonSolved, ReasonQuality}},
	}
	for i, w := range want {
		r := s.Rows[i]
		if !slices.Equal(r.SolvedBy, w.solvedBy) || r.Diagnostics != w.diagnostics || r.Consistency != w.cons || r.Redundancy != w.red ||
			r.Sensitivity != w.sens || r.Agreement != w.agreement || r.CrossDuplicate != w.crossDup || !slices.Equal(r.Reasons, w.reasons) || r.Kept != (len(w.reasons) == 0) {
			t.Errorf("row %s = solved_by %v diagnostics %d flags %v/%v/%v agreement %v cross %v reasons %v kept %v; want %+v",
				r.ID, r.SolvedBy, r.Diagnostics, r.Consistency, r.Redundancy, r.Sensitivity, r.Agreement, r.CrossDuplicate, r.Reasons, r.Kept, w)
		}
	}
	if got := s.Rows[0].MaxMargin; got != 1.0 {
		t.Errorf("max margin of a1 = %v, want 1 (the blind reader's)", got)
	}
	if got := s.Rows[2].ClusterSize; got != 2 {
		t.Errorf("cluster size of a3 = %d, want 2", got)
	}
	if s.Attackers[0].Rule != RuleCorrect || s.Attackers[1].Rule != RuleMargin {
		t.Errorf("rules %+v", s.Attackers)
	}
	wantSum := []Summary{
		{Benchmark: "A", Items: 3, Screening: []string{fp, br, sh, ten}, Kept: 1, Removed: 2, Solved: 2,
			ByLevel:    []Count{{"option", 1}, {"text", 0}, {"order", 1}},
			ByAttacker: []Count{{fp, 1}, {br, 1}, {sh, 1}, {ten, 0}},
			Chain:      []Count{{"items", 3}, {"after attacks", 1}, {"after cross-source duplicates", 1}, {"after failed videos", 1}, {"after quality flags", 1}}},
		{Benchmark: "B", Items: 3, Screening: []string{fp, br, sh, ten}, Kept: 0, Removed: 3, Solved: 2, Duplicates: 1, Failed: 1, Quality: 1,
			ByLevel:    []Count{{"option", 1}, {"text", 0}, {"order", 1}},
			ByAttacker: []Count{{fp, 1}, {br, 1}, {sh, 0}, {ten, 1}},
			Chain:      []Count{{"items", 3}, {"after attacks", 1}, {"after cross-source duplicates", 0}, {"after failed videos", 0}, {"after quality flags", 0}}},
	}
	if !reflect.DeepEqual(s.Benchmarks, wantSum) {
		t.Errorf("summaries\n %+v\nwant\n %+v", s.Benchmarks, wantSum)
	}
	c := s.Consensus
	wantBench := []struct {
		name  string
		short []int
	}{{"A", []int{2, 1, 0}}, {"B", []int{2, 1, 0}}}
	for k, w := range wantBench {
		if b := c.Benchmarks[k]; b.Name != w.name || b.Items != 3 || !slices.Equal(b.Shortcuts, w.short) {
			t.Errorf("consensus of %s = %+v, want shortcuts %v", w.name, b, w.short)
		}
	}
	if g := c.Groups; len(g) != 2 || g[0].Name != "" || g[1].Name != "temporal" || g[1].Ratio[0] != 2.0/3 {
		t.Errorf("groups %+v", g)
	}
	wantTests := []TestCount{{fp, 2, 0}, {br, 2, 0}, {sh, 1, 1}, {ten, 1, 1}}
	if !slices.Equal(c.Tests, wantTests) {
		t.Errorf("tests %+v, want %+v", c.Tests, wantTests)
	}
	if c.Ambiguity != (Ambiguity{Consistency: 1, Redundancy: 1, Sensitivity: 1, Any: 3}) {
		t.Errorf("ambiguity %+v", c.Ambiguity)
	}
}

func TestComputeOptions(t *testing.T) {
	// The cards find the blind reader significant on A, fixed-position and
	// the tenth on B.
	sig := map[string][]string{"A": {br}, "B": {fp, ten}}
	tests := []struct {
		name string
		opt  Options
		sig  map[string][]string
		kept []string // ids kept
		err  bool
	}{
		{"every attacker screens and no quality flag drops", Options{}, nil, []string{"a3"}, false},
		{"the option level alone screens: the order readers' items stay", Options{Attackers: []string{fp}}, nil, []string{"a2", "a3", "b3"}, false},
		{"an attacker screens only where it is significant: a2 (shuffled alone) stays", Options{}, sig, []string{"a2", "a3"}, false},
		{"every attacker screens everywhere when asked", Options{EveryAttacker: true}, sig, []string{"a3"}, false},
		{"an unknown attacker is refused", Options{Attackers: []string{"oracle"}}, nil, nil, true},
		{"an unknown quality flag is refused", Options{DropQuality: []string{"blurry"}}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fixture()
			in.Significant = tt.sig
			s, err := Compute(in, tt.opt)
			if tt.err {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, r := range s.Rows {
				if r.Kept {
					kept = append(kept, r.ID)
				}
			}
			if !slices.Equal(kept, tt.kept) {
				t.Errorf("kept %v, want %v", kept, tt.kept)
			}
		})
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	s, err := Compute(fixture(), Options{DropQuality: []string{"repeated_option"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Rows, s.Rows) {
		t.Errorf("rows read back differ:\n%+v\nwant\n%+v", got.Rows, s.Rows)
	}
	if !reflect.DeepEqual(got.Benchmarks, s.Benchmarks) || !reflect.DeepEqual(got.Consensus, s.Consensus) || !reflect.DeepEqual(got.Attackers, s.Attackers) || !reflect.DeepEqual(got.Options, s.Options) {
		t.Error("screen.json read back differs")
	}
	if got.Embeddings.Question == nil || !slices.Equal(got.Embeddings.Question.Data, s.Embeddings.Question.Data) || got.Embeddings.CentreFrame != nil {
		t.Errorf("embeddings read back: %+v", got.Embeddings)
	}
	// The same screen written again gives the same bytes.
	dir2 := t.TempDir()
	if err := s.Write(dir2); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ScreenParquet, AmbiguityParquet, ScreenJSON, ScreenMarkdown, ScreenHTML, QuestionNPY} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(dir2, name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: empty or not byte-identical across writes", name)
		}
	}
	for _, name := range []string{ScreenMarkdown, ScreenJSON} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		golden(t, name, b)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./harness/screen -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s; if the change is intended, run go test ./harness/screen -update and review the diff", name, path)
	}
}
