package release

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// binomialTail is P(X >= k) for X ~ Binomial(n, 1/4), summed exactly in
// rationals: an implementation independent of metrics' convolution.
func binomialTail(n, k int) float64 {
	sum := new(big.Rat)
	for j := k; j <= n; j++ {
		c := new(big.Int).Binomial(int64(n), int64(j))
		num := new(big.Int).Mul(c, new(big.Int).Exp(big.NewInt(3), big.NewInt(int64(n-j)), nil))
		den := new(big.Int).Exp(big.NewInt(4), big.NewInt(int64(n)), nil)
		sum.Add(sum, new(big.Rat).SetFrac(num, den))
	}
	f, _ := sum.Float64()
	return f
}

// The red-team gate's residual keeps out of every level's eps and out of
// the Holm family the attackers the cards keep out (issue 20.2 and 20.4):
// full-video-reader (32 frames in order is the reference protocol, not a
// shortcut) and blind-reader#2 (a further model of the Video-Oasis blind
// test). Hand-worked on 24 four-option items:
//
//	blind-reader        6 right  margin 0         p = P(X >= 6)  = 0.578
//	knn-vote           11 right  margin 0.208333  p = P(X >= 11) = 0.0213
//	full-video-reader  22 right  margin 0.666667  aside
//	blind-reader#2      7 right  margin 0.041667  aside
//
// The family is {blind-reader, knn-vote}: knn-vote's p = 0.0213 <= 0.05/2,
// significant. With the aside attackers in it (m = 4, full-video-reader
// rejected first, blind-reader#2 at chance) knn-vote would face 0.05/3 =
// 0.0167 and fail; eps_text would be blind-reader#2's 0.041667 and an
// order level would appear at 0.666667.
func TestResidualKeepsAsideAttackersOut(t *testing.T) {
	atts := []Attacker{
		{Name: "blind-reader", Level: harness.LevelText},
		{Name: "knn-vote", Level: harness.LevelPool},
		{Name: "full-video-reader", Level: harness.LevelOrder},
		{Name: "blind-reader#2", Level: harness.LevelText},
	}
	right := []int{6, 11, 22, 7}
	const n = 24
	var cs []Candidate
	for i := 0; i < n; i++ {
		it := &harness.Item{ID: fmt.Sprintf("%02d", i), Benchmark: "B", Video: fmt.Sprint("v", i), Question: fmt.Sprint("q", i, "?"),
			Options: []string{"w", "x", "y", "z"}, Task: "t"}
		c := Candidate{Item: it, TemplateSize: 1, Template: i}
		for a := range atts {
			ok := i < right[a]
			c.Verdicts = append(c.Verdicts, Verdict{Scored: true, Correct: ok, Margin: -1})
		}
		cs = append(cs, c)
	}
	p, err := NewPool(atts, cs)
	if err != nil {
		t.Fatal(err)
	}
	picks := make([]int, n)
	items := make([]*harness.Item, n)
	for i := range picks {
		picks[i], items[i] = i, p.Candidates[i].Item
	}
	att := judge(p, picks, items, make([]bool, len(atts)), nil)

	want := []struct {
		aside       string
		margin, p   float64
		significant bool
	}{
		{"", 0, binomialTail(n, 6), false},
		{"", 11.0/n - 0.25, binomialTail(n, 11), true},
		{AsideScreening, 22.0/n - 0.25, binomialTail(n, 22), true},
		{AsideDiagnostic, 7.0/n - 0.25, binomialTail(n, 7), false},
	}
	for a, w := range want {
		r := att.Attackers[a]
		if r.Aside != w.aside || !approx(r.Margin, round6(w.margin)) || math.Abs(r.PValue-w.p) > 1e-5*w.p || r.Significant != w.significant {
			t.Errorf("%s: aside %q, margin %v, p %v, significant %v; want %q, %.6f, %.6g, %v",
				r.Name, r.Aside, r.Margin, r.PValue, r.Significant, w.aside, w.margin, w.p, w.significant)
		}
	}
	wantLevels := []LevelResidual{
		{Level: harness.LevelText, Eps: 0, Attacker: "blind-reader"},
		{Level: harness.LevelPool, Eps: round6(11.0/n - 0.25), Attacker: "knn-vote", Significant: true},
	}
	if !slices.Equal(att.Levels, wantLevels) {
		t.Errorf("levels %+v, want %+v", att.Levels, wantLevels)
	}
}

// A re-run model reader drops every item it solves (Video-Index 5.2: the
// gate drops what the VLM at 32 frames and the caption attacker solve, by
// the solve rule, as screening's readers remove what they answer), even
// where it is not significant on the selection; a re-run learner that is
// not significant drops nothing, and a further model of a Video-Oasis test
// drops nothing by itself. Eight four-option items, each attacker right on
// two of them (p = P(X >= 2) = 0.63), confident on both.
func TestRerunReaderDropsWhatItSolves(t *testing.T) {
	t.Parallel()
	atts := []Attacker{
		{Name: "centre-frame-reader", Level: harness.LevelFrame},
		{Name: "knn-vote", Level: harness.LevelPool, Pooled: true},
		{Name: "centre-frame-reader#2", Level: harness.LevelFrame},
	}
	var cs []Candidate
	for i := 0; i < 8; i++ {
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Video: fmt.Sprint("v", i), Question: fmt.Sprint("q", i, "?"),
			Options: []string{"w", "x", "y", "z"}, Task: "t"}
		cs = append(cs, Candidate{Item: it, TemplateSize: 1, Template: i, Verdicts: make([]Verdict, len(atts))})
	}
	p, err := NewPool(atts, cs)
	if err != nil {
		t.Fatal(err)
	}
	picks := []int{0, 1, 2, 3, 4, 5, 6, 7}
	items := make([]*harness.Item, len(picks))
	for k, i := range picks {
		items[k] = p.Candidates[i].Item
	}
	again := []bool{true, true, true}
	att := judge(p, picks, items, again, func(k, a int) (Verdict, bool) {
		ok := k < 2
		return Verdict{Scored: true, Correct: ok, Solved: ok, Margin: 1}, true
	})
	for a, w := range []struct{ solved, ignored int }{{2, 0}, {0, 2}, {0, 2}} {
		r := att.Attackers[a]
		if r.Significant || r.Solved != w.solved || r.Ignored != w.ignored {
			t.Errorf("%s: significant %v, solved %d, ignored %d; want not significant, %d, %d", r.Name, r.Significant, r.Solved, r.Ignored, w.solved, w.ignored)
		}
	}
	for k := range picks {
		var want []string
		if k < 2 {
			want = []string{"centre-frame-reader"}
		}
		if !slices.Equal(att.Solvers[k], want) {
			t.Errorf("item %d: solvers %v, want %v", k, att.Solvers[k], want)
		}
	}
}
