package screen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/solve"
)

// Thresholds are the consensus levels of Video-Oasis (section 3.2, Table 3):
// an item is a shortcut of a test at c when every one of the test's
// diagnostic models answered it and at least c of them answered it
// correctly (aggregate_results.py evaluate_test: a test with a model
// missing its answer is "incomplete", never positive).
var Thresholds = []int{1, 2, 3}

// The six diagnostic tests of Video-Oasis (section 3.1, criteria 1 and 2),
// in the paper's order.
const (
	TestBlind          = "blind"
	TestAudio          = "audio transcript"
	TestSummary        = "caption summary"
	TestCentreFrame    = "centre frame"
	TestFrameShuffling = "frame shuffling"
	TestBagOfFrames    = "bag-of-frames"
)

// Tests lists the diagnostic tests in the paper's order.
var Tests = []string{TestBlind, TestAudio, TestSummary, TestCentreFrame, TestFrameShuffling, TestBagOfFrames}

// A diagnosticModel maps one attacker of the audit to the Video-Oasis test
// it runs and the model it runs it with. Attackers that share a test and a
// model are variants of one model (one image tower's bag-of-frames mean and
// max): the model counts once, by its first variant the run has. Learners
// and the text-level matcher are no test's models (Video-Oasis 3.2: the
// tests are run by Video-LLMs and frozen VLMs, not by anything fitted to
// the benchmark). The audio transcript test's models are the transcript
// attackers, which run where the models directory has an asr role.
type diagnosticModel struct{ attacker, test, model string }

var diagnosticModels = []diagnosticModel{
	{"blind-reader", TestBlind, "lm_reader"},
	{"transcript-reader", TestAudio, "lm_reader"},
	{"transcript-match", TestAudio, "text_embed"},
	{"captions-reader", TestSummary, "lm_reader"},
	{"captions-match", TestSummary, "text_embed"},
	{"centre-frame-reader", TestCentreFrame, "vlm_reader"},
	{"centre-frame", TestCentreFrame, "image_text"},
	{"centre-frame-qa", TestCentreFrame, "image_text"},
	{"shuffled-frames-reader", TestFrameShuffling, "vlm_reader"},
	{"bag-of-frames-mean", TestBagOfFrames, "image_text"},
	{"bag-of-frames-max", TestBagOfFrames, "image_text"},
}

// testOf returns the diagnostic model an attacker is, if any. An attacker
// on a later entry of its role (attack.ModelName: blind-reader#2 on the
// second lm_reader entry) is a further model of its base's test, its model
// the role's entry ("lm_reader#2").
func testOf(attacker string) (diagnosticModel, bool) {
	base, k := attack.SplitModel(attacker)
	for _, d := range diagnosticModels {
		if d.attacker == base {
			if k > 0 {
				d.attacker, d.model = attacker, attack.ModelName(d.model, k)
			}
			return d, true
		}
	}
	return diagnosticModel{}, false
}

func diagnosticNames() []string {
	out := make([]string, len(diagnosticModels))
	for k, d := range diagnosticModels {
		out[k] = d.attacker
	}
	return out
}

// Consensus is the Video-Oasis view of a run (seed 003, section 3.2).
type Consensus struct {
	Thresholds []int `json:"thresholds"`
	// Diagnostics lists the attackers counted as diagnostic models.
	Diagnostics []string `json:"diagnostics"`
	// Tests describes each of the six tests: its models in this run.
	Tests []TestInfo `json:"tests"`
	// Benchmarks holds the shortcut ratios of each benchmark, sorted by
	// name; Groups those of each capability group over all benchmarks
	// (items without a group under ""), sorted by name.
	Benchmarks []Shortcuts `json:"benchmarks"`
	Groups     []Shortcuts `json:"groups"`
	// Counts holds, per test with a model, the items it makes shortcuts
	// (Total) and those no other test does (Unique), at each threshold,
	// over the whole run (Video-Oasis Table 5).
	Counts []TestCount `json:"counts"`
	// Ambiguity counts the items flagged for review, over the whole run.
	Ambiguity Ambiguity `json:"ambiguity"`
	// Rule is the consensus rule (Options.ConsensusRule).
	Rule string `json:"rule"`
	// Checks describes the three ambiguity checks: the attackers each
	// reads in this run and what it lacks.
	Checks []CheckInfo `json:"checks"`
}

// CheckInfo is one ambiguity check of a run.
type CheckInfo struct {
	Check     string   `json:"check"`
	Attackers []string `json:"attackers"`
	// Note says how the check departs from the authors' or why it could
	// not run ("" when it ran as theirs).
	Note string `json:"note"`
}

// TestInfo is one diagnostic test of a run.
type TestInfo struct {
	Test   string  `json:"test"`
	Models []Model `json:"models"`
	// Note says what the test lacks: "not run" without a model; ""
	// otherwise.
	Note string `json:"note"`
}

// A Model is one diagnostic model of a test: the attackers that are its
// variants, the first of which gives its answer.
type Model struct {
	Model     string   `json:"model"`
	Attackers []string `json:"attackers"`
}

// Shortcuts are the consensus counts of a set of items.
type Shortcuts struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
	// Shortcuts[k] is the number of items that are a shortcut of at least
	// one test at Thresholds[k], and Ratio[k] its share of Items.
	Shortcuts []int     `json:"shortcuts"`
	Ratio     []float64 `json:"ratio"`
	// Chance[k] is the ratio chance alone would give at Thresholds[k]: each
	// model that answered an item answering it at random, independently,
	// on each option order it is judged on (solveChance: one over the
	// option count on one order, three right of four for the options-only
	// and blind readers); the per-item probability (Poisson-binomial per
	// test, any test) averaged over the items.
	Chance []float64 `json:"chance"`
	// Tests counts per test, as Consensus.Counts, within the set.
	Tests     []TestCount `json:"tests"`
	Ambiguity Ambiguity   `json:"ambiguity"`
}

// A TestCount is one diagnostic test's total and unique shortcuts at each
// threshold.
type TestCount struct {
	Test   string `json:"test"`
	Total  []int  `json:"total"`
	Unique []int  `json:"unique"`
}

// Ambiguity counts the items of each ambiguity flag (Video-Oasis Table 4).
type Ambiguity struct {
	Consistency int `json:"consistency"`
	Redundancy  int `json:"redundancy"`
	Sensitivity int `json:"sensitivity"`
	// Restored counts the sensitivity candidates a person restored
	// (Options.Restored; Video-Oasis Table 4, "refined").
	Restored int `json:"restored"`
	// Any counts the items with at least one flag: ambiguity.parquet's rows.
	Any int `json:"any"`
}

// A diagTest is a test's models as indices of the screen's attackers (the
// answering variant of each model).
type diagTest struct {
	name   string
	models []int
}

// diagnosticTests groups the diagnostic attackers of s into the tests, in
// Tests order, and fills each attacker's Test and Model.
func diagnosticTests(s *Screen) ([]diagTest, []TestInfo) {
	var tests []diagTest
	var infos []TestInfo
	for _, t := range Tests {
		info := TestInfo{Test: t, Models: []Model{}}
		dt := diagTest{name: t}
		// In the table's order, each entry followed by its attackers on
		// the role's later entries (blind-reader, blind-reader#2, ...).
		var ds []diagnosticModel
		for _, d := range diagnosticModels {
			if d.test != t {
				continue
			}
			for _, a := range s.Attackers {
				if base, _ := attack.SplitModel(a.Name); base == d.attacker {
					if e, _ := testOf(a.Name); slices.Contains(s.Options.Diagnostics, e.attacker) {
						ds = append(ds, e)
					}
				}
			}
		}
		for _, d := range ds {
			k := slices.IndexFunc(s.Attackers, func(a Attacker) bool { return a.Name == d.attacker })
			s.Attackers[k].Test, s.Attackers[k].Model = d.test, d.model
			m := slices.IndexFunc(info.Models, func(m Model) bool { return m.Model == d.model })
			if m < 0 {
				info.Models = append(info.Models, Model{Model: d.model, Attackers: []string{d.attacker}})
				dt.models = append(dt.models, k)
				continue
			}
			info.Models[m].Attackers = append(info.Models[m].Attackers, d.attacker)
		}
		if len(info.Models) == 0 {
			info.Note = "not run: the run has no model of this test"
		}
		infos = append(infos, info)
		if len(dt.models) > 0 {
			tests = append(tests, dt)
		}
	}
	return tests, infos
}

// A consensusPlan is what rowConsensus reads besides the row: the tests,
// the rule, and which attackers the ambiguity checks read.
type consensusPlan struct {
	tests []diagTest
	rule  string
	// window and shuffled mark the attackers of the redundancy and
	// sensitivity checks; consistency lists those the consistency check
	// compares (indices of the screen's attackers).
	window, shuffled []bool
	consistency      []int
	// shuffling is the index in tests of the frame-shuffling test (-1
	// when the run has none), whose positives a person may restore.
	shuffling int
}

// answered reports whether v is an answer: scored, not a seeded guess, a
// choice among the item's options (the authors' prediction status "ok").
func answered(v *Verdict, options int) bool {
	return v.Scored && !v.Abstained && v.Choice >= 0 && int(v.Choice) < options
}

// solves reports whether v solves its item under the consensus rule.
func (p *consensusPlan) solves(v *Verdict, options int) bool {
	if p.rule == RuleSolve {
		return v.Solved
	}
	return answered(v, options) && v.Correct
}

// rowConsensus fills the consensus fields of r: per test the number of its
// models that solve it under the consensus rule (0 for a test one of whose
// models did not answer the item: the authors' "incomplete", and for the
// frame-shuffling test of an item a person restored), the largest of them,
// the agreement, the three ambiguity flags, and the chance of a shortcut at
// each threshold.
func rowConsensus(r *Row, p *consensusPlan, votes []int) (perTest []int, chance []float64) {
	perTest = make([]int, len(p.tests))
	r.Diagnostics = 0
	clear(votes)
	answers := 0
	nopt := len(r.Options)
	// none[k]: the chance that no test reaches Thresholds[k].
	none := make([]float64, len(Thresholds))
	for k := range none {
		none[k] = 1
	}
	for j, t := range p.tests {
		complete := true
		solved := 0
		var pr []float64
		for _, m := range t.models {
			v := &r.Verdicts[m]
			if !answered(v, nopt) {
				complete = false
				continue
			}
			votes[v.Choice]++
			answers++
			if p.solves(v, nopt) {
				solved++
			}
			q := 1 / float64(nopt)
			if p.rule == RuleSolve {
				q = solveChance(nopt, v.Orders)
			}
			pr = append(pr, q)
		}
		if !complete || (j == p.shuffling && r.Restored) {
			continue
		}
		perTest[j] = solved
		r.Diagnostics = max(r.Diagnostics, int32(solved))
		tail := atLeast(pr)
		for k, c := range Thresholds {
			if c < len(tail) {
				none[k] *= 1 - tail[c]
			}
		}
	}
	r.Agreement = 0
	if answers > 0 {
		r.Agreement = float64(slices.Max(votes)) / float64(answers)
	}
	r.Consistency = maximalDisagreement(r, p.consistency)
	r.Redundancy, r.Sensitivity = false, false
	for m := range r.Verdicts {
		s := p.solves(&r.Verdicts[m], nopt)
		r.Redundancy = r.Redundancy || p.window[m] && s
		r.Sensitivity = r.Sensitivity || p.shuffled[m] && s
	}
	chance = make([]float64, len(Thresholds))
	for k := range chance {
		chance[k] = 1 - none[k]
	}
	return perTest, chance
}

// maximalDisagreement is the authors' consistency rule (Video-Oasis
// ambiguity/consistency.py, rule "maximal-disagreement", its default): every
// model answered the item, and their answers take as many distinct options
// as they can, min(options, models): five models on four options cover all
// four, on five or more options answer five different ones. With fewer than
// two models the rule is empty (one answer always has one option) and the
// check does not run.
func maximalDisagreement(r *Row, models []int) bool {
	if len(models) < 2 {
		return false
	}
	var seen [harness.MaxOptions]bool
	distinct := 0
	for _, m := range models {
		v := &r.Verdicts[m]
		if !answered(v, len(r.Options)) {
			return false
		}
		if !seen[v.Choice] {
			seen[v.Choice] = true
			distinct++
		}
	}
	return distinct == min(len(r.Options), len(models))
}

// solveChance is the chance that a model answering at random solves an
// item of k options judged on orders option orders: one over k on one
// order; on several, the chance of at least as many right orders as the
// solve rule asks (three of four: solve.SolvesOrders), each order right
// with probability one over k independently. The margin condition has no
// chance counterpart and is left out, so this is an upper bound of the
// rule's chance (a blind reader on four orders of four options: 13/256,
// not 1/4).
func solveChance(k int, orders int32) float64 {
	q := 1 / float64(k)
	n := min(max(int(orders), 1), solve.Orders)
	need := (solve.MinCorrect*n + solve.Orders - 1) / solve.Orders
	p := make([]float64, n)
	for i := range p {
		p[i] = q
	}
	return atLeast(p)[need]
}

// atLeast returns, for independent events of probabilities p, the
// probability that at least c of them happen, for c = 0..len(p) (the
// Poisson-binomial tail, by the usual recurrence over the events).
func atLeast(p []float64) []float64 {
	exact := make([]float64, len(p)+1)
	exact[0] = 1
	for i, q := range p {
		for c := i + 1; c >= 1; c-- {
			exact[c] = exact[c]*(1-q) + exact[c-1]*q
		}
		exact[0] *= 1 - q
	}
	tail := make([]float64, len(p)+1)
	sum := 0.0
	for c := len(p); c >= 0; c-- {
		sum += exact[c]
		tail[c] = sum
	}
	return tail
}

// consensus computes the consensus counts of s.
func consensus(s *Screen) *Consensus {
	tests, infos := diagnosticTests(s)
	c := &Consensus{Thresholds: Thresholds, Diagnostics: slices.Clone(s.Options.Diagnostics), Tests: infos, Rule: s.Options.ConsensusRule}
	plan := &consensusPlan{tests: tests, rule: s.Options.ConsensusRule, window: make([]bool, len(s.Attackers)), shuffled: make([]bool, len(s.Attackers)),
		shuffling: slices.IndexFunc(tests, func(t diagTest) bool { return t.name == TestFrameShuffling })}
	for k, a := range s.Attackers {
		plan.window[k] = slices.Contains(s.Options.Window, a.Name)
		plan.shuffled[k] = slices.Contains(s.Options.Shuffled, a.Name)
		if slices.Contains(s.Options.Consistency, a.Name) {
			plan.consistency = append(plan.consistency, k)
		}
	}
	c.Checks = checks(s, plan)
	restored := map[string]bool{}
	for _, ref := range s.Options.Restored {
		restored[ref.Benchmark+"\x00"+ref.ID] = true
	}
	newSet := func(name string) *Shortcuts {
		sh := &Shortcuts{Name: name, Shortcuts: make([]int, len(Thresholds)), Ratio: make([]float64, len(Thresholds)), Chance: make([]float64, len(Thresholds)), Tests: []TestCount{}}
		for _, t := range tests {
			sh.Tests = append(sh.Tests, TestCount{Test: t.name, Total: make([]int, len(Thresholds)), Unique: make([]int, len(Thresholds))})
		}
		return sh
	}
	all := newSet("")
	bench, group := map[string]*Shortcuts{}, map[string]*Shortcuts{}
	votes := make([]int, harness.MaxOptions)
	for i := range s.Rows {
		r := &s.Rows[i]
		r.Restored = restored[r.Key()]
		perTest, chance := rowConsensus(r, plan, votes)
		for _, set := range []struct {
			m   map[string]*Shortcuts
			key string
		}{{bench, r.Benchmark}, {group, r.Group}} {
			if set.m[set.key] == nil {
				set.m[set.key] = newSet(set.key)
			}
		}
		for _, sh := range []*Shortcuts{all, bench[r.Benchmark], group[r.Group]} {
			sh.add(r, perTest, chance)
		}
	}
	for _, sh := range append([]*Shortcuts{all}, append(mapValues(bench), mapValues(group)...)...) {
		sh.finish()
	}
	c.Counts, c.Ambiguity = all.Tests, all.Ambiguity
	c.Benchmarks = sortedSets(bench)
	c.Groups = sortedSets(group)
	return c
}

func mapValues(m map[string]*Shortcuts) []*Shortcuts {
	out := make([]*Shortcuts, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// add counts row r: perTest holds how many of each test's models answer it
// correctly, chance its chance of a shortcut at each threshold.
func (sh *Shortcuts) add(r *Row, perTest []int, chance []float64) {
	sh.Items++
	for k, c := range Thresholds {
		if int(r.Diagnostics) >= c {
			sh.Shortcuts[k]++
		}
		sh.Chance[k] += chance[k]
		reached := 0
		for _, n := range perTest {
			if n >= c {
				reached++
			}
		}
		for j, n := range perTest {
			if n >= c {
				sh.Tests[j].Total[k]++
				if reached == 1 {
					sh.Tests[j].Unique[k]++
				}
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
	if r.Restored {
		sh.Ambiguity.Restored++
	}
	if r.Ambiguous() {
		sh.Ambiguity.Any++
	}
}

// finish turns the counts into shares of the items.
func (sh *Shortcuts) finish() {
	for k := range Thresholds {
		if sh.Items > 0 {
			sh.Ratio[k] = float64(sh.Shortcuts[k]) / float64(sh.Items)
			sh.Chance[k] /= float64(sh.Items)
		}
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

// checks describes the ambiguity checks of s: the attackers each reads in
// the run and how it departs from the authors' (Video-Oasis
// ambiguity/consistency.py, redundancy.py, sensitivity.py), or why it did
// not run.
func checks(s *Screen, p *consensusPlan) []CheckInfo {
	in := func(names []string) []string {
		out := []string{}
		for _, a := range s.Attackers {
			if slices.Contains(names, a.Name) {
				out = append(out, a.Name)
			}
		}
		return out
	}
	cons := CheckInfo{Check: "consistency", Attackers: in(s.Options.Consistency)}
	switch n := len(cons.Attackers); {
	case n < 2:
		cons.Note = fmt.Sprintf("not run: maximal disagreement compares at least two full-video models and the run has %d (the paper compares five: one vlm_reader entry each)", n)
	case n != 5:
		cons.Note = fmt.Sprintf("%d models where the paper compares five: maximal disagreement asks for min(options, %d) distinct answers", n, n)
	}
	red := CheckInfo{Check: "redundancy", Attackers: in(s.Options.Window)}
	switch {
	case len(red.Attackers) == 0:
		red.Note = fmt.Sprintf("not run: the run has no %s (the eight-chunk reader runs at the order level where the run has a vlm_reader)", strings.Join(s.Options.Window, ", "))
	case !slices.Equal(red.Attackers, []string{ChunkReader}):
		red.Note = "the project's variant: an item one of these solves from part of the video (the authors' is eight-chunk-reader: every one of eight contiguous chunks)"
	}
	sens := CheckInfo{Check: "sensitivity", Attackers: in(s.Options.Shuffled)}
	switch {
	case len(sens.Attackers) == 0:
		sens.Note = fmt.Sprintf("not run: the run has no %s", strings.Join(s.Options.Shuffled, ", "))
	case len(s.Options.Restored) == 0:
		sens.Note = "no review read back yet: the candidates are in " + SensitivityJSONL + " (screen --restore FILE reads the decisions)"
	}
	return []CheckInfo{cons, red, sens}
}
