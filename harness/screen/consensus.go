package screen

import (
	"slices"
	"strings"
)

// Thresholds are the consensus levels of Video-Oasis (Table 3): an item is a
// shortcut at c when at least c diagnostic tests solve it.
var Thresholds = []int{1, 2, 3}

// Consensus is the Video-Oasis view of a run (seed 003, section 3.2): the
// diagnostic tests are attackers that see no video or a degraded one (every
// attacker of the audit, unless Options.Diagnostics names fewer).
type Consensus struct {
	Thresholds  []int    `json:"thresholds"`
	Diagnostics []string `json:"diagnostics"`
	// Benchmarks holds the shortcut ratios of each benchmark, sorted by
	// name; Groups those of each capability group over all benchmarks
	// (items without a group under ""), sorted by name.
	Benchmarks []Shortcuts `json:"benchmarks"`
	Groups     []Shortcuts `json:"groups"`
	// Tests counts, per diagnostic test in the run's attacker order, the
	// items it solves (Total) and those it alone solves (Unique: solved by
	// this test and no other), over the whole run (Video-Oasis Table 5).
	Tests []TestCount `json:"tests"`
	// Ambiguity counts the items flagged for review, over the whole run.
	Ambiguity Ambiguity `json:"ambiguity"`
}

// Shortcuts are the consensus counts of a set of items.
type Shortcuts struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
	// Shortcuts[k] is the number of items at least Thresholds[k]
	// diagnostic tests solve, and Ratio[k] its share of Items.
	Shortcuts []int     `json:"shortcuts"`
	Ratio     []float64 `json:"ratio"`
	// Tests counts per diagnostic test, as Consensus.Tests, within the set.
	Tests     []TestCount `json:"tests"`
	Ambiguity Ambiguity   `json:"ambiguity"`
}

// A TestCount is one diagnostic test's total and unique solved items.
type TestCount struct {
	Test   string `json:"test"`
	Total  int    `json:"total"`
	Unique int    `json:"unique"`
}

// Ambiguity counts the items of each ambiguity flag (Video-Oasis Table 4).
type Ambiguity struct {
	Consistency int `json:"consistency"`
	Redundancy  int `json:"redundancy"`
	Sensitivity int `json:"sensitivity"`
	// Any counts the items with at least one flag: ambiguity.parquet's rows.
	Any int `json:"any"`
}

// consensus computes the consensus counts of s.
func consensus(s *Screen) *Consensus {
	c := &Consensus{Thresholds: Thresholds, Diagnostics: []string{}}
	var diag []int
	for k, a := range s.Attackers {
		if a.Diagnostic {
			diag = append(diag, k)
			c.Diagnostics = append(c.Diagnostics, a.Name)
		}
	}
	newSet := func(name string) *Shortcuts {
		sh := &Shortcuts{Name: name, Shortcuts: make([]int, len(Thresholds)), Ratio: make([]float64, len(Thresholds))}
		for _, k := range diag {
			sh.Tests = append(sh.Tests, TestCount{Test: s.Attackers[k].Name})
		}
		return sh
	}
	all := newSet("")
	bench, group := map[string]*Shortcuts{}, map[string]*Shortcuts{}
	for i := range s.Rows {
		r := &s.Rows[i]
		for _, set := range []struct {
			m   map[string]*Shortcuts
			key string
		}{{bench, r.Benchmark}, {group, r.Group}} {
			if set.m[set.key] == nil {
				set.m[set.key] = newSet(set.key)
			}
		}
		for _, sh := range []*Shortcuts{all, bench[r.Benchmark], group[r.Group]} {
			sh.add(r, diag)
		}
	}
	c.Tests, c.Ambiguity = all.Tests, all.Ambiguity
	c.Benchmarks = sortedSets(bench)
	c.Groups = sortedSets(group)
	return c
}

// add counts row r (diag: the indices of the diagnostic attackers).
func (sh *Shortcuts) add(r *Row, diag []int) {
	sh.Items++
	for k, t := range Thresholds {
		if int(r.Diagnostics) >= t {
			sh.Shortcuts[k]++
		}
	}
	for j, k := range diag {
		if r.Verdicts[k].Solved {
			sh.Tests[j].Total++
			if r.Diagnostics == 1 {
				sh.Tests[j].Unique++
			}
		}
	}
	if r.Consistency {
		sh.Ambiguity.Consistency++
	}
	if r.Redundancy {
		sh.Ambiguity.Redundancy++
	}
	if r.Sensitivity {
		sh.Ambiguity.Sensitivity++
	}
	if r.Ambiguous() {
		sh.Ambiguity.Any++
	}
	for k := range Thresholds {
		sh.Ratio[k] = float64(sh.Shortcuts[k]) / float64(sh.Items)
	}
}

func sortedSets(m map[string]*Shortcuts) []Shortcuts {
	out := make([]Shortcuts, 0, len(m))
	for _, sh := range m {
		out = append(out, *sh)
	}
	slices.SortFunc(out, func(x, y Shortcuts) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// Ambiguous reports whether the row carries an ambiguity flag: it goes to
// ambiguity.parquet for a person to review.
func (r *Row) Ambiguous() bool { return r.Consistency || r.Redundancy || r.Sensitivity }
