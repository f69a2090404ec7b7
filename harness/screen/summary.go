package screen

import (
	"slices"
	"strings"
)

// A Summary says, for one benchmark, what the funnel removes and why.
type Summary struct {
	Benchmark string `json:"benchmark"`
	Items     int    `json:"items"`
	// Screening lists the attack steps that screen the benchmark, in
	// funnel order: the model readers, and the learners and matchers its
	// card finds significantly above chance (all of them with
	// Options.EveryAttacker).
	Screening []string `json:"screening"`
	Kept      int      `json:"kept"`
	Removed   int      `json:"removed"`
	// Pending counts the items whose video failed before a step that reads
	// it: neither kept nor removed.
	Pending int `json:"pending"`
	// Funnel holds, per step of Screen.Funnel, the items that entered it,
	// those it removed and those left pending at it (the authors'
	// funnel.csv per benchmark).
	Funnel []Step `json:"funnel"`
	// ByAttacker counts the items each screening attacker solves, whichever
	// step removed them, in the run's attacker order: the detail behind
	// the funnel (Row.SolvedBy).
	ByAttacker []Count `json:"solved_by_attacker"`
	// AnswerSuspect counts the items the run's answer verification does
	// not keep (Row.AnswerSuspect), kept by the funnel or not; absent when
	// the run verified no answers.
	AnswerSuspect *int `json:"answer_suspect,omitempty"`
}

// A Step is one funnel step's counts.
type Step struct {
	Name     string `json:"name"`
	Entering int    `json:"entering"`
	Removed  int    `json:"removed"`
	Pending  int    `json:"pending"`
}

// A Count is a number of items under a name.
type Count struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
}

// summarise builds the per-benchmark summaries, sorted by benchmark.
func summarise(s *Screen, gated map[string][]string) []Summary {
	var screening []string
	for _, k := range attackSteps(s.Attackers) {
		screening = append(screening, s.Attackers[k].Name)
	}
	var solvers []string
	for _, a := range s.Attackers {
		if a.Screens {
			solvers = append(solvers, a.Name)
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
				if screensOn(n, r.Benchmark, gated, &s.Options) {
					b.Screening = append(b.Screening, n)
				}
			}
			for _, st := range s.Funnel {
				b.Funnel = append(b.Funnel, Step{Name: st})
			}
			for _, n := range solvers {
				b.ByAttacker = append(b.ByAttacker, Count{Name: n})
			}
			at[r.Benchmark] = b
			out = append(out, b)
		}
		b.Items++
		switch {
		case r.Kept:
			b.Kept++
		case r.Pending != "":
			b.Pending++
		default:
			b.Removed++
		}
		for _, n := range r.SolvedBy {
			b.ByAttacker[slices.Index(solvers, n)].Items++
		}
		// The item enters each step up to the one that removed it or
		// left it pending.
		for k := range b.Funnel {
			st := &b.Funnel[k]
			st.Entering++
			if st.Name == r.RemovedBy {
				st.Removed++
				break
			}
			if st.Name == r.Pending {
				st.Pending++
				break
			}
		}
	}
	slices.SortFunc(out, func(x, y *Summary) int { return strings.Compare(x.Benchmark, y.Benchmark) })
	res := make([]Summary, len(out))
	for k, b := range out {
		res[k] = *b
	}
	return res
}
