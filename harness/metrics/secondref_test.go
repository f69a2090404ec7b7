package metrics

import (
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// TestSecondLevelByHand ports levels.py assign_level (no 128-frame probe)
// case by case on eps option 0.10, text 0.20, frame 0.30 (pool and order
// not run), c = 0.25, delta 0.05: s* 0.65 needs eps >= 0.35, which no
// level reaches (unbroken); s* 0.55 needs 0.25 (frame); s* 0.45 needs
// 0.15 (text); s* 0.39 needs 0.09 (option); s* 0.30 and 0.20 are within
// delta of chance, so the first measured level, option.
func TestSecondLevelByHand(t *testing.T) {
	t.Parallel()
	ls := Levels{Option: &LevelResult{Eps: 0.10}, Text: &LevelResult{Eps: 0.20}, Frame: &LevelResult{Eps: 0.30}}
	for _, tt := range []struct {
		s, c  float64
		level string
		near  bool
	}{
		{0.65, 0.25, "unbroken", false},
		{0.55, 0.25, "frame", false},
		{0.45, 0.25, "text", false},
		{0.39, 0.25, "option", false},
		{0.30, 0.25, "option", true},
		{0.20, 0.25, "option", true},
	} {
		lv, near := secondLevel(ls, tt.s, tt.c, 0.05)
		if lv != tt.level || near != tt.near {
			t.Errorf("s* %v, c %v: level %s near %v; want %s, %v", tt.s, tt.c, lv, near, tt.level, tt.near)
		}
	}
	if lv, near := secondLevel(Levels{}, 0.2, 0.25, 0.05); lv != "unbroken" || !near {
		t.Errorf("no level measured, near chance: %s %v; want unbroken (levels.py: measured[0] if measured else unbroken)", lv, near)
	}
}

// TestWithSecondReferenceByHand: 40 four-option items, the second
// reference right on 22 of the 36 it answers: s* 22/36 = 0.611111, c 0.25,
// s* - c - 0.05 = 0.3111, reached first by frame (0.32); the card's own
// level is text, so they disagree. Below 30 answered items there is no
// level; a note alone when it could not run.
func TestWithSecondReferenceByHand(t *testing.T) {
	t.Parallel()
	var items []*harness.Item
	ref2 := map[string]int{}
	for i := range 40 {
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Options: []string{"a", "b", "c", "d"}, Answer: i % 4}
		items = append(items, it)
		switch {
		case i < 22:
			ref2[it.Key()] = it.Answer
		case i < 36:
			ref2[it.Key()] = (it.Answer + 1) % 4
		}
	}
	text := "text"
	cards := []Card{{Benchmark: "B", Levels: Levels{Option: &LevelResult{Eps: 0.1}, Text: &LevelResult{Eps: 0.2}, Frame: &LevelResult{Eps: 0.32}},
		BreakingLevel: map[string]*string{"0.05": &text}}}
	WithSecondReference(cards, items, ref2, "vlm_reader#2:m", "")
	sr := cards[0].SecondReference
	if sr == nil || sr.Model != "vlm_reader#2:m" || sr.N != 36 || *sr.Accuracy != 0.611111 || *sr.Chance != 0.25 || sr.BreakingLevel == nil || *sr.BreakingLevel != "frame" || sr.NearChance || sr.Agree == nil || *sr.Agree || sr.Note != "" {
		t.Fatalf("second reference %+v: s* %v, c %v, level %v, agree %v", sr, *sr.Accuracy, *sr.Chance, *sr.BreakingLevel, *sr.Agree)
	}
	WithSecondReference(cards, items[:29], ref2, "vlm_reader#2:m", "")
	if sr := cards[0].SecondReference; sr.N != 29 || sr.BreakingLevel != nil || sr.Note == "" {
		t.Errorf("29 items: %+v; want no level and a note", sr)
	}
	WithSecondReference(cards, items, nil, "", "no second entry")
	if sr := cards[0].SecondReference; sr.Note != "no second entry" || sr.N != 0 || sr.Accuracy != nil {
		t.Errorf("not run: %+v", sr)
	}
}
