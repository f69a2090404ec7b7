package release

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// A durationGroup is a half-open range of clip lengths [lo, hi) in seconds.
type durationGroup struct {
	name   string
	lo, hi float64
}

// durationGroups are the seven duration groups the selector rotates over:
// the bounds of Video-Index's pool/scenes.py (EDGES = 0, 10, 30, 60, 180,
// 600, 1800 s; its GROUPS "<10s" ... ">30min"), under names that need no
// quoting in a shell (--durations 0-10s). The authors compare scenes only
// inside a group, because the mean frame vector of a long video lies closer
// to the centroid than a short clip's (Scenes).
var durationGroups = []durationGroup{
	{"0-10s", 0, 10},
	{"10-30s", 10, 30},
	{"30-60s", 30, 60},
	{"1-3m", 60, 180},
	{"3-10m", 180, 600},
	{"10-30m", 600, 1800},
	{"30m+", 1800, 0},
}

// UnknownDuration is the duration group of an item whose source gives no
// length (neither duration nor start and end) and no duration category it
// knows.
const UnknownDuration = "unknown"

// durationCategories are the duration categories a benchmark gives instead
// of seconds that select groups by, shortest first: Video-MME's short
// (< 2 min), medium (4-15 min) and long (30-60 min) (Video-MME paper, 3.1;
// lmms-eval's videomme utils.py, VIDEO_TYPE). They sit beside the seconds
// groups, not inside them: the category is the benchmark's word, and
// turning it into seconds would invent a length.
var durationCategories = harness.DurationCategories()

// DurationGroups lists the names of the duration groups, shortest first,
// then the duration categories, then UnknownDuration.
func DurationGroups() []string {
	out := make([]string, 0, len(durationGroups)+len(durationCategories)+1)
	for _, g := range durationGroups {
		out = append(out, g.name)
	}
	out = append(out, durationCategories...)
	return append(out, UnknownDuration)
}

// DurationGroup returns the duration group of it: by its duration, else by
// end - start when both clip bounds are given, else its duration category
// when it is one of durationCategories, else UnknownDuration.
func DurationGroup(it *harness.Item) string {
	var d float64
	switch {
	case it.Duration != nil:
		d = *it.Duration
	case it.Start != nil && it.End != nil:
		d = *it.End - *it.Start
	default:
		if c := strings.ToLower(strings.TrimSpace(it.DurationCategory)); slices.Contains(durationCategories, c) {
			return c
		}
		return UnknownDuration
	}
	return durationGroupOf(d)
}

// durationGroupOf is the group of a length of d seconds: the authors'
// duration_group (lo <= d < hi), UnknownDuration for a negative or NaN
// length, where theirs gives None.
func durationGroupOf(d float64) string {
	for _, g := range durationGroups {
		if d >= g.lo && (g.hi == 0 || d < g.hi) {
			return g.name
		}
	}
	return UnknownDuration
}

// durationRank orders duration groups shortest first, then the duration
// categories, unknown last.
func durationRank(name string) int {
	for i, g := range durationGroups {
		if g.name == name {
			return i
		}
	}
	if i := slices.Index(durationCategories, name); i >= 0 {
		return len(durationGroups) + i
	}
	return len(durationGroups) + len(durationCategories)
}

// checkDurations refuses a duration group name that does not exist.
func checkDurations(names []string) error {
	for _, n := range names {
		if durationRank(n) == len(durationGroups)+len(durationCategories) && n != UnknownDuration {
			return fmt.Errorf("unknown duration group %q (want one of %s)", n, strings.Join(DurationGroups(), ", "))
		}
	}
	return nil
}
