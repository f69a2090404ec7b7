package truth

import (
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// TestEvaluateSetsAsideYesNoFamilies: a family whose card is yes/no-only
// (its items set aside before the audit) is neither planted nor missed;
// the others are judged as before.
func TestEvaluateSetsAsideYesNoFamilies(t *testing.T) {
	t.Parallel()
	pool := harness.LevelPool
	tr := &Truth{Families: []FamilyTruth{
		{Name: "copy", Benchmark: "world-copy", Expected: &pool},
		{Name: "a", Benchmark: "world-a", Expected: &pool},
	}}
	lr := &metrics.LevelResult{Eps: 0.5, Attacker: "x", Significant: true}
	cards := []metrics.Card{
		{Benchmark: "world-copy", YesNoOnly: true, SetAside: map[string]int{harness.YesNoReason: 12}},
		{Benchmark: "world-a", Chance: 0.25, Levels: metrics.Levels{Option: &metrics.LevelResult{}, Text: &metrics.LevelResult{}, Pool: lr}},
	}
	ev, err := Evaluate(tr, cards)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Families) != 2 || ev.Families[0].Verdict != VerdictYesNo || ev.Families[1].Verdict != "caught" {
		t.Fatalf("families %+v", ev.Families)
	}
	if ev.Planted != 1 || ev.Recalled != 1 {
		t.Errorf("planted %d recalled %d, want 1 and 1", ev.Planted, ev.Recalled)
	}
}
