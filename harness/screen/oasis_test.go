package screen

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The consensus rule, ported from the authors' evaluate_test
// (Video-Oasis aggregate_results.py): per test, a model counts when its
// parsed answer equals the gold; a test is "incomplete" (never a shortcut)
// unless every one of its models answered; positive when at least c
// answered correctly. The project's variant (RuleSolve) counts the Video-Index
// solve rule instead (right with a margin above log 2). Two tests: blind
// (blind-reader) and centre frame (centre-frame-reader and the image
// tower), gold 0 of four options.
//
//	item  blind-reader    cfr             centre-frame  correct rule   solve rule
//	h1    right, 0.3      wrong           wrong         blind 1 -> c1  0
//	h2    wrong           right, 2        right         centre 2 -> c2 centre 2
//	h3    wrong           not scored      right         centre incomplete: 0
//	h4    wrong           abstained (0)   right         centre incomplete: 0
//	h5    right, 1        right, 0.5      wrong         blind 1, centre 1  blind 1, centre 0
func TestConsensusRuleAndCompleteness(t *testing.T) {
	t.Parallel()
	atts := []Attacker{{Name: br, Level: "text"}, {Name: cfr, Level: "frame"}, {Name: "centre-frame", Level: "frame"}}
	row := func(id string, vs ...Verdict) Row {
		return Row{ID: id, Benchmark: "A", Video: id, Options: []string{"w", "x", "y", "z"}, Cluster: -1, Quality: []string{}, Embedding: -1, Verdicts: vs}
	}
	in := &Input{Run: "rule", Attackers: atts, Rows: []Row{
		row("h1", v(br, true, false, 0, 0.3), v(cfr, true, false, 1, -1), v("centre-frame", true, false, 1, 0)),
		row("h2", v(br, true, false, 1, -1), v(cfr, true, false, 0, 2), v("centre-frame", true, false, 0, 0)),
		row("h3", v(br, true, false, 1, -1), v(cfr, false, false, -1, math.NaN()), v("centre-frame", true, false, 0, 0)),
		row("h4", v(br, true, false, 1, -1), v(cfr, true, true, 0, 0), v("centre-frame", true, false, 0, 0)),
		row("h5", v(br, true, false, 0, 1), v(cfr, true, false, 0, 0.5), v("centre-frame", true, false, 1, 0)),
	}}
	for _, tt := range []struct {
		rule      string
		diag      []int32
		shortcuts []int
		counts    []TestCount
	}{
		{RuleCorrect, []int32{1, 2, 0, 0, 1}, []int{3, 1, 0}, []TestCount{
			{TestBlind, []int{2, 0, 0}, []int{1, 0, 0}},
			{TestCentreFrame, []int{2, 1, 0}, []int{1, 1, 0}},
		}},
		{RuleSolve, []int32{0, 2, 0, 0, 1}, []int{2, 1, 0}, []TestCount{
			{TestBlind, []int{1, 0, 0}, []int{1, 0, 0}},
			{TestCentreFrame, []int{1, 1, 0}, []int{1, 1, 0}},
		}},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			t.Parallel()
			s, err := Compute(in, Options{ConsensusRule: tt.rule})
			if err != nil {
				t.Fatal(err)
			}
			var diag []int32
			for _, r := range s.Rows {
				diag = append(diag, r.Diagnostics)
			}
			if !slices.Equal(diag, tt.diag) {
				t.Errorf("diagnostics %v, want %v", diag, tt.diag)
			}
			c := s.Consensus
			if c.Rule != tt.rule || !slices.Equal(c.Benchmarks[0].Shortcuts, tt.shortcuts) {
				t.Errorf("rule %q shortcuts %v, want %q %v", c.Rule, c.Benchmarks[0].Shortcuts, tt.rule, tt.shortcuts)
			}
			if !reflect.DeepEqual(c.Counts, tt.counts) {
				t.Errorf("counts %+v, want %+v", c.Counts, tt.counts)
			}
		})
	}
	if _, err := Compute(in, Options{ConsensusRule: "margin"}); err == nil || !strings.Contains(err.Error(), "consensus-rule") {
		t.Errorf("an unknown rule: err %v, want one naming consensus-rule", err)
	}
}

// The consistency check, ported from the authors' run_consistency (rule
// "maximal-disagreement", their default): complete (every model
// answered) and len(votes) == min(options, models).
func TestMaximalDisagreement(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		options int
		choices []int32 // -1: no answer
		want    bool
	}{
		{"five on four options cover all four", 4, []int32{0, 1, 2, 3, 0}, true},
		{"five on four options, three distinct", 4, []int32{0, 1, 2, 0, 0}, false},
		{"five on five options, all different", 5, []int32{0, 1, 2, 3, 4}, true},
		{"five on five options, four distinct", 5, []int32{0, 1, 2, 3, 3}, false},
		{"five on six options, all different", 6, []int32{5, 1, 2, 3, 4}, true},
		{"one model did not answer", 4, []int32{0, 1, 2, 3, -1}, false},
		{"three on four options, all different", 4, []int32{0, 1, 2}, true},
		{"three on four options, two agree", 4, []int32{0, 1, 1}, false},
		{"two on two options", 2, []int32{0, 1}, true},
		{"two agreeing", 2, []int32{1, 1}, false},
		{"one model: not run", 4, []int32{2}, false},
	} {
		r := Row{Options: make([]string, tt.options)}
		var models []int
		for k, c := range tt.choices {
			r.Verdicts = append(r.Verdicts, Verdict{Scored: c >= 0, Choice: c, Correct: c == 0})
			models = append(models, k)
		}
		if got := maximalDisagreement(&r, models); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The consistency check runs over the full-video readers of the run (one
// per vlm_reader entry) and says so; with one it does not run.
func TestConsistencyOverTheFullVideoReaders(t *testing.T) {
	t.Parallel()
	fv := []string{"full-video-reader", "full-video-reader#2", "full-video-reader#3"}
	atts := []Attacker{{Name: fv[0], Level: "order"}, {Name: fv[1], Level: "order"}, {Name: fv[2], Level: "order"}}
	row := func(id string, cs ...int32) Row {
		r := Row{ID: id, Benchmark: "A", Video: id, Options: []string{"w", "x", "y", "z"}, Cluster: -1, Quality: []string{}, Embedding: -1}
		for k, c := range cs {
			r.Verdicts = append(r.Verdicts, v(fv[k], true, false, c, -1))
		}
		return r
	}
	in := &Input{Run: "consistency", Attackers: atts, Rows: []Row{row("x1", 0, 1, 2), row("x2", 0, 1, 1)}}
	s, err := Compute(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Rows[0].Consistency || s.Rows[1].Consistency {
		t.Errorf("consistency %v, %v; want true, false", s.Rows[0].Consistency, s.Rows[1].Consistency)
	}
	ck := s.Consensus.Checks[0]
	if ck.Check != "consistency" || !slices.Equal(ck.Attackers, fv) || !strings.Contains(ck.Note, "3 models where the paper compares five") {
		t.Errorf("check %+v", ck)
	}
	s, err = Compute(in, Options{Consistency: fv[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows[0].Consistency || !strings.HasPrefix(s.Consensus.Checks[0].Note, "not run") {
		t.Errorf("one model: consistency %v, note %q", s.Rows[0].Consistency, s.Consensus.Checks[0].Note)
	}
	if red := s.Consensus.Checks[1]; !strings.HasPrefix(red.Note, "not run: the run has no "+ChunkReader) {
		t.Errorf("redundancy without the chunk reader: %+v", red)
	}
}

// The sensitivity review, as the authors' sensitivity.py queue and
// aggregate_results.py --sensitivity-restore: the queue lists the items
// the shuffled frames answer, a person marks some restored, and the
// frame-shuffling test no longer makes those shortcuts (status
// "restored"), while the other tests still may.
func TestSensitivityReviewRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := Compute(consensusFixture(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, SensitivityJSONL))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"id":"c2"`) || !strings.Contains(lines[0], `"reason":"answered correctly with the frames shuffled by shuffled-frames-reader"`) || !strings.Contains(lines[0], `"decision":""`) {
		t.Fatalf("queue %q, want c2 alone, undecided", b)
	}
	review := filepath.Join(dir, "review.jsonl")
	if err := os.WriteFile(review, []byte(strings.Replace(lines[0], `"decision":""`, `"decision":"restore"`, 1)+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refs, err := ReadRestore(review)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(refs, []ItemRef{{"A", "c2"}}) {
		t.Fatalf("restored %v, want A/c2", refs)
	}
	r, err := Compute(consensusFixture(), Options{Restored: refs})
	if err != nil {
		t.Fatal(err)
	}
	c2 := r.Rows[1]
	if !c2.Restored || !c2.Sensitivity || c2.Diagnostics != 1 {
		t.Errorf("c2: restored %v sensitivity %v diagnostics %d; want true, true, 1 (the blind test still)", c2.Restored, c2.Sensitivity, c2.Diagnostics)
	}
	// c2 was the frame-shuffling test's one shortcut; restored, it is
	// the blind test's alone (unique now).
	want := []TestCount{
		{TestBlind, []int{1, 0, 0}, []int{1, 0, 0}},
		{TestCentreFrame, []int{1, 1, 0}, []int{1, 1, 0}},
		{TestFrameShuffling, []int{0, 0, 0}, []int{0, 0, 0}},
		{TestBagOfFrames, []int{1, 0, 0}, []int{1, 0, 0}},
	}
	if !reflect.DeepEqual(r.Consensus.Counts, want) || r.Consensus.Ambiguity.Restored != 1 {
		t.Errorf("counts %+v restored %d; want %+v, 1", r.Consensus.Counts, r.Consensus.Ambiguity.Restored, want)
	}
	if _, err := Compute(consensusFixture(), Options{Restored: []ItemRef{{"A", "nope"}}}); err == nil || !strings.Contains(err.Error(), "A/nope") {
		t.Errorf("an unknown restored item: err %v", err)
	}
	for _, bad := range []struct{ text, want string }{
		{`{"benchmark":"A","id":"c2","decision":"maybe"}`, ":1: field decision"},
		{"\n" + `{"id":"c2"}`, ":2: field benchmark"},
		{`{"benchmark":"A","id":"c2","decision":"restore"}` + "\n" + `{"benchmark":"A","id":"c2","decision":"keep"}`, ":2: item A/c2 decided twice"},
		{`{"benchmark":`, ":1:"},
	} {
		path := filepath.Join(t.TempDir(), "bad.jsonl")
		if err := os.WriteFile(path, []byte(bad.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRestore(path); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err %v, want %q", bad.text, err, bad.want)
		}
	}
}

// The mean margin over the seeded orders skips an order without one, as
// the authors' text_step_result averages the margins it has.
func TestMeanOrderMargin(t *testing.T) {
	t.Parallel()
	col := func(xs ...float64) [][]float64 {
		var out [][]float64
		for _, x := range xs {
			out = append(out, []float64{x})
		}
		return out
	}
	nan := math.NaN()
	if m := meanOrderMargin(col(3, 1, 2, nan), 0); m == nil || *m != 2 {
		t.Errorf("3, 1, 2, none: %v, want 2", m)
	}
	if m := meanOrderMargin(col(1, 1, 1, 1, 9), 0); m == nil || *m != 1 {
		t.Errorf("a fifth order: %v, want 1 (the first four)", m)
	}
	if m := meanOrderMargin(col(nan, nan), 0); m != nil {
		t.Errorf("no margin: %v, want nil", *m)
	}
}
