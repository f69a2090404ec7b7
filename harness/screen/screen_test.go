package screen

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/solve"
	"github.com/vidscreen/vidscreen/kernels"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// v is a verdict: attacker, scored, abstained, choice, margin (correct is
// choice == 0, the gold of every fixture item).
func v(att string, scored, abstained bool, choice int32, margin float64) Verdict {
	return Verdict{Attacker: att, Scored: scored, Abstained: abstained, Choice: choice, Correct: choice == 0, Margin: margin}
}

const (
	or  = "options-reader"
	fp  = "fixed-position"
	br  = "blind-reader"
	cfr = "centre-frame-reader"
	sh  = "shuffled-frames-reader"
	ten = "contiguous-tenth-reader"
)

// fixture is a hand-worked run of eleven items (gold 0 of four options) in
// two benchmarks under six attackers; every verdict not named is scored and
// wrong (choice 1, margin -1). What the funnel does with each item is
// worked out beside it.
func fixture() *Input {
	atts := []Attacker{{Name: or, Level: "option"}, {Name: fp, Level: "option"}, {Name: br, Level: "text"},
		{Name: cfr, Level: "frame"}, {Name: sh, Level: "order"}, {Name: ten, Level: "order"}}
	type item struct {
		id, bench, video string
		emb              []float32
		set              []Verdict
		orders           []int32 // options-reader's choices on the seeded orders 1-4; nil: as on the original
	}
	items := []item{
		// a1: the options reader answers it on three of its four seeded
		// orders, margin 2 > log 2 (the run kept no margins of the orders:
		// the original's stands); the blind reader solves it too. Removed
		// by options-reader, the earlier step.
		{"a1", "A", "v1", nil, []Verdict{v(or, true, false, 0, 2), v(br, true, false, 0, 1)}, []int32{0, 0, 1, 0}},
		// a2: the options reader chose option 2 while giving the gold a
		// margin of 5.8 (wrong: not solved, the defect of issue 20); the
		// blind reader abstained (a seeded guess of the gold: not
		// solved); the centre-frame reader is right at margin 0.5 < log 2.
		// Kept.
		{"a2", "A", "v2", []float32{1, 0, 0}, []Verdict{v(or, true, false, 2, 5.8), v(br, true, true, 0, 3), v(cfr, true, false, 0, 0.5)}, nil},
		// a4 and a3: one video, question+options cosine 0.995 > 0.90: a
		// duplicate pair, and a3, the smaller id, stays though a4 comes
		// first. a3 goes later to the centre-frame reader (margin 1).
		{"a4", "A", "v3", []float32{0, 0.99, 0.1}, []Verdict{v(cfr, true, false, 0, 1)}, nil},
		{"a3", "A", "v3", []float32{0, 1, 0}, []Verdict{v(cfr, true, false, 0, 1)}, nil},
		// a5: a meta option: the option-format step removes it before the
		// options reader, which solves it too.
		{"a5", "A", "v5", nil, []Verdict{v(or, true, false, 0, 2)}, nil},
		// a6: its video failed: the text steps do not remove it, so it is
		// pending at the first step that reads the video.
		{"a6", "A", "v6", nil, []Verdict{v(cfr, false, false, -1, 0), v(sh, false, false, -1, 0), v(ten, false, false, -1, 0)}, nil},
		// a7: fixed-position (a learner) is right; it does not screen by
		// default. Kept.
		{"a7", "A", "v7", nil, []Verdict{v(fp, true, false, 0, 0)}, nil},
		// b1: the same video as a2 by content (another path), cosine 0.951
		// >= 0.90: a cross-benchmark duplicate, and A, the earlier
		// benchmark, keeps a2.
		{"b1", "B", "v2", []float32{0.95, 0.31, 0}, nil, nil},
		// b2: the shuffled-frames reader solves it (margin 2). Removed by it.
		{"b2", "B", "v8", nil, []Verdict{v(sh, true, false, 0, 2)}, nil},
		// b3: the options reader is right on the original order with
		// margin 2 but on only one of its four seeded orders: not solved.
		// The tenth solves it, but it does not screen. Kept.
		{"b3", "B", "v9", nil, []Verdict{v(or, true, false, 0, 2), v(ten, true, false, 0, 2)}, []int32{1, 2, 0, 3}},
		// b4: fixed-position is right. Kept by default.
		{"b4", "B", "v10", nil, []Verdict{v(fp, true, false, 0, 0)}, nil},
	}
	in := &Input{Run: "fixture", Attackers: atts, Orders: map[string][][]int32{or: {nil, nil, nil, nil}}}
	q := kernels.NewMatrix(len(items), 3)
	for i, it := range items {
		r := Row{ID: it.id, Benchmark: it.bench, Video: it.id + ".mp4", VideoID: it.video, Group: "g" + it.bench, Question: "q " + it.id,
			Options: []string{"w", "x", "y", "z"}, Cluster: -1, Quality: []string{}, Embedding: int32(i)}
		for _, a := range atts {
			x := v(a.Name, true, false, 1, -1)
			for _, w := range it.set {
				if w.Attacker == a.Name {
					x = w
				}
			}
			r.Verdicts = append(r.Verdicts, x)
		}
		emb := it.emb
		if emb == nil {
			emb = []float32{0, 0, 1}
		}
		copy(q.Row(i), emb)
		orders := it.orders
		if orders == nil {
			c := r.Verdicts[0].Choice
			orders = []int32{c, c, c, c}
		}
		for o := range 4 {
			in.Orders[or][o] = append(in.Orders[or][o], orders[o])
		}
		in.Rows = append(in.Rows, r)
	}
	in.Rows[4].Options[3], in.Rows[4].Quality = "None of the above", []string{"meta_option"}
	in.Rows[5].Failure = "missing"
	in.Embeddings = Embeddings{Question: q, Text: q}
	return in
}

func TestFunnelHandWorked(t *testing.T) {
	t.Parallel()
	s, err := Compute(fixture(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantFunnel := []string{StepDuplicate, StepOptionFormat, or, br, cfr, sh, StepCrossDuplicate}
	if !slices.Equal(s.Funnel, wantFunnel) {
		t.Errorf("funnel %v, want %v", s.Funnel, wantFunnel)
	}
	want := []struct {
		id          string
		solvedBy    []string
		removedBy   string
		duplicateOf string
		pending     string
	}{
		{"a1", []string{or, br}, or, "", ""},
		{"a2", []string{}, "", "", ""},
		{"a4", []string{cfr}, StepDuplicate, "a3", ""},
		{"a3", []string{cfr}, cfr, "", ""},
		{"a5", []string{or}, StepOptionFormat, "", ""},
		{"a6", []string{}, "", "", cfr},
		{"a7", []string{}, "", "", ""},
		{"b1", []string{}, StepCrossDuplicate, "A/a2", ""},
		{"b2", []string{sh}, sh, "", ""},
		{"b3", []string{}, "", "", ""},
		{"b4", []string{}, "", "", ""},
	}
	for i, w := range want {
		r := s.Rows[i]
		kept := w.removedBy == "" && w.pending == ""
		if r.ID != w.id || !slices.Equal(r.SolvedBy, w.solvedBy) || r.RemovedBy != w.removedBy || r.DuplicateOf != w.duplicateOf || r.Pending != w.pending || r.Kept != kept {
			t.Errorf("row %s: solved_by %v removed_by %q duplicate_of %q pending %q kept %v; want %+v", r.ID, r.SolvedBy, r.RemovedBy, r.DuplicateOf, r.Pending, r.Kept, w)
		}
	}
	if a, b := s.Rows[0].Verdict(or), s.Rows[9].Verdict(or); a.Orders != 4 || a.OrdersCorrect != 3 || b.OrdersCorrect != 1 || b.Solved {
		t.Errorf("options-reader orders: a1 %+v, b3 %+v; want 3 and 1 of 4 seeded orders correct, b3 not solved", a, b)
	}
	if s.Attackers[0].Rule != solve.Confident.String() || s.Attackers[0].Orders != 4 || s.Attackers[1].Rule != solve.Correct.String() || s.Attackers[2].Orders != 1 {
		t.Errorf("rules %+v", s.Attackers)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "full-video-reader") {
		t.Errorf("notes %q; want one naming the missing full-video-reader", s.Notes)
	}
	steps := func(counts ...[4]int) []Step {
		var out []Step
		for k, c := range counts {
			out = append(out, Step{Name: wantFunnel[k], Entering: c[0], Removed: c[1], Pending: c[2]})
		}
		return out
	}
	wantSum := []Summary{
		{Benchmark: "A", Items: 7, Screening: []string{or, br, cfr, sh}, Kept: 2, Removed: 4, Pending: 1,
			Funnel:     steps([4]int{7, 1, 0}, [4]int{6, 1, 0}, [4]int{5, 1, 0}, [4]int{4, 0, 0}, [4]int{4, 1, 1}, [4]int{2, 0, 0}, [4]int{2, 0, 0}),
			ByAttacker: []Count{{or, 2}, {br, 1}, {cfr, 2}, {sh, 0}}},
		{Benchmark: "B", Items: 4, Screening: []string{or, br, cfr, sh}, Kept: 2, Removed: 2,
			Funnel:     steps([4]int{4, 0, 0}, [4]int{4, 0, 0}, [4]int{4, 0, 0}, [4]int{4, 0, 0}, [4]int{4, 0, 0}, [4]int{4, 1, 0}, [4]int{3, 1, 0}),
			ByAttacker: []Count{{or, 0}, {br, 0}, {cfr, 0}, {sh, 1}}},
	}
	if !reflect.DeepEqual(s.Benchmarks, wantSum) {
		t.Errorf("summaries\n %+v\nwant\n %+v", s.Benchmarks, wantSum)
	}
}

// TestJudge: three readers on one item, one right with a margin above log
// 2, one wrong with a big gold margin, one abstaining; and the text
// readers' four orders.
func TestJudge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		v       Verdict
		rule    solve.Rule
		orders  []int32   // choices on the seeded orders 1-4
		margins []float64 // margins on orders 1-4; nil: the cache kept none
		solved  bool
		right   int32
	}{
		{"right, margin 1.2 > log 2", v(br, true, false, 0, 1.2), solve.Confident, nil, nil, true, 1},
		{"right, margin 0.6 < log 2", v(br, true, false, 0, 0.6), solve.Confident, nil, nil, false, 1},
		{"wrong with a gold margin of 5.8", v(br, true, false, 2, 5.8), solve.Confident, nil, nil, false, 0},
		{"abstaining on the gold", v(br, true, true, 0, 3), solve.Confident, nil, nil, false, 0},
		{"not scored", v(br, false, false, 0, 3), solve.Confident, nil, nil, false, 0},
		{"a learner right", v(fp, true, false, 0, -4), solve.Correct, nil, nil, true, 1},
		// The four seeded orders decide (the authors' four random
		// orders); the original order is none of them.
		{"three of four orders, margins 2", v(or, true, false, 0, 2), solve.Confident, []int32{0, 3, 0, 0}, []float64{2, -1, 2, 2}, true, 3},
		{"three of four orders, wrong on the original", v(or, true, false, 1, -1), solve.Confident, []int32{0, 0, 0, 2}, []float64{2, 2, 2, -1}, true, 3},
		{"right on the original, two of four orders", v(or, true, false, 0, 3), solve.Confident, []int32{1, 0, 2, 0}, []float64{-1, 3, -1, 3}, false, 2},
		{"four of four orders, margins 0.5", v(or, true, false, 0, 2), solve.Confident, []int32{0, 0, 0, 0}, []float64{0.5, 0.5, 0.5, 0.5}, false, 4},
		// The mean margin over the four orders (Video-Index 5.1): right on
		// orders 1-3, wrong on order 4. Margins 2, 2, 2, -2: mean 1 > log 2,
		// solved. Margins 1, 1, 1, -2: mean 0.25 < log 2, not solved, though
		// the original's margin 1 > log 2.
		{"three of four, margins 2, 2, 2, -2", v(or, true, false, 0, 2), solve.Confident, []int32{0, 0, 0, 3}, []float64{2, 2, 2, -2}, true, 3},
		{"three of four, margins 1, 1, 1, -2", v(or, true, false, 0, 1), solve.Confident, []int32{0, 0, 0, 3}, []float64{1, 1, 1, -2}, false, 3},
		// A cache without margins (written before vidscreen kept them):
		// the margin condition falls back to the original order's.
		{"three of four, no margins, original 1", v(or, true, false, 0, 1), solve.Confident, []int32{0, 0, 0, 3}, nil, true, 3},
		{"three of four, no margins, original 0.5", v(or, true, false, 0, 0.5), solve.Confident, []int32{0, 0, 0, 3}, nil, false, 3},
		// A missing margin counts as the floor: it never raises the mean.
		{"three of four, margins 2, 2, NaN, -2", v(or, true, false, 0, 2), solve.Confident, []int32{0, 0, 0, 3}, []float64{2, 2, math.NaN(), -2}, false, 3},
		{"three of four without log-probabilities", v(or, true, false, 0, math.NaN()), solve.Correct, []int32{0, 0, 2, 0}, nil, true, 3},
		// A permutation audit of two orders: both must be right.
		{"two orders, one right", v(or, true, false, 0, 2), solve.Confident, []int32{0, 1}, []float64{2, -1}, false, 1},
		{"two orders, both right", v(or, true, false, 1, 2), solve.Confident, []int32{0, 0}, []float64{2, 2}, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var orders [][]int32
			var margins [][]float64
			for k, c := range tt.orders {
				orders = append(orders, []int32{c})
				if tt.margins != nil {
					margins = append(margins, []float64{tt.margins[k]})
				}
			}
			got, n, right := judge(&tt.v, tt.rule, orders, margins, 0, 0)
			wantN := int32(max(1, len(tt.orders)))
			if got != tt.solved || right != tt.right || n != wantN {
				t.Errorf("judge = %v, %d of %d correct; want %v, %d", got, right, n, tt.solved, tt.right)
			}
		})
	}
}

func TestComputeOptions(t *testing.T) {
	t.Parallel()
	// The cards find fixed-position significant on A only.
	sig := map[string][]string{"A": {fp}, "B": {}}
	tests := []struct {
		name   string
		opt    Options
		sig    map[string][]string
		orders bool
		kept   []string // ids kept
		err    bool
	}{
		{"the default screeners", Options{}, nil, true, []string{"a2", "a7", "b3", "b4"}, false},
		{"without the permutation orders the options reader is judged on one order", Options{}, nil, false, []string{"a2", "a7", "b4"}, false},
		{"a learner screens only where its card finds it significant; no video step, no pending item",
			Options{Attackers: []string{fp, or}}, sig, true, []string{"a2", "a3", "a6", "b2", "b3", "b4"}, false},
		{"every attacker screens everywhere when asked", Options{Attackers: []string{fp, or}, EveryAttacker: true}, sig, true, []string{"a2", "a3", "a6", "b2", "b3"}, false},
		{"a further quality flag joins the option-format step", Options{DropQuality: []string{"empty_option"}}, nil, true, []string{"a2", "a7", "b3", "b4"}, false},
		{"an unknown attacker is refused", Options{Attackers: []string{"oracle"}}, nil, true, nil, true},
		{"a learner is never a diagnostic model", Options{Diagnostics: []string{fp}}, nil, true, nil, true},
		{"an unknown quality flag is refused", Options{DropQuality: []string{"blurry"}}, nil, true, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fixture()
			in.Significant = tt.sig
			if !tt.orders {
				in.Orders = nil
			}
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

// consensusFixture is a hand-worked run of four items (gold 0 of four
// options) under the diagnostic models of four tests and a learner; see
// TestConsensusHandWorked.
func consensusFixture() *Input {
	atts := []Attacker{{Name: br, Level: "text"}, {Name: cfr, Level: "frame"}, {Name: "centre-frame", Level: "frame"},
		{Name: sh, Level: "order"}, {Name: "bag-of-frames-mean", Level: "order"}, {Name: "bag-of-frames-max", Level: "order"}, {Name: fp, Level: "option"}}
	row := func(id string, vs ...Verdict) Row {
		return Row{ID: id, Benchmark: "A", Video: id, Group: "g", Options: []string{"w", "x", "y", "z"}, Cluster: -1, Quality: []string{}, Embedding: -1, Verdicts: vs}
	}
	return &Input{Run: "consensus", Attackers: atts, Rows: []Row{
		// c1: both centre-frame models right (the reader at margin 2):
		// two models of one test, a shortcut at c = 1 and 2. The max
		// variant of the bag of frames is right but the model answers by
		// its mean variant, wrong; the learner is right and never counts.
		row("c1", v(br, true, false, 1, -1), v(cfr, true, false, 0, 2), v("centre-frame", true, false, 0, 0), v(sh, true, false, 2, -1),
			v("bag-of-frames-mean", true, false, 3, 0), v("bag-of-frames-max", true, false, 0, 0), v(fp, true, false, 0, 0)),
		// c2: the blind and shuffled readers solve it, one model each: a
		// shortcut at c = 1 only, of two tests; the centre-frame models
		// chose 1 and 2; solved shuffled (sensitivity).
		row("c2", v(br, true, false, 0, 1.5), v(cfr, true, false, 1, -1), v("centre-frame", true, false, 2, 0), v(sh, true, false, 0, 3),
			v("bag-of-frames-mean", true, false, 1, 0), v("bag-of-frames-max", true, false, 1, 0), v(fp, true, false, 1, 0)),
		// c3: every model chose 1.
		row("c3", v(br, true, false, 1, -1), v(cfr, true, false, 1, -1), v("centre-frame", true, false, 1, 0), v(sh, true, false, 1, -1),
			v("bag-of-frames-mean", true, false, 1, 0), v("bag-of-frames-max", true, false, 1, 0), v(fp, true, false, 1, 0)),
		// c4: the centre-frame reader abstained (no answer: the test is
		// incomplete, the authors' evaluate_test, and counts nothing though
		// the image tower is right on the centre frame); the image tower
		// is right on the bag of frames: a shortcut of that test alone.
		row("c4", v(br, true, false, 1, -1), v(cfr, true, true, 0, 5), v("centre-frame", true, false, 0, 0), v(sh, true, false, 1, -1),
			v("bag-of-frames-mean", true, false, 0, 0), v("bag-of-frames-max", true, false, 0, 0), v(fp, true, false, 1, 0)),
	}}
}

func TestConsensusHandWorked(t *testing.T) {
	t.Parallel()
	s, err := Compute(consensusFixture(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Consensus
	wantDiag := []string{br, cfr, "centre-frame", sh, "bag-of-frames-mean", "bag-of-frames-max"}
	if !slices.Equal(c.Diagnostics, wantDiag) {
		t.Errorf("diagnostics %v, want %v (the learner is none)", c.Diagnostics, wantDiag)
	}
	wantTests := []TestInfo{
		{TestBlind, []Model{{"lm_reader", []string{br}}}, ""},
		{TestAudio, []Model{}, "not run: the run has no model of this test"},
		{TestSummary, []Model{}, "not run: the run has no model of this test"},
		{TestCentreFrame, []Model{{"vlm_reader", []string{cfr}}, {"image_text", []string{"centre-frame"}}}, ""},
		{TestFrameShuffling, []Model{{"vlm_reader", []string{sh}}}, ""},
		{TestBagOfFrames, []Model{{"image_text", []string{"bag-of-frames-mean", "bag-of-frames-max"}}}, ""},
	}
	if !reflect.DeepEqual(c.Tests, wantTests) {
		t.Errorf("tests\n %+v\nwant\n %+v", c.Tests, wantTests)
	}
	wantRows := []struct {
		diag       int32
		cons, sens bool
	}{{2, false, false}, {1, false, true}, {0, false, false}, {1, false, false}}
	for i, w := range wantRows {
		r := s.Rows[i]
		if r.Diagnostics != w.diag || r.Consistency != w.cons || r.Sensitivity != w.sens || r.Redundancy {
			t.Errorf("%s: diagnostics %d consistency %v sensitivity %v redundancy %v; want %+v", r.ID, r.Diagnostics, r.Consistency, r.Sensitivity, r.Redundancy, w)
		}
	}
	b := c.Benchmarks[0]
	if b.Items != 4 || !slices.Equal(b.Shortcuts, []int{3, 1, 0}) {
		t.Errorf("shortcuts %v of %d, want [3 1 0] of 4", b.Shortcuts, b.Items)
	}
	// Chance: c1-c3 have five answering models in four tests (two in the
	// centre frame's): P(no test has one right) = (3/4)^3 (3/4)^2, so
	// 1 - 243/1024; two right only in the centre frame's, 1/16. c4's
	// centre-frame test is incomplete (its reader abstained) and counts
	// nothing: three single-model tests, 1 - (3/4)^3 = 592/1024, and 0.
	wantChance := []float64{(3*781.0/1024 + 592.0/1024) / 4, 3.0 / 16 / 4, 0}
	for k, w := range wantChance {
		if math.Abs(b.Chance[k]-w) > 1e-12 {
			t.Errorf("chance at c = %d: %v, want %v", Thresholds[k], b.Chance[k], w)
		}
	}
	wantCounts := []TestCount{
		{TestBlind, []int{1, 0, 0}, []int{0, 0, 0}},
		{TestCentreFrame, []int{1, 1, 0}, []int{1, 1, 0}},
		{TestFrameShuffling, []int{1, 0, 0}, []int{0, 0, 0}},
		{TestBagOfFrames, []int{1, 0, 0}, []int{1, 0, 0}},
	}
	if !reflect.DeepEqual(c.Counts, wantCounts) {
		t.Errorf("counts %+v, want %+v", c.Counts, wantCounts)
	}
	// No full-video model: the consistency check does not run.
	if c.Ambiguity != (Ambiguity{Sensitivity: 1, Any: 1}) {
		t.Errorf("ambiguity %+v", c.Ambiguity)
	}
}

func TestAtLeast(t *testing.T) {
	t.Parallel()
	got := atLeast([]float64{0.5, 0.25})
	// P(0 or more) 1; P(1 or more) 1 - 0.5*0.75; P(both) 0.125.
	want := []float64{1, 0.625, 0.125}
	for c := range want {
		if math.Abs(got[c]-want[c]) > 1e-15 {
			t.Errorf("atLeast = %v, want %v", got, want)
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := Compute(fixture(), Options{})
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

// TestVLMNotes: the report says which VLM answered the 32-frame steps.
func TestVLMNotes(t *testing.T) {
	t.Parallel()
	video := func(vlm, screen string) *runConfig {
		c := &runConfig{}
		c.Videos = &struct {
			VLMReader    string `json:"vlm_reader"`
			ScreenReader string `json:"screen_reader"`
		}{vlm, screen}
		return c
	}
	tests := []struct {
		name      string
		attackers []Attacker
		cfg       *runConfig
		want      string // "" for no note
	}{
		{"no 32-frame step", []Attacker{{Name: br}}, video("v", ""), ""},
		{"one VLM", []Attacker{{Name: "full-video-reader"}, {Name: sh}}, video("onnx:vlm_reader:smol", ""), "one VLM: the 32-frame steps (full-video-reader, shuffled-frames-reader) use vlm_reader (onnx:vlm_reader:smol)"},
		{"a screen_reader", []Attacker{{Name: "full-video-reader"}, {Name: sh}}, video("onnx:vlm_reader:big", "onnx:screen_reader:small"), "full-video-reader used screen_reader (onnx:screen_reader:small); the shuffled step is the card's shuffled-frames-reader, on vlm_reader (onnx:vlm_reader:big)"},
		{"a screen_reader for both steps", []Attacker{{Name: "full-video-reader"}, {Name: sh}, {Name: ShuffledScreenReader}}, video("onnx:vlm_reader:big", "onnx:screen_reader:small"), "the 32-frame steps use screen_reader (onnx:screen_reader:small): full-video-reader, and shuffled-frames-screen-reader as the shuffled step; the card's shuffled-frames-reader stays on vlm_reader (onnx:vlm_reader:big)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := vlmNotes(tt.attackers, tt.cfg)
			if (tt.want == "") != (len(got) == 0) || len(got) > 0 && !strings.HasPrefix(got[0], tt.want) {
				t.Errorf("notes %q, want one starting %q", got, tt.want)
			}
		})
	}
}

// TestShuffledScreenStep: a run with shuffled-frames-screen-reader (a
// screen_reader role) screens its shuffled step with it, in
// shuffled-frames-reader's place after full-video-reader; a run without
// it keeps shuffled-frames-reader.
func TestShuffledScreenStep(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		run  []string
		want string
	}{
		{[]string{"full-video-reader", sh, "contiguous-tenth-reader"}, sh},
		{[]string{"full-video-reader", ShuffledScreenReader, sh, "contiguous-tenth-reader"}, ShuffledScreenReader},
	} {
		opt, missing, err := Options{}.resolve(tt.run)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(opt.Attackers, []string{"full-video-reader", tt.want}) || slices.Contains(missing, sh) {
			t.Errorf("run %v: screeners %v, missing %v", tt.run, opt.Attackers, missing)
		}
		// The run's order puts the step before full-video-reader; the
		// funnel's puts it after.
		atts := []Attacker{{Name: tt.want, Level: "order", Screens: true}, {Name: "full-video-reader", Level: "order", Screens: true}, {Name: "centre-frame-reader", Level: "frame", Screens: true}}
		if got := attackSteps(atts); !slices.Equal(got, []int{2, 1, 0}) {
			t.Errorf("%s: steps %v, want [2 1 0]", tt.want, got)
		}
	}
}

// The consensus's chance ratio follows the rule that makes a shortcut:
// under the project's variant (RuleSolve) a blind reader judged on four
// option orders solves by luck only when at least three of the four are
// right, P = 4 (1/4)^3 (3/4) + (1/4)^4 = 13/256 on four options, not 1/4.
// The consensus fixture with blind-reader given four seeded orders: at
// c = 1, rows c1-c3 have the blind test (13/256), two centre-frame models,
// the shuffled and the bag-of-frames model (1/4 each): P(no test) =
// (243/256)(3/4)^4; row c4, whose centre-frame test is incomplete (its
// reader abstained): (243/256)(3/4)^2. c = 2 is the centre frame's alone
// (1/16 on rows c1-c3), as with one order.
func TestConsensusChanceFollowsTheOrders(t *testing.T) {
	t.Parallel()
	in := consensusFixture()
	gold := []int32{0, 0, 0, 0}
	in.Orders = map[string][][]int32{br: {gold, gold, gold, gold}}
	s, err := Compute(in, Options{ConsensusRule: RuleSolve})
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Rows[0].Verdict(br); v.Orders != 4 {
		t.Fatalf("blind-reader judged on %d orders, want 4", v.Orders)
	}
	pb := 13.0 / 256
	if got := solveChance(4, 4); math.Abs(got-pb) > 1e-15 {
		t.Errorf("solveChance(4 options, 4 orders) = %v, want 13/256", got)
	}
	if got := solveChance(5, 1); math.Abs(got-0.2) > 1e-15 {
		t.Errorf("solveChance(5 options, 1 order) = %v, want 1/5", got)
	}
	none3 := (1 - pb) * math.Pow(0.75, 4)
	none4 := (1 - pb) * math.Pow(0.75, 2)
	want := []float64{(3*(1-none3) + (1 - none4)) / 4, 3.0 / 16 / 4, 0}
	b := s.Consensus.Benchmarks[0]
	for k, w := range want {
		if math.Abs(b.Chance[k]-w) > 1e-12 {
			t.Errorf("chance at c = %d: %v, want %v", Thresholds[k], b.Chance[k], w)
		}
	}
}
