package release

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// A durationGroup is a half-open range of clip lengths [lo, hi) in seconds.
type durationGroup struct {
	name   string
	lo, hi float64
}

// durationGroups are the seven duration groups the selector rotates over.
// Video-Index 5.2 composes over "seven duration groups" without listing
// them; these bounds split the lengths of video QA benchmarks from short
// clips to hour-long videos roughly geometrically.
var durationGroups = []durationGroup{
	{"0-15s", 0, 15},
	{"15-60s", 15, 60},
	{"1-3m", 60, 180},
	{"3-10m", 180, 600},
	{"10-30m", 600, 1800},
	{"30-60m", 1800, 3600},
	{"60m+", 3600, 0},
}

// UnknownDuration is the duration group of an item whose source gives no
// length (neither duration nor start and end).
const UnknownDuration = "unknown"

// DurationGroups lists the names of the duration groups, shortest first,
// then UnknownDuration.
func DurationGroups() []string {
	out := make([]string, 0, len(durationGroups)+1)
	for _, g := range durationGroups {
		out = append(out, g.name)
	}
	return append(out, UnknownDuration)
}

// DurationGroup returns the duration group of it: by its duration, else by
// end - start when both clip bounds are given, else UnknownDuration.
func DurationGroup(it *harness.Item) string {
	var d float64
	switch {
	case it.Duration != nil:
		d = *it.Duration
	case it.Start != nil && it.End != nil:
		d = *it.End - *it.Start
	default:
		return UnknownDuration
	}
	for _, g := range durationGroups {
		if d >= g.lo && (g.hi == 0 || d < g.hi) {
			return g.name
		}
	}
	return UnknownDuration // negative or NaN: the source says nothing usable
}

// durationRank orders duration groups shortest first, unknown last.
func durationRank(name string) int {
	for i, g := range durationGroups {
		if g.name == name {
			return i
		}
	}
	return len(durationGroups)
}

// checkDurations refuses a duration group name that does not exist.
func checkDurations(names []string) error {
	for _, n := range names {
		if durationRank(n) == len(durationGroups) && n != UnknownDuration {
			return fmt.Errorf("unknown duration group %q (want one of %s)", n, strings.Join(DurationGroups(), ", "))
		}
	}
	return nil
}
