package screen

import (
	"fmt"
	"math"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
)

// An Input is what screening reads of a finished audit (Open): the run's
// attackers (Name and Level) and one Row per item with its provenance,
// cluster, quality flags, failure and, per attacker, the raw verdict
// (everything but Solved). Compute fills in the rest.
type Input struct {
	Run        string
	Attackers  []Attacker
	Rows       []Row
	Embeddings Embeddings
	// Significant lists, per benchmark, the attackers its card finds
	// significantly above chance (cards.json); nil when unknown, and every
	// screening attacker then screens every benchmark.
	Significant map[string][]string
}

// Compute screens in by opt. It does not modify in.
func Compute(in *Input, opt Options) (*Screen, error) {
	names := make([]string, len(in.Attackers))
	for k, a := range in.Attackers {
		names[k] = a.Name
	}
	opt, err := opt.resolve(names)
	if err != nil {
		return nil, err
	}
	var drop harness.Quality
	for _, f := range opt.DropQuality {
		q, ok := harness.Flag(f)
		if !ok {
			return nil, fmt.Errorf("drop-quality: %q is not a data-quality flag (want one of %v)", f, harness.QualityNames())
		}
		drop |= q
	}
	s := &Screen{Run: in.Run, Options: opt, Embeddings: in.Embeddings}
	for _, a := range in.Attackers {
		a.Rule = RuleCorrect
		if opt.isReader(a.Name) {
			a.Rule = RuleMargin
		}
		a.Screens = slices.Contains(opt.Attackers, a.Name)
		a.Diagnostic = slices.Contains(opt.Diagnostics, a.Name)
		s.Attackers = append(s.Attackers, a)
	}
	window := make([]bool, len(s.Attackers))
	shuffled := make([]bool, len(s.Attackers))
	for k, a := range s.Attackers {
		window[k] = slices.Contains(opt.Window, a.Name)
		shuffled[k] = slices.Contains(opt.Shuffled, a.Name)
	}
	// An attacker no better than chance on a benchmark solves its items by
	// luck: it screens only where its card finds it significant, unless
	// opt.EveryAttacker.
	gated := in.Significant
	if opt.EveryAttacker {
		gated = nil
	}
	s.Rows = make([]Row, len(in.Rows))
	votes := make([]int, harness.MaxOptions)
	for i := range in.Rows {
		r := in.Rows[i]
		if len(r.Verdicts) != len(s.Attackers) {
			return nil, fmt.Errorf("item %s of %s: %d verdicts for %d attackers", r.ID, r.Benchmark, len(r.Verdicts), len(s.Attackers))
		}
		r.Verdicts = slices.Clone(r.Verdicts)
		r.SolvedBy, r.Reasons = []string{}, []string{}
		r.MaxMargin = math.NaN()
		r.Diagnostics = 0
		r.Redundancy, r.Sensitivity = false, false
		clear(votes)
		answers := 0
		for k := range r.Verdicts {
			v := &r.Verdicts[k]
			a := &s.Attackers[k]
			v.Solved = solved(v, a.Rule)
			if a.Screens && v.Scored && (math.IsNaN(r.MaxMargin) || v.Margin > r.MaxMargin) {
				r.MaxMargin = v.Margin
			}
			if v.Solved && a.Screens && (gated == nil || slices.Contains(gated[r.Benchmark], a.Name)) {
				r.SolvedBy = append(r.SolvedBy, a.Name)
			}
			if !a.Diagnostic {
				continue
			}
			if v.Solved {
				r.Diagnostics++
				r.Redundancy = r.Redundancy || window[k]
				r.Sensitivity = r.Sensitivity || shuffled[k]
			}
			if v.Scored && !v.Abstained && v.Choice >= 0 && int(v.Choice) < len(votes) {
				votes[v.Choice]++
				answers++
			}
		}
		r.Agreement = 0
		if answers > 0 {
			r.Agreement = float64(slices.Max(votes)) / float64(answers)
		}
		// Diagnostics disagree when no option has a strict majority of
		// their answers (Video-Oasis: "models fail to reach a consensus").
		r.Consistency = answers >= 2 && 2*slices.Max(votes) <= answers
		s.Rows[i] = r
	}
	markCrossDuplicates(s.Rows)
	for i := range s.Rows {
		r := &s.Rows[i]
		if len(r.SolvedBy) > 0 {
			r.Reasons = append(r.Reasons, ReasonSolved)
		}
		if r.CrossDuplicate {
			r.Reasons = append(r.Reasons, ReasonDuplicate)
		}
		if r.Failure != "" {
			r.Reasons = append(r.Reasons, ReasonFailed)
		}
		if drop != 0 && qualityOf(r.Quality)&drop != 0 {
			r.Reasons = append(r.Reasons, ReasonQuality)
		}
		r.Kept = len(r.Reasons) == 0
	}
	s.Benchmarks = summarise(s, gated)
	s.Consensus = consensus(s)
	return s, nil
}

// solved applies an attacker's rule to its verdict. A seeded guess never
// solves an item, nor does an answer on an order that did not score it.
func solved(v *Verdict, rule string) bool {
	if !v.Scored || v.Abstained || v.Choice < 0 {
		return false
	}
	if rule == RuleMargin {
		return v.Margin > ln2
	}
	return v.Correct
}

func qualityOf(names []string) harness.Quality {
	var q harness.Quality
	for _, n := range names {
		if f, ok := harness.Flag(n); ok {
			q |= f
		}
	}
	return q
}

// markCrossDuplicates sets CrossDuplicate on the items of clusters that
// span several benchmarks: the cluster stays with the benchmark of its
// first member (in run order) that no screening attacker solves, or of its
// first member when every one is solved; the members of the other
// benchmarks go (Video-Index 5.1: "we then drop near-duplicate questions
// across sources"). Duplicates within one source stay for the selector's
// cap per question template. ClusterSize is filled in too.
func markCrossDuplicates(rows []Row) {
	members := map[int32][]int{}
	var order []int32
	for i := range rows {
		c := rows[i].Cluster
		if c < 0 {
			rows[i].ClusterSize, rows[i].CrossDuplicate = 1, false
			continue
		}
		if _, ok := members[c]; !ok {
			order = append(order, c)
		}
		members[c] = append(members[c], i)
	}
	for _, c := range order {
		m := members[c]
		for _, i := range m {
			rows[i].ClusterSize = int32(len(m))
			rows[i].CrossDuplicate = false
		}
		keep := rows[m[0]].Benchmark
		for _, i := range m {
			if len(rows[i].SolvedBy) == 0 {
				keep = rows[i].Benchmark
				break
			}
		}
		for _, i := range m {
			rows[i].CrossDuplicate = rows[i].Benchmark != keep
		}
	}
}
