package metrics_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/models/letters"
)

// TestSignificanceIsExactAndHolmCorrected: six yes/no items, siblings right
// on all six (the world's seed-5 false alarm: siblings 1.000 at n = 6). The
// old z rule flagged +0.5 against 2.326 sqrt(0.25/6) = 0.475; the exact
// p-value is 2^-6 = 0.015625, below 0.05 alone but not below 0.05/4, the
// first step of Holm over the four attackers that answered.
func TestSignificanceIsExactAndHolmCorrected(t *testing.T) {
	t.Parallel()
	items := oneBenchmark(6)
	var outcomes []metrics.Outcome
	outcomes = append(outcomes, scoredOnce(items, "fixed-position", harness.LevelOption, func(i int) bool { return i%2 == 0 })...)
	outcomes = append(outcomes, scoredOnce(items, "question-match", harness.LevelText, func(i int) bool { return i < 3 })...)
	outcomes = append(outcomes, scoredOnce(items, "position-prior", harness.LevelPool, func(i int) bool { return i < 4 })...)
	outcomes = append(outcomes, scoredOnce(items, "siblings", harness.LevelPool, func(int) bool { return true })...)
	ac := attack.DefaultConfig()
	ac.Orders = 1
	c := cardOf(t, items, outcomes, nil, metrics.DefaultConfig(ac))
	var sib metrics.AttackerResult
	for _, r := range c.Attackers {
		if r.Name == "siblings" {
			sib = r
		}
	}
	if sib.PValue != 0.015625 || sib.Answered != 6 || !sib.SignificantUncorrected || sib.Significant {
		t.Errorf("siblings: p %v answered %d uncorrected %v corrected %v; want 0.015625, 6, true, false",
			sib.PValue, sib.Answered, sib.SignificantUncorrected, sib.Significant)
	}
	if p := c.Levels.Pool; p == nil || p.Attacker != "siblings" || p.Significant || !p.SignificantUncorrected {
		t.Errorf("pool level %+v: want siblings, not significant after correction", p)
	}
	// The papers' threshold stays on the card for comparison.
	if want := 2.326 * math.Sqrt(0.25/6); math.Abs(c.Significance-want) > 1e-6 {
		t.Errorf("paper threshold %v, want %v", c.Significance, want)
	}
}

// TestExactTestReadsEachItemsOwnChance: three yes/no and three four-option
// items, all right: P = 0.5^3 * 0.25^3 = 1/512, where a binomial at the
// mean chance 0.375 would give 0.375^6 = 0.00278.
func TestExactTestReadsEachItemsOwnChance(t *testing.T) {
	t.Parallel()
	var items []*harness.Item
	for i := 0; i < 6; i++ {
		opts := []string{"a", "b"}
		if i >= 3 {
			opts = []string{"a", "b", "c", "d"}
		}
		items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: "A", Video: fmt.Sprint(i), Question: "q", Options: opts})
	}
	c := cardOf(t, items, scoredOnce(items, "question-match", harness.LevelText, func(int) bool { return true }), nil, metrics.DefaultConfig(attack.DefaultConfig()))
	if r := c.Attackers[0]; math.Abs(r.PValue-1.0/512) > 1e-5/512 || !r.Significant {
		t.Errorf("p %v significant %v, want 1/512 = %v, true (alone in its family)", r.PValue, r.Significant, 1.0/512)
	}
}

// TestAbstentionsAreChanceLevelOutcomesInTheTest: ten yes/no items, an
// attacker right on two by knowledge and abstaining on eight whose seeded
// guesses all hit. Counting the guesses would give 10 of 10 (p = 2^-10);
// as chance-level outcomes they leave 2 of 2 answered, p = 0.25.
func TestAbstentionsAreChanceLevelOutcomesInTheTest(t *testing.T) {
	t.Parallel()
	items := oneBenchmark(10)
	out := scoredOnce(items, "copy", harness.LevelPool, func(int) bool { return true })
	for i := 2; i < 10; i++ {
		out[i].Pred.Abstain = true
	}
	c := cardOf(t, items, out, nil, metrics.DefaultConfig(attack.DefaultConfig()))
	if r := c.Attackers[0]; r.PValue != 0.25 || r.Answered != 2 || r.Significant || !near(r.Margin, 0.1) {
		t.Errorf("copy: p %v answered %d significant %v margin %v; want 0.25, 2, false, +0.1", r.PValue, r.Answered, r.Significant, r.Margin)
	}
}

// TestSolvedShareFollowsTheSolveRule: four yes/no items (gold 0) answered
// alike by a model reader and by a matcher: right and confident, right but
// unsure (margin log 1.5 < log 2), wrong with a big gold margin, and a
// seeded guess that hit. The reader solves one (Video-Index 5.1: correct
// AND margin > log 2), the matcher two (correctness alone); the old rule
// gave the reader two.
func TestSolvedShareFollowsTheSolveRule(t *testing.T) {
	t.Parallel()
	items := oneBenchmark(4)
	answers := []attack.Prediction{
		{Choice: 0, Scores: []float64{math.Log(0.8), math.Log(0.2)}},
		{Choice: 0, Scores: []float64{math.Log(0.6), math.Log(0.4)}},
		{Choice: 1, Scores: []float64{math.Log(0.9), math.Log(0.1)}},
		{Choice: 0, Scores: []float64{math.Log(0.9), math.Log(0.1)}, Abstain: true},
	}
	var out []metrics.Outcome
	for _, name := range []string{"blind-reader", "question-match"} {
		for i, p := range answers {
			out = append(out, metrics.Outcome{Item: i, Attacker: name, Level: harness.LevelText, Position: i, Scored: true, Pred: p})
		}
	}
	ac := attack.DefaultConfig()
	ac.Roles = []string{attack.RoleLMReader}
	cfg := metrics.DefaultConfig(ac)
	c := cardOf(t, items, out, nil, cfg)
	want := map[string]float64{"blind-reader": 0.25, "question-match": 0.5}
	for _, r := range c.Attackers {
		if w, ok := want[r.Name]; ok && r.SolvedShare != w {
			t.Errorf("%s: solved share %v, want %v", r.Name, r.SolvedShare, w)
		}
	}
	scores, err := metrics.ItemScores(items, out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	solved := map[string][]bool{}
	for _, s := range scores {
		solved[s.Attacker] = append(solved[s.Attacker], s.Solved)
	}
	wantItems := map[string][]bool{"blind-reader": {true, false, false, false}, "question-match": {true, true, false, false}}
	for name, w := range wantItems {
		if fmt.Sprint(solved[name]) != fmt.Sprint(w) {
			t.Errorf("%s: item table solved %v, want %v", name, solved[name], w)
		}
	}
}

func TestMedianRetention(t *testing.T) {
	t.Parallel()
	card := func(r ...float64) metrics.Card {
		d := &metrics.OrderDiagnostics{}
		for _, x := range r {
			d.Conditions = append(d.Conditions, metrics.OrderCondition{Name: "shuffled", Retention: &x})
		}
		return metrics.Card{OrderDiagnostics: d}
	}
	tests := []struct {
		name  string
		cards []metrics.Card
		want  float64
		n     int
		ok    bool
	}{
		{"odd", []metrics.Card{card(0.9), card(1.0), card(0.5)}, 0.9, 3, true},
		{"even", []metrics.Card{card(0.9), card(1.0), card(0.5), card(0.96)}, 0.93, 4, true},
		{"a card without diagnostics is left out", []metrics.Card{card(0.8), {}}, 0.8, 1, true},
		{"none", []metrics.Card{{}, card()}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, ok := metrics.MedianRetention(tt.cards, "shuffled")
			if !near(got, tt.want) || n != tt.n || ok != tt.ok {
				t.Errorf("median %v over %d (%v), want %v over %d (%v)", got, n, ok, tt.want, tt.n, tt.ok)
			}
		})
	}
}

// TestFramesNotRunWhenEveryVideoFailed: every video of the benchmark
// failed, so the frame level's attacker abstained on every item for want of
// a video: the level is not run, with the failures' count and reason, not
// the maximum of the levels below (issue 20, point 11). The same attacker
// abstaining because it found nothing (all options tied) with the videos
// read did run, and its level stays.
func TestFramesNotRunWhenEveryVideoFailed(t *testing.T) {
	t.Parallel()
	items := oneBenchmark(4)
	items[1].Video = items[0].Video // three distinct videos
	out := scoredOnce(items, "question-match", harness.LevelText, func(i int) bool { return i < 3 })
	frame := scoredOnce(items, "centre-frame", harness.LevelFrame, func(int) bool { return true })
	for i := range frame {
		frame[i].Pred.Abstain = true
	}
	ac := attack.DefaultConfig()
	ac.Roles = []string{attack.RoleImageText}
	ac.Levels = []harness.Level{harness.LevelText, harness.LevelFrame}
	cfg := metrics.DefaultConfig(ac)
	c := cardOf(t, items, append(out, frame...), nil, cfg)
	if c.Levels.Frame == nil || c.LevelsNotRun != nil {
		t.Errorf("videos read, nothing found: frame level %+v, not run %v; want it run", c.Levels.Frame, c.LevelsNotRun)
	}
	failures := []string{"missing", "missing", "missing", "corrupt"}
	cfg.Failures = failures
	c = cardOf(t, items, append(out, frame...), nil, cfg)
	if c.Levels.Frame != nil || c.Levels.Text == nil {
		t.Fatalf("levels %+v: want text and no frame", c.Levels)
	}
	cards := []metrics.Card{c}
	metrics.CountFailures(cards, items, failures)
	if got, want := cards[0].LevelsNotRun["frame"], "3 videos failed: missing 2, corrupt 1"; got != want {
		t.Errorf("frame not run: %q, want %q", got, want)
	}
	if fmt.Sprint(cards[0].LevelsRun) != "[text]" || cards[0].Failures["missing"] != 3 {
		t.Errorf("levels run %v, failures %v", cards[0].LevelsRun, cards[0].Failures)
	}
	// One video read: the level ran.
	cfg.Failures = []string{"missing", "", "missing", "corrupt"}
	if c := cardOf(t, items, append(out, frame...), nil, cfg); c.Levels.Frame == nil {
		t.Errorf("one video read: frame level not run (%v)", c.LevelsNotRun)
	}
}

// TestPaperMarginsOnTheReferencesItems: the authors' levels.py reads each
// margin on the items both the reference and the attacker scored, against
// 2.326 sqrt(c(1-c)/n_ref) on the reference's items, and drops an attacker
// with fewer than 30 such items. 40 yes/no items, the reference answering
// the first 35, question-match right on the first 30: on those 35 the
// margin is 30/35 - 0.5 = 0.357143 against 2.326 sqrt(0.25/35) = 0.196581.
func TestPaperMarginsOnTheReferencesItems(t *testing.T) {
	t.Parallel()
	items := oneBenchmark(40)
	out := scoredOnce(items, "question-match", harness.LevelText, func(i int) bool { return i < 30 })
	ref := func(n int) metrics.Reference {
		r := metrics.Reference{}
		for _, it := range items[:n] {
			r[it.Key()] = it.Answer
		}
		return r
	}
	cfg := metrics.DefaultConfig(attack.DefaultConfig())
	c := cardOf(t, items, out, ref(35), cfg)
	a := c.Attackers[0]
	if a.PaperMargin == nil || !near(*a.PaperMargin, 30.0/35-0.5) || a.PaperN != 35 || a.PaperSignificant == nil || !*a.PaperSignificant {
		t.Errorf("paper margin %v n %d significant %v, want %v over 35, true", a.PaperMargin, a.PaperN, a.PaperSignificant, 30.0/35-0.5)
	}
	if want := 2.326 * math.Sqrt(0.25/35); !near(c.Significance, want) {
		t.Errorf("paper threshold %v, want %v on the reference's 35 items", c.Significance, want)
	}
	if a := cardOf(t, items, out, ref(29), cfg).Attackers[0]; a.PaperMargin != nil || a.PaperSignificant != nil {
		t.Errorf("29 common items: paper margin %v, want none (the authors drop it)", a.PaperMargin)
	}
}

// TestDiagnosticOnlyAttackersEnterNoEpsAndNoFamily: blind-reader#2, the
// blind test on a later lm_reader entry, right on all twelve items, is
// reported (diagnostic only, uncorrected flag kept) but sets no level's
// eps and joins no Holm family: the card's levels and the other
// attackers' significance are those of the run without it.
func TestDiagnosticOnlyAttackersEnterNoEpsAndNoFamily(t *testing.T) {
	t.Parallel()
	items := oneBenchmark(12)
	base := append(scoredOnce(items, "question-match", harness.LevelText, func(i int) bool { return i < 9 }),
		scoredOnce(items, "blind-reader", harness.LevelText, func(i int) bool { return i < 8 })...)
	extra := append(slices.Clone(base), scoredOnce(items, "blind-reader#2", harness.LevelText, func(int) bool { return true })...)
	var cards [2]metrics.Card
	for k, outcomes := range [][]metrics.Outcome{base, extra} {
		ac := attack.DefaultConfig()
		ac.Levels, ac.Orders, ac.Permutations = []harness.Level{harness.LevelText}, 1, -1
		ac.Roles, ac.Reader = []string{attack.RoleLMReader}, noReader{}
		if k == 1 {
			ac.Extra = []attack.LetterReader{noReader{}}
		}
		cards[k] = cardOf(t, items, outcomes, nil, metrics.DefaultConfig(ac))
	}
	if a, b := cards[0].Levels.Text, cards[1].Levels.Text; a == nil || b == nil || *a != *b || b.Attacker == "blind-reader#2" {
		t.Errorf("text level %+v without blind-reader#2, %+v with it", a, b)
	}
	sig := map[string]metrics.AttackerResult{}
	for _, r := range cards[1].Attackers {
		sig[r.Name] = r
	}
	if x, ok := sig["blind-reader#2"]; !ok || !x.DiagnosticOnly || x.Significant || !x.SignificantUncorrected || x.Accuracy != 1 {
		t.Errorf("blind-reader#2 %+v: want reported, diagnostic only, significant uncorrected only", x)
	}
	for _, r := range cards[0].Attackers {
		if r.DiagnosticOnly || r.Significant != sig[r.Name].Significant || r.PValue != sig[r.Name].PValue {
			t.Errorf("%s: %+v without blind-reader#2, %+v with it", r.Name, r, sig[r.Name])
		}
	}
}

// noReader stands for lm_reader where the outcomes are given.
type noReader struct{}

func (noReader) Encode(letters.Prompt) ([]int, error) { return nil, nil }
func (noReader) Score(context.Context, []letters.Prompt) ([][]float64, error) {
	return nil, nil
}
