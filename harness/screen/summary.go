package screen

import (
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// A Summary says, for one benchmark, what screening removes and why.
type Summary struct {
	Benchmark string `json:"benchmark"`
	Items     int    `json:"items"`
	// Screening lists the attackers that screen the benchmark: the
	// screening attackers its card finds significantly above chance (all
	// of them with Options.EveryAttacker).
	Screening []string `json:"screening"`
	Kept      int      `json:"kept"`
	Removed   int      `json:"removed"`
	// Items removed for each reason; an item may have several, so these
	// can add up to more than Removed.
	Solved     int `json:"solved"`
	Duplicates int `json:"cross_duplicates"`
	Failed     int `json:"failed"`
	Quality    int `json:"quality"`
	// ByLevel counts the solved items by the lowest level of the pyramid
	// whose screening attacker solves them, in pyramid order (levels that
	// solve nothing are listed with 0).
	ByLevel []Count `json:"solved_by_level"`
	// ByAttacker counts the items each screening attacker solves, in the
	// run's attacker order.
	ByAttacker []Count `json:"solved_by_attacker"`
	// Chain counts the items left after each stage, applied in turn: the
	// attacks, the cross-source near-duplicates, the failed videos, the
	// quality flags (the chain of Video-Index 5.1 and Figure 1).
	Chain []Count `json:"chain"`
}

// A Count is a number of items under a name.
type Count struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
}

// summarise builds the per-benchmark summaries, sorted by benchmark.
func summarise(s *Screen, gated map[string][]string) []Summary {
	var levels []string
	for _, l := range harness.Levels() {
		for _, a := range s.Attackers {
			if a.Screens && a.Level == l.String() && !slices.Contains(levels, a.Level) {
				levels = append(levels, a.Level)
			}
		}
	}
	for _, a := range s.Attackers { // levels the harness does not know, last
		if a.Screens && !slices.Contains(levels, a.Level) {
			levels = append(levels, a.Level)
		}
	}
	level := map[string]string{}
	var screening []string
	for _, a := range s.Attackers {
		level[a.Name] = a.Level
		if a.Screens {
			screening = append(screening, a.Name)
		}
	}
	at := map[string]*Summary{}
	var out []*Summary
	for i := range s.Rows {
		r := &s.Rows[i]
		b := at[r.Benchmark]
		if b == nil {
			b = &Summary{Benchmark: r.Benchmark, Screening: []string{}}
			for _, n := range screening {
				if gated == nil || slices.Contains(gated[r.Benchmark], n) {
					b.Screening = append(b.Screening, n)
				}
			}
			for _, l := range levels {
				b.ByLevel = append(b.ByLevel, Count{Name: l})
			}
			for _, n := range screening {
				b.ByAttacker = append(b.ByAttacker, Count{Name: n})
			}
			for _, st := range []string{"items", "after attacks", "after cross-source duplicates", "after failed videos", "after quality flags"} {
				b.Chain = append(b.Chain, Count{Name: st})
			}
			at[r.Benchmark] = b
			out = append(out, b)
		}
		b.Items++
		if r.Kept {
			b.Kept++
		} else {
			b.Removed++
		}
		has := func(reason string) bool { return slices.Contains(r.Reasons, reason) }
		if has(ReasonSolved) {
			b.Solved++
			lowest := len(levels)
			for _, n := range r.SolvedBy {
				b.ByAttacker[slices.Index(screening, n)].Items++
				lowest = min(lowest, slices.Index(levels, level[n]))
			}
			b.ByLevel[lowest].Items++
		}
		if has(ReasonDuplicate) {
			b.Duplicates++
		}
		if has(ReasonFailed) {
			b.Failed++
		}
		if has(ReasonQuality) {
			b.Quality++
		}
		// The chain: an item leaves at its first reason.
		left := 0
		for k, reason := range []string{ReasonSolved, ReasonDuplicate, ReasonFailed, ReasonQuality} {
			if has(reason) {
				break
			}
			left = k + 1
		}
		for k := 0; k <= left; k++ {
			b.Chain[k].Items++
		}
	}
	slices.SortFunc(out, func(x, y *Summary) int { return strings.Compare(x.Benchmark, y.Benchmark) })
	res := make([]Summary, len(out))
	for k, b := range out {
		res[k] = *b
	}
	return res
}
