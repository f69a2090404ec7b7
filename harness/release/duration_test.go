package release

import (
	"math"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// The authors' EDGES (Video-Index pool/scenes.py): [0, 10), [10, 30),
// [30, 60), [60, 180), [180, 600), [600, 1800), [1800, ...); a length
// their duration_group gives no group (negative, NaN) is unknown.
func TestDurationGroupsAreTheAuthorsEdges(t *testing.T) {
	t.Parallel()
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		it   harness.Item
		want string
	}{
		{harness.Item{Duration: f(0)}, "0-10s"},
		{harness.Item{Duration: f(9.999)}, "0-10s"},
		{harness.Item{Duration: f(10)}, "10-30s"},
		{harness.Item{Duration: f(29.9)}, "10-30s"},
		{harness.Item{Duration: f(30)}, "30-60s"},
		{harness.Item{Duration: f(60)}, "1-3m"},
		{harness.Item{Duration: f(179.5)}, "1-3m"},
		{harness.Item{Duration: f(180)}, "3-10m"},
		{harness.Item{Duration: f(600)}, "10-30m"},
		{harness.Item{Duration: f(1799)}, "10-30m"},
		{harness.Item{Duration: f(1800)}, "30m+"},
		{harness.Item{Duration: f(86400)}, "30m+"},
		{harness.Item{Duration: f(-1)}, UnknownDuration},
		{harness.Item{Duration: f(math.NaN())}, UnknownDuration},
		{harness.Item{Start: f(100), End: f(125)}, "10-30s"},
		{harness.Item{Start: f(100)}, UnknownDuration},
		{harness.Item{}, UnknownDuration},
	} {
		if got := DurationGroup(&c.it); got != c.want {
			t.Errorf("DurationGroup(duration %v, start %v, end %v) = %s, want %s", c.it.Duration, c.it.Start, c.it.End, got, c.want)
		}
	}
	want := []string{"0-10s", "10-30s", "30-60s", "1-3m", "3-10m", "10-30m", "30m+", "short", "medium", "long", UnknownDuration}
	if got := DurationGroups(); !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}

// An item with no length in seconds is grouped by its duration category
// when it is Video-MME's (short, medium, long: lmms-eval's videomme
// utils.py VIDEO_TYPE); seconds, where given, win, and a category select
// does not know stays unknown rather than being read as a length.
func TestDurationGroupByCategory(t *testing.T) {
	t.Parallel()
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		it   harness.Item
		want string
	}{
		{harness.Item{DurationCategory: "short"}, "short"},
		{harness.Item{DurationCategory: "medium"}, "medium"},
		{harness.Item{DurationCategory: " Long "}, "long"},
		{harness.Item{DurationCategory: "long", Duration: f(42)}, "30-60s"},
		{harness.Item{DurationCategory: "long", Start: f(0), End: f(5)}, "0-10s"},
		{harness.Item{DurationCategory: "very long"}, UnknownDuration},
		{harness.Item{DurationCategory: ""}, UnknownDuration},
	} {
		if got := DurationGroup(&c.it); got != c.want {
			t.Errorf("DurationGroup(category %q, duration %v) = %s, want %s", c.it.DurationCategory, c.it.Duration, got, c.want)
		}
	}
	if err := checkDurations([]string{"short", "long", "30m+", UnknownDuration}); err != nil {
		t.Errorf("checkDurations: %v", err)
	}
	if err := checkDurations([]string{"very long"}); err == nil {
		t.Error("checkDurations accepted \"very long\"")
	}
	ranks := []int{durationRank("30m+"), durationRank("short"), durationRank("medium"), durationRank("long"), durationRank(UnknownDuration)}
	if !slices.IsSorted(ranks) || len(slices.Compact(slices.Clone(ranks))) != len(ranks) {
		t.Errorf("ranks %v: want 30m+ < short < medium < long < unknown", ranks)
	}
}
