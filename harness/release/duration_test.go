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
	want := []string{"0-10s", "10-30s", "30-60s", "1-3m", "3-10m", "10-30m", "30m+", UnknownDuration}
	if got := DurationGroups(); !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}
