package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// CountFailures fills each card's Failures: failures[i] is why item i's
// video gave no features ("" when it did, or when no video level ran). A
// frame or order level that is not run because every video of the
// benchmark failed (Config.Failures) then says how many and why (issue 20,
// point 11), e.g. "30 videos failed: missing 30".
func CountFailures(cards []Card, items []*harness.Item, failures []string) {
	at := map[string]*Card{}
	for k := range cards {
		at[cards[k].Benchmark] = &cards[k]
	}
	// videos[benchmark][reason] holds the distinct videos that failed so.
	videos := map[string]map[string]map[string]bool{}
	for i, f := range failures {
		if f == "" {
			continue
		}
		b := items[i].Benchmark
		c := at[b]
		if c == nil {
			continue
		}
		if c.Failures == nil {
			c.Failures = map[string]int{}
		}
		c.Failures[f]++
		if videos[b] == nil {
			videos[b] = map[string]map[string]bool{}
		}
		if videos[b][f] == nil {
			videos[b][f] = map[string]bool{}
		}
		videos[b][f][items[i].Video] = true
	}
	for b, byReason := range videos {
		c := at[b]
		for l, why := range c.LevelsNotRun {
			if why == videosFailed {
				c.LevelsNotRun[l] = failedVideos(byReason)
			}
		}
	}
}

// videosFailed is the reason notRunForFailures gives before CountFailures
// says how many videos failed and why.
const videosFailed = "every video of the benchmark failed"

// notRunForFailures takes the frame and order levels out of a card when the
// video of every one of its items failed (failures[i] non-empty; nil when
// no video level ran): their attackers then abstained on everything for
// want of a video, which is not a result (issue 20, point 11: a wrong
// --videos root drew frame and order bars). The levels below are kept; the
// card's LevelsNotRun says why, and CountFailures adds the count.
func notRunForFailures(c *Card, items []*harness.Item, members []int, failures []string) {
	if failures == nil || len(members) == 0 {
		return
	}
	for _, i := range members {
		if failures[i] == "" {
			return
		}
	}
	for _, l := range []harness.Level{harness.LevelFrame, harness.LevelOrder} {
		if c.Levels.At(l) == nil {
			continue
		}
		c.Levels.Set(l, nil)
		if c.LevelsNotRun == nil {
			c.LevelsNotRun = map[string]string{}
		}
		c.LevelsNotRun[l.String()] = videosFailed
	}
}

// failedVideos says how many distinct videos failed, by reason, most
// frequent first: "30 videos failed: missing 28, corrupt 2".
func failedVideos(byReason map[string]map[string]bool) string {
	reasons := make([]string, 0, len(byReason))
	all := map[string]bool{}
	for r, vs := range byReason {
		reasons = append(reasons, r)
		for v := range vs {
			all[v] = true
		}
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if d := len(byReason[b]) - len(byReason[a]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(reasons))
	for k, r := range reasons {
		parts[k] = fmt.Sprintf("%s %d", r, len(byReason[r]))
	}
	noun := "videos"
	if len(all) == 1 {
		noun = "video"
	}
	return fmt.Sprintf("%d %s failed: %s", len(all), noun, strings.Join(parts, ", "))
}
