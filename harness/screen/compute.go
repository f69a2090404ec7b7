package screen

import (
	"fmt"
	"math"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/solve"
)

// An Input is what screening reads of a finished audit (Open): the run's
// attackers (Name and Level) and one Row per item with its provenance,
// cluster, quality flags, failure and, per attacker, the raw verdict
// (everything but Solved). Compute fills in the rest.
type Input struct {
	Run string
	// Audit names the audit read (completion.Record.Hash); "" when the
	// input did not come from a run directory.
	Audit      string
	Attackers  []Attacker
	Rows       []Row
	Embeddings Embeddings
	// Significant lists, per benchmark, the attackers its card finds
	// significantly above chance (cards.json); nil when unknown, and every
	// screening attacker then screens every benchmark.
	Significant map[string][]string
	// Orders holds, per attacker judged on several option orders, the
	// original index of the option it chose on each seeded order of the
	// run's permutation audit it is judged on (permutations 1 to 4; the
	// original order, the verdict itself, is not one of them), one choice
	// per row. An attacker without them is judged on its one order.
	Orders map[string][][]int32
	// OrderMargins holds, per attacker of Orders, its gold margin (log
	// p(gold) - mean log p(others)) on each of those orders, one per row
	// (NaN where it has none); nil for an attacker whose orders the run
	// stored without margins, which is then held to the margin of the
	// original order instead of the mean over the four.
	OrderMargins map[string][][]float64
	// Notes says what the run lacks that the papers' rules read (Open
	// fills it); Compute copies it into the screen.
	Notes []string
	// KeepYesNo says the audit kept its bare yes/no items (config.json's
	// yes_no is harness.YesNoKept); Compute copies it into the screen.
	KeepYesNo bool
}

// Compute screens in by opt. It does not modify in.
func Compute(in *Input, opt Options) (*Screen, error) {
	names := make([]string, len(in.Attackers))
	for k, a := range in.Attackers {
		names[k] = a.Name
	}
	opt, missing, err := opt.resolve(names)
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
	s := &Screen{Run: in.Run, Audit: in.Audit, Options: opt, Embeddings: in.Embeddings, Notes: slices.Clone(in.Notes), KeepYesNo: in.KeepYesNo}
	if s.Notes == nil {
		s.Notes = []string{}
	}
	if len(missing) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("default screeners the run does not have (their funnel steps are skipped): %v", missing))
	}
	rules := make([]solve.Rule, len(in.Attackers))
	for k, a := range in.Attackers {
		rules[k] = ruleOf(in, k, &opt)
		a.Rule = rules[k].String()
		a.Orders = 1
		if len(in.Orders[a.Name]) > 0 {
			a.Orders = len(in.Orders[a.Name])
		}
		a.Screens = slices.Contains(opt.Attackers, a.Name)
		a.Test, a.Model = "", ""
		s.Attackers = append(s.Attackers, a)
	}
	// A learner or matcher no better than chance on a benchmark solves its
	// items by luck: it screens only where its card finds it significant,
	// unless opt.EveryAttacker. The model readers remove what they answer
	// on every benchmark (Video-Index 5.1).
	gated := in.Significant
	if opt.EveryAttacker {
		gated = nil
	}
	s.Rows = make([]Row, len(in.Rows))
	for i := range in.Rows {
		r := in.Rows[i]
		if len(r.Verdicts) != len(s.Attackers) {
			return nil, fmt.Errorf("item %s of %s: %d verdicts for %d attackers", r.ID, r.Benchmark, len(r.Verdicts), len(s.Attackers))
		}
		if r.VideoID == "" {
			r.VideoID = r.Video
		}
		r.Verdicts = slices.Clone(r.Verdicts)
		r.SolvedBy = []string{}
		r.MaxMargin = math.NaN()
		for k := range r.Verdicts {
			v := &r.Verdicts[k]
			a := &s.Attackers[k]
			v.Solved, v.Orders, v.OrdersCorrect = judge(v, rules[k], in.Orders[a.Name], in.OrderMargins[a.Name], i, r.Answer)
			v.OrdersMargin = nil
			if v.Scored && len(in.Orders[a.Name]) > 0 {
				v.OrdersMargin = meanOrderMargin(in.OrderMargins[a.Name], i)
			}
			if a.Screens && v.Scored && (math.IsNaN(r.MaxMargin) || v.Margin > r.MaxMargin) {
				r.MaxMargin = v.Margin
			}
			if v.Solved && a.Screens && screensOn(a.Name, r.Benchmark, gated, &opt) {
				r.SolvedBy = append(r.SolvedBy, a.Name)
			}
		}
		s.Rows[i] = r
	}
	if err := checkRestored(s.Rows, opt.Restored); err != nil {
		return nil, err
	}
	clusterSizes(s.Rows)
	s.Funnel = runFunnel(s, drop, gated)
	s.Benchmarks = summarise(s, gated)
	countSuspects(s)
	s.Consensus = consensus(s)
	return s, nil
}

// ruleOf is the solve rule of attacker k: a model reader's answers are
// judged by correctness and margin where its margins are log-probability
// margins, by correctness alone where it has none (every scored margin NaN:
// a server that gives no log-probabilities); any other attacker's by
// correctness (Video-Index 5.1, harness/solve).
func ruleOf(in *Input, k int, opt *Options) solve.Rule {
	if !opt.isReader(in.Attackers[k].Name) {
		return solve.Correct
	}
	for i := range in.Rows {
		if v := in.Rows[i].Verdicts[k]; v.Scored && !math.IsNaN(v.Margin) {
			return solve.Confident
		}
	}
	return solve.Correct
}

// judge applies rule to verdict v of row i (gold answer). With seeded
// orders (the options-only and blind readers' orders of the permutation
// audit, Video-Index 5.1: the authors' pool screen draws four random
// orders), the item is judged on those orders, not on the original one: at
// least three of the four correct and, under solve.Confident, the mean
// margin over the four above log 2 (solve.SolvesOrders). margins holds the
// orders' margins; where the run stored none (nil: a permutation cache
// written before vidscreen kept them), the margin condition is read on the
// original order instead (docs/screen.md). An abstention on the original
// order (every option tied) stands for every order. It returns whether v
// solves its item, the orders judged and how many were correct.
func judge(v *Verdict, rule solve.Rule, orders [][]int32, margins [][]float64, i int, gold int32) (bool, int32, int32) {
	first := solve.Answer{Scored: v.Scored && v.Choice >= 0, Abstained: v.Abstained, Correct: v.Correct, Margin: v.Margin}
	if len(orders) == 0 {
		n := int32(0)
		if first.Scored && !first.Abstained && first.Correct {
			n = 1
		}
		return rule.Solves(first), 1, n
	}
	if len(margins) != len(orders) {
		margins = nil
	}
	var answers []solve.Answer
	for k, o := range orders {
		a := solve.Answer{Scored: first.Scored, Abstained: v.Abstained, Correct: o[i] == gold, Margin: math.NaN()}
		if margins != nil {
			a.Margin = margins[k][i]
		}
		answers = append(answers, a)
	}
	n := int32(0)
	for _, a := range answers {
		if a.Scored && !a.Abstained && a.Correct {
			n++
		}
	}
	if margins != nil {
		return rule.SolvesOrders(answers), int32(len(answers)), n
	}
	ok := solve.Correct.SolvesOrders(answers)
	if rule == solve.Confident {
		ok = ok && !math.IsNaN(v.Margin) && v.Margin > solve.Threshold
	}
	return ok, int32(len(answers)), n
}

// meanOrderMargin is row i's mean margin over the seeded orders of margins
// (the first solve.Orders of them) that have one, as the authors' opt_margin
// and blind_margin average the margins of the orders whose log-probabilities
// came back (Video-Index pool/screen.py, text_step_result); nil when no
// order has one. Unlike the solve rule (solve.SolvesOrders, which counts a
// missing margin at the floor so that it never helps an item be removed),
// the ranking skips it, as the authors do.
func meanOrderMargin(margins [][]float64, i int) *float64 {
	sum, n := 0.0, 0
	for k, m := range margins {
		if k >= solve.Orders {
			break
		}
		if i < len(m) && !math.IsNaN(m[i]) {
			sum += m[i]
			n++
		}
	}
	if n == 0 {
		return nil
	}
	mean := sum / float64(n)
	return &mean
}

// screensOn reports whether attacker name removes what it solves on
// benchmark bench: a model reader everywhere, a learner or matcher where
// its card finds it significant (gated nil: everywhere).
func screensOn(name, bench string, gated map[string][]string, opt *Options) bool {
	return opt.isReader(name) || gated == nil || slices.Contains(gated[bench], name)
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

// checkRestored refuses a restored item the run does not hold: a review of
// another run, or an id mistyped.
func checkRestored(rows []Row, refs []ItemRef) error {
	keys := make(map[string]bool, len(rows))
	for i := range rows {
		keys[rows[i].Key()] = true
	}
	for _, ref := range refs {
		if !keys[ref.Benchmark+"\x00"+ref.ID] {
			return fmt.Errorf("restore: item %s/%s is not an item of the run", ref.Benchmark, ref.ID)
		}
	}
	return nil
}

// clusterSizes fills ClusterSize from the near-duplicate clusters of
// duplicates.parquet (the cards' question-text clusters; the selector's
// question templates).
func clusterSizes(rows []Row) {
	size := map[int32]int32{}
	for i := range rows {
		if c := rows[i].Cluster; c >= 0 {
			size[c]++
		}
	}
	for i := range rows {
		rows[i].ClusterSize = 1
		if c := rows[i].Cluster; c >= 0 {
			rows[i].ClusterSize = size[c]
		}
	}
}
