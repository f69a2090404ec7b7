package metrics

import (
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// TestErrorAttributionsByHand works one benchmark by hand: the reference
// answers 6 of 7 items and errs on 4; their task labels give the profile
// (T1 2, T2 1, (none) 1: top two 3/4, T1 leads); the blind reader is right
// on one error (rule 2, vision_introduced_error), wrong with the
// reference's very option on one (rule 1, language_prior_dominated),
// wrong with another option on one, and did not answer the fourth. The
// authors' preclass.py gives the same on these answers.
func TestErrorAttributionsByHand(t *testing.T) {
	t.Parallel()
	opts := []string{"a", "b", "c", "d"}
	mk := func(id string, answer int, task, group string) *harness.Item {
		return &harness.Item{ID: id, Benchmark: "B", Options: opts, Answer: answer, Task: task, Group: group}
	}
	items := []*harness.Item{
		mk("1", 0, "T1", "perception"), // reference 1: error; blind 0: right -> vision introduced
		mk("2", 1, "T1", "perception"), // reference 2: error; blind 2: same wrong option -> language prior
		mk("3", 2, "T2", "temporal"),   // reference 0: error; blind 3: another wrong option
		mk("4", 3, "", ""),             // reference 0: error; blind did not answer
		mk("5", 0, "T2", "temporal"),   // reference right
		mk("6", 1, "T3", "temporal"),   // reference right
		mk("7", 1, "T3", "temporal"),   // no reference answer
	}
	ref := map[string]int{items[0].Key(): 1, items[1].Key(): 2, items[2].Key(): 0, items[3].Key(): 0, items[4].Key(): 0, items[5].Key(): 1}
	scores := []ItemScore{
		{Item: 0, Attacker: "blind-reader", Choice: 0, Scored: true},
		{Item: 1, Attacker: "blind-reader", Choice: 2, Scored: true},
		{Item: 2, Attacker: "blind-reader", Choice: 3, Scored: true},
		{Item: 3, Attacker: "blind-reader", Choice: 3, Scored: true, Abstained: true},
		{Item: 0, Attacker: "options-reader", Choice: 1, Scored: true},
	}
	got := ErrorAttributions(items, ref, scores, "blind-reader", false)["B"]
	top := 0.75
	want := &ErrorAttribution{
		Note:     attributionNote + "; the rules read blind-reader, another model than the reference's: context only, as the authors apply them to the erring model's own text-only run",
		Answered: 6, Errors: 4, Few: true,
		ByTask:      []LabelShare{{"T1", 2, 0.5}, {"(none)", 1, 0.25}, {"T2", 1, 0.25}},
		ByGroup:     []LabelShare{{"perception", 2, 0.5}, {"(none)", 1, 0.25}, {"temporal", 1, 0.25}},
		TopTwoShare: &top, Leading: []string{"T1"},
		BlindReader: "blind-reader", BlindAnswered: 3, LanguagePrior: 1, VisionIntroduced: 1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Ties lead together; without a blind reader the rules do not run.
	tied := ErrorAttributions(items[:3], map[string]int{items[0].Key(): 1, items[2].Key(): 0}, nil, "", false)["B"]
	if !reflect.DeepEqual(tied.Leading, []string{"T1", "T2"}) || *tied.TopTwoShare != 1 || tied.BlindAnswered != 0 || tied.Note != attributionNote+"; the rules do not run: the run has no blind reader" {
		t.Errorf("ties: %+v", tied)
	}
}
