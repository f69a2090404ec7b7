package release

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

func TestGateOutcome(t *testing.T) {
	t.Parallel()
	sig := func(l harness.Level, eps float64, a string) LevelResidual {
		return LevelResidual{Level: l, Eps: eps, Attacker: a, Significant: true}
	}
	tests := []struct {
		name  string
		g     Gated
		q     Query
		clean bool
		want  []string
	}{
		{"clean", Gated{Selection: &Selection{Picks: make([]int, 10)}, Rounds: []Round{{Selected: 10}},
			Residual: &Attack{Levels: []LevelResidual{{Level: harness.LevelOption, Eps: 0.05, Attacker: "copy"}}}}, Query{Budget: 10}, true, nil},
		{"a residual still significant, one finding over three levels", Gated{Selection: &Selection{Picks: make([]int, 10)},
			Rounds: []Round{{Selected: 10}, {Selected: 10}, {Selected: 10}, {Selected: 10}},
			Residual: &Attack{Levels: []LevelResidual{sig(harness.LevelOption, 0.082, "option-artifact"), sig(harness.LevelText, 0.082, "option-artifact"),
				sig(harness.LevelPool, 0.1, "knn-vote")}}}, Query{Budget: 10}, false,
			[]string{"the residual is still significant after 3 rounds of drop and refill: option to text level +8.2% by option-artifact, pool level +10.0% by knn-vote"}},
		{"the gate dropped more than the pool refills", Gated{Selection: &Selection{Picks: make([]int, 29)}, Rounds: []Round{{Selected: 100}, {Selected: 29}},
			Residual: &Attack{}}, Query{Budget: 100}, false,
			[]string{"the budget 100 exceeds what the gate can keep: the release holds 29 items (the gate dropped what its attackers solved and the pool, under the caps, could not refill it)"}},
		{"the pool short before the gate", Gated{Selection: &Selection{Picks: make([]int, 7)}, Rounds: []Round{{Selected: 7}}, Residual: &Attack{}}, Query{Budget: 9}, false,
			[]string{"the budget 9 exceeds what the gate can keep: the release holds 7 items (the pool admits only 7 items under the caps before the gate)"}},
		{"--hardest has no budget to fall short of", Gated{Selection: &Selection{Picks: make([]int, 3)}, Rounds: []Round{{Selected: 3}}, Residual: &Attack{}}, Query{Hardest: 5}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := tt.g.Outcome(tt.q)
			if got := o.Problems(); o.Clean() != tt.clean || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("clean %v, problems %q; want %v, %q", o.Clean(), got, tt.clean, tt.want)
			}
		})
	}
}

func TestRoundsChart(t *testing.T) {
	t.Parallel()
	if roundsSVG(nil) != "" {
		t.Error("a chart without rounds")
	}
	rounds := []Round{
		{Round: 0, Selected: 100, Solved: 40, Dropped: 40, Levels: []LevelResidual{{Level: harness.LevelOption, Eps: 0.2, Attacker: "copy", Significant: true}}},
		{Round: 1, Selected: 60, Solved: 10, Dropped: 0, Levels: []LevelResidual{{Level: harness.LevelOption, Eps: 0.01, Attacker: "a<b"}}},
	}
	svg := string(roundsSVG(rounds))
	for _, want := range []string{"<svg", "round 0: 100", "round 0: 40", "round 1: 60", "round 0: +20.0% by copy at the option level, significant",
		"round 1: +1.0% by a&lt;b at the option level, not significant", `fill="` + colourRoundSignificant, "selected", "dropped", "</svg>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q:\n%s", want, svg)
		}
	}
	if n := strings.Count(svg, "<rect"); n != 3*len(rounds)+3 {
		t.Errorf("%d bars and legend keys, want %d", n, 3*len(rounds)+3)
	}
}

func TestGroupCapsText(t *testing.T) {
	t.Parallel()
	got := groupCapsText(Caps{Groups: map[string]GroupCaps{"1-3m": {PerScene: 4, PerTemplate: 10, SourceExempt: true}, "0-10s": {PerScene: 2, PerTemplate: 5}}})
	want := "; relaxed per duration group: 0-10s 2 per scene, 5 per template; 1-3m 4 per scene, 10 per template, exempt from the source cap"
	if got != want || groupCapsText(Caps{}) != "" {
		t.Errorf("got %q, want %q", got, want)
	}
}
