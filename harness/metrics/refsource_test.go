package metrics_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// TestBreakingLevelNearChanceAndMinimum works the authors' levels.py rules
// (assign_level, MIN_N) out by hand on one benchmark of 40 two-option
// items (c = 0.5), with fixed-position at the option level right on 16
// (eps_option = 0.4 - 0.5 = -0.1) and question-match at the text level
// right on 30 (eps_text = 0.25):
//
//	near: the reference is right on 21 of 40 (s* - c = 0.025, within every
//	  delta): the breaking level is the first level that ran, option, at
//	  each delta (the threshold rule would give text: -0.1 < 0.025 - 0.05),
//	  and the card says reference_near_chance;
//	above: right on 36 of 40 (s* - c = 0.4): eps_text 0.25 is short of
//	  every threshold (0.37, 0.35, 0.32): no level breaks, not near chance;
//	few: the reference answers 29 items (right on 29): fewer than 30, no
//	  breaking level, and unavailable says why.
func TestBreakingLevelNearChanceAndMinimum(t *testing.T) {
	t.Parallel()
	var items []*harness.Item
	for i := range 40 {
		items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: "A", Video: "v", Question: "q", Options: []string{"x", "y"}, Answer: i % 2})
	}
	answer := func(i int, right bool) metrics.Outcome {
		c := items[i].Answer
		if !right {
			c = 1 - c
		}
		return metrics.Outcome{Item: i, Pred: pred(2, c)}
	}
	var outcomes []metrics.Outcome
	for i := range 40 {
		o := answer(i, i < 30)
		o.Attacker, o.Level, o.Position, o.Scored = "question-match", harness.LevelText, i, true
		outcomes = append(outcomes, o)
	}
	for v := range 2 {
		for p := range 40 {
			i := p
			if v == 1 {
				i = 39 - p
			}
			o := answer(i, i%5 < 2)
			o.Attacker, o.Level, o.Variant, o.Position, o.Scored = "fixed-position", harness.LevelOption, v, p, p >= 20
			outcomes = append(outcomes, o)
		}
	}
	refOf := func(n, right int) metrics.Reference {
		ref := metrics.Reference{}
		for i := range n {
			p := items[i].Answer
			if i >= right {
				p = 1 - p
			}
			ref[items[i].Key()] = p
		}
		return ref
	}
	option := "option"
	for _, tc := range []struct {
		name  string
		ref   metrics.Reference
		near  bool
		level map[string]*string // nil: no breaking level
	}{
		{"near", refOf(40, 21), true, map[string]*string{"0.03": &option, "0.05": &option, "0.08": &option}},
		{"above", refOf(40, 36), false, map[string]*string{"0.03": nil, "0.05": nil, "0.08": nil}},
		{"few", refOf(29, 29), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cards, err := metrics.Cards(context.Background(), items, outcomes, tc.ref, nil, fixtureConfig())
			if err != nil {
				t.Fatal(err)
			}
			c := cards[0]
			if c.Levels.Option == nil || !near(c.Levels.Option.Eps, -0.1) || c.Levels.Text == nil || !near(c.Levels.Text.Eps, 0.25) {
				t.Fatalf("levels %+v %+v, want eps option -0.1, text 0.25", c.Levels.Option, c.Levels.Text)
			}
			if c.ReferenceNearChance != tc.near {
				t.Errorf("reference_near_chance %v, want %v (s* %v)", c.ReferenceNearChance, tc.near, *c.ReferenceAccuracy)
			}
			if (c.BreakingLevel == nil) != (tc.level == nil) || len(c.BreakingLevel) != len(tc.level) {
				t.Fatalf("breaking level %v, want %v", c.BreakingLevel, tc.level)
			}
			for d, want := range tc.level {
				if got := c.BreakingLevel[d]; (got == nil) != (want == nil) || got != nil && *got != *want {
					t.Errorf("breaking level at %s: %s, want %s", d, str(got), str(want))
				}
			}
			if tc.level == nil && c.Unavailable["breaking_level"] == "" {
				t.Errorf("no breaking level and no word why: %v", c.Unavailable)
			}
		})
	}
	// With --reference-model, the flag is the 32-frame s*'s, also where the
	// 128-frame probe supplied s*.
	c := metrics.Card{}
	metrics.WithReferenceSource(&c, &metrics.ReferenceSource{N32: 40, NearChance: true, Probe: true})
	if !c.ReferenceNearChance || c.ReferenceSource == nil {
		t.Errorf("WithReferenceSource: near chance %v, source %v", c.ReferenceNearChance, c.ReferenceSource)
	}
}

// str is *p, or "none".
func str(p *string) string {
	if p == nil {
		return "none"
	}
	return *p
}
