package metrics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

func TestWithSetAsideCountsAndAddsYesNoOnlyCards(t *testing.T) {
	t.Parallel()
	cards := []Card{{Benchmark: "A", N: 2}, {Benchmark: "C", N: 5}}
	aside := []harness.SetAside{{Benchmark: "A", Of: 3, YesNo: 1}, {Benchmark: "B", Of: 4, YesNo: 4}}
	cards = WithSetAside(cards, aside)
	WithDuplicatesRemoved(cards, map[string]int{"C": 2})
	if len(cards) != 3 || cards[0].Benchmark != "A" || cards[1].Benchmark != "B" || cards[2].Benchmark != "C" {
		t.Fatalf("cards %+v, want A, B, C", cards)
	}
	if cards[0].SetAside[harness.YesNoReason] != 1 || cards[0].YesNoOnly || *cards[0].DuplicatesRemoved != 0 {
		t.Errorf("A: %+v, want 1 yes/no set aside, not yes/no-only, 0 duplicates", cards[0])
	}
	b := cards[1]
	if !b.YesNoOnly || b.N != 0 || b.SetAside[harness.YesNoReason] != 4 || b.Levels.Option != nil || b.DuplicatesRemoved != nil || b.Unavailable["levels"] != YesNoOnlyNote {
		t.Errorf("B: %+v, want a yes/no-only card of 4 set aside, no figures", b)
	}
	if *cards[2].DuplicatesRemoved != 2 || cards[2].SetAside != nil {
		t.Errorf("C: %+v, want 2 duplicates, nothing set aside", cards[2])
	}
	js, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"set_aside":{"format_yesno":4}`, `"yes_no_only":true`, `"attackers":[]`, `"n":0`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("B's JSON lacks %s: %s", want, js)
		}
	}
	if strings.Contains(string(js), "duplicates_removed_before_audit") {
		t.Errorf("B's JSON has a duplicate count: %s", js)
	}
}
