package truth

import (
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// TestEvaluateVerdicts checks each verdict on hand-made cards.
func TestEvaluateVerdicts(t *testing.T) {
	t.Parallel()
	opt, pool := harness.LevelOption, harness.LevelPool
	truth := &Truth{Families: []FamilyTruth{
		{Name: "a", Benchmark: "world-a", Expected: &pool},
		{Name: "b", Benchmark: "world-b", Expected: &pool},
		{Name: "c", Benchmark: "world-c", Expected: nil},
		{Name: "d", Benchmark: "world-d", Expected: &pool},
		{Name: "e", Benchmark: "world-e", Expected: nil},
	}}
	lr := func(eps float64, sig bool) *metrics.LevelResult {
		return &metrics.LevelResult{Eps: eps, Attacker: "x", Significant: sig}
	}
	cards := []metrics.Card{
		{Benchmark: "world-a", Chance: 0.25, N: 40, Levels: metrics.Levels{Option: lr(0, false), Text: lr(0, false), Pool: lr(0.5, true)}},
		{Benchmark: "world-b", Chance: 0.25, N: 3, Levels: metrics.Levels{Option: lr(0, false), Text: lr(0, false), Pool: lr(0.01, false)}},
		{Benchmark: "world-c", Chance: 0.25, Levels: metrics.Levels{Option: lr(0.3, true), Text: lr(0.3, true), Pool: lr(0.3, true)}},
		{Benchmark: "world-d", Chance: 0.25, N: 40, Levels: metrics.Levels{Option: lr(0.2, true), Text: lr(0.2, true), Pool: lr(0.2, true)},
			Attackers: []metrics.AttackerResult{{Name: "x", AbstainShare: 1}}},
		{Benchmark: "world-e", Chance: 0.5, Levels: metrics.Levels{Option: lr(0, false), Text: lr(0, false), Pool: lr(0, false)}},
	}
	ev, err := Evaluate(truth, cards)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"caught", "missed", "false alarm", "false alarm", "survived"}
	for i, r := range ev.Families {
		if r.Verdict != want[i] {
			t.Errorf("%s: %s, want %s", r.Family, r.Verdict, want[i])
		}
	}
	if ev.Planted != 3 || ev.Recalled != 1 || ev.Recall != 0.333 || ev.FalseAlarms != 2 {
		t.Fatalf("planted %d recalled %d recall %v false alarms %d", ev.Planted, ev.Recalled, ev.Recall, ev.FalseAlarms)
	}
	if !ev.Families[3].Guessed || ev.Families[2].Guessed {
		t.Errorf("a false alarm by an attacker that abstained on every item is not marked as guesses: %+v", ev.Families)
	}
	if ev.Families[0].Accuracy != 0.75 || *ev.Families[3].Caught != opt {
		t.Fatalf("rows %+v", ev.Families)
	}
	// world-b's 3 items at chance 0.25 cannot be significant (0.25^3 >=
	// 0.05/8): its miss says the world is too small.
	if ev.TooFew != 1 || ev.Families[1].MinItems != 4 {
		t.Errorf("too few %d, b's minimum %d; want 1 and 4", ev.TooFew, ev.Families[1].MinItems)
	}
	var b strings.Builder
	if err := ev.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"missed (too few items to test: 3 < 4)", "1 of the 3 planted families have too few items to test"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestEvaluateCardsReadsWorldBenchmarksOnly(t *testing.T) {
	t.Parallel()
	lr := &metrics.LevelResult{Eps: 0.6, Attacker: "question-match", Significant: true}
	cards := []metrics.Card{
		{Benchmark: "nextqa", Chance: 0.2, Levels: metrics.Levels{Option: lr, Text: lr, Pool: lr}},
		{Benchmark: "world-text-leak", Chance: 0.25, N: 32, Levels: metrics.Levels{Option: &metrics.LevelResult{Attacker: "fixed-position"}, Text: lr, Pool: lr}},
	}
	ev := EvaluateCards(cards)
	if ev == nil || len(ev.Families) != 1 || ev.Families[0].Verdict != "caught" || ev.Recall != 1 {
		t.Fatalf("%+v", ev)
	}
	var b strings.Builder
	if err := ev.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "text-leak") || !strings.Contains(b.String(), "recall of planted shortcuts at their level: 1/1") {
		t.Fatalf("table:\n%s", b.String())
	}
	if EvaluateCards(cards[:1]) != nil {
		t.Fatal("an audit without world benchmarks got an evaluation")
	}
}
