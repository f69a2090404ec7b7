package release

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/solve"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

// releasePool is the benchmark name every selected item takes when the
// selection is attacked as its own pool: the learning attackers learn within
// a benchmark, and the selection is one.
const releasePool = "release"

// AttackTeam is the red team of the audit's own attackers. It runs again
// the pool's Pooled attackers (those that learn from the other items of
// their pool: their answers on the selection differ from those on the
// screened pool) on the selection as one pool, on the audit's seeded
// rotating orders (retrieval-reader among them when Reader is set), and
// the model readers Readers serves (full-video-reader, captions-reader) on
// the released option order too; it takes the screened verdicts of the
// others, which answer each item alone.
type AttackTeam struct {
	// Config is the attack configuration of the audit whose pool this is.
	Config attack.Config
	// Embedder embeds the selection's texts for the learning attackers;
	// nil fits the audit's default lexical embedder on the selection.
	Embedder textembed.TextEmbedder
	// Seed is the release's seed: it seeds the orders, and the items are
	// attacked with their options in the order the registrar gives them
	// under it. Screening leaves each item's gold where its benchmark's
	// position attackers did not expect it, a bias the shuffle removes:
	// attacking the unshuffled selection would drop items for a shortcut
	// the release does not have.
	Seed uint64
	// Workers bounds how many attackers run at once (GOMAXPROCS when 0);
	// results do not depend on it.
	Workers int
	// Readers, when set, reads the selection again with the model readers
	// whose answer depends on the option order (Video-Index 5.2: the VLM
	// at 32 frames in order and the caption attacker), so that they re-run
	// on the released order instead of carrying their screened verdicts
	// over.
	Readers ModelReaders
	// Reader is the run's lm_reader: captions-reader (with Readers'
	// captions) and the learning reader retrieval-reader (Video-Index 3.4)
	// re-run with it. Without it retrieval-reader's screened verdicts are
	// carried over, as a reader's are.
	Reader attack.LetterReader
}

// ModelReaders is what the red team needs to re-run model readers on the
// selection: the feature stage of the audit (decode and the reader's
// letter scores) run on the items as released.
type ModelReaders interface {
	// Attackers names the model attackers it reads for.
	Attackers() []string
	// Visual returns, per item (options in the released order), what the
	// feature stage made of it for those attackers: the VLM's letter
	// scores, the captions of the clip's frames.
	Visual(ctx context.Context, items []*harness.Item) ([]*attack.Visual, error)
}

// modelConfig is cfg with the roles the team's models serve and its
// lm_reader, so that attack.Attackers lists the model attackers it can
// re-run.
func (t *AttackTeam) modelConfig(cfg attack.Config) attack.Config {
	cfg.Roles, cfg.Reader = nil, nil
	if t.Readers != nil {
		cfg.Roles = append(cfg.Roles, attack.RoleVLMReader, attack.RoleImageText, attack.RoleCaptioner)
	}
	if t.Reader != nil {
		cfg.Roles = append(cfg.Roles, attack.RoleLMReader)
		cfg.Reader = t.Reader
	}
	return cfg
}

// modelLearners names the attackers of cfg that learn from their pool and
// ask a model (retrieval-reader): they re-run with the team's lm_reader,
// and are carried over without one.
func modelLearners(cfg attack.Config) []string {
	plain := map[string]bool{}
	cfg.Roles, cfg.Reader = nil, nil
	for _, a := range attack.Attackers(cfg) {
		plain[a.Name()] = true
	}
	cfg.Roles = []string{attack.RoleLMReader}
	var out []string
	for _, a := range attack.Attackers(cfg) {
		if attack.Prequential(a) && !plain[a.Name()] {
			out = append(out, a.Name())
		}
	}
	return out
}

// ErrVersion refuses a red team whose learning attacker is another version
// of the method that screened the pool: its answers would not be the ones
// the screen judged.
var ErrVersion = errors.New("attacker version mismatch")

// SolvedRule describes how the gate judges an item, for the lockfile and the
// report.
const SolvedRule = "the solve rule (harness/solve, Video-Index 5.1): correct, not abstained, " +
	"and margin > log 2 for readers with log-probabilities; a re-run model reader drops what it " +
	"solves, a re-run learner or matcher only where it is significant on the selection, a " +
	"carried-over verdict only where its attacker is significant on the item's benchmark; " +
	"abstentions count at chance in the residual; screening steps, cross-pool variants and " +
	"further models of a Video-Oasis test are reported aside, in no level's eps and no Holm family"

// Attack implements RedTeam.
//
// Every attacker's answers are judged by the one solve rule (harness/solve;
// Video-Index 5.1, the authors' pool screen): the learners the team re-runs
// answer without log-probabilities of a model, so correctness alone. As
// screening does, a re-run model reader drops what it solves, and a learner
// or matcher only where it is significantly above chance: for a re-run
// one, on the selection it attacked (its residual row); for a carried-over
// verdict, on the item's benchmark by the run's cards (Verdict.Significant).
// A learner at chance answers a quarter of four-option items correctly by
// luck; dropping those would drain the pool without removing a shortcut.
//
// The residual counts an abstention as a chance-level outcome, 1/k_i of a
// correct answer, never as its seeded guess (DESIGN.md, the attack pyramid;
// issue 20.4).
func (t *AttackTeam) Attack(ctx context.Context, p *Pool, picks []int) (*Attack, error) {
	items := make([]*harness.Item, len(picks))
	for k, i := range picks {
		src := p.Candidates[i].Item
		order, _ := optionOrder(src, t.Seed)
		it, err := releasedItem(src, releasePool, order, "")
		if err != nil {
			return nil, err
		}
		items[k] = it
	}
	cfg := t.Config
	cfg.Roles, cfg.Reader = nil, nil // the model attackers answer each item alone
	cfg.Cache = attack.NewCache()
	byName := map[string]attack.Attacker{}
	for _, a := range attack.Attackers(cfg) {
		byName[a.Name()] = a
	}
	var readers []string
	if t.Readers != nil {
		readers = t.Readers.Attackers()
	}
	learners := modelLearners(t.Config)
	withModels := t.Readers != nil || t.Reader != nil
	if withModels {
		mcfg := t.modelConfig(t.Config)
		mcfg.Cache = cfg.Cache
		for _, a := range attack.Attackers(mcfg) {
			if slices.Contains(readers, a.Name()) || (t.Reader != nil && slices.Contains(learners, a.Name())) {
				byName[a.Name()] = a
			}
		}
	}
	var rerun []attack.Attacker
	again := make([]bool, len(p.Attackers)) // pool attacker a re-runs
	models := false
	for k, pa := range p.Attackers {
		reader := slices.Contains(readers, pa.Name)
		if !pa.Pooled && !reader {
			continue
		}
		if pa.Pooled && t.Reader == nil && slices.Contains(learners, pa.Name) {
			continue // a learning reader without the run's lm_reader: carried over
		}
		a, ok := byName[pa.Name]
		if !ok {
			return nil, fmt.Errorf("attacker %s of the pool is not in the audit's configuration (levels %v)", pa.Name, cfg.Levels)
		}
		again[k], models = true, models || reader
		if v := attack.Version(a); pa.Version != "" && v != pa.Version {
			return nil, fmt.Errorf("%w: the run's %s is version %s and this vidscreen's is %s: audit the run again with this vidscreen before selecting from it", ErrVersion, pa.Name, pa.Version, v)
		}
		rerun = append(rerun, a)
	}
	var vis []*attack.Visual
	if models {
		var err error
		if vis, err = t.Readers.Visual(ctx, items); err != nil {
			return nil, fmt.Errorf("red team: read the selection again: %w", err)
		}
		if len(vis) != len(items) {
			return nil, fmt.Errorf("red team: %d visual records for %d items", len(vis), len(items))
		}
	}
	outcomes, err := t.run(ctx, cfg, rerun, items, vis)
	if err != nil {
		return nil, err
	}
	scoreCfg := cfg
	if withModels {
		scoreCfg = t.modelConfig(cfg) // the model attackers among those it knows
	}
	scores, err := metrics.ItemScores(items, outcomes, metrics.Config{Attack: scoreCfg})
	if err != nil {
		return nil, err
	}
	fresh := map[[2]int]metrics.ItemScore{} // (selection index, pool attacker index)
	// A model reader's answers are judged by correctness and margin where
	// its margins are log-probability margins (harness/solve; screening's
	// rule), the learners' by correctness alone.
	rules := make([]solve.Rule, len(p.Attackers))
	for _, s := range scores {
		a := attackerIndex(p, s.Attacker)
		fresh[[2]int{s.Item, a}] = s
		if at := byName[s.Attacker]; at != nil && attack.ScoresLetters(at) && s.Scored && !math.IsNaN(s.Margin) {
			rules[a] = solve.Confident
		}
	}
	return judge(p, picks, items, again, func(k, a int) (Verdict, bool) {
		s, ok := fresh[[2]int{k, a}]
		if !ok {
			return Verdict{}, false
		}
		ans := solve.Answer{Scored: s.Scored, Abstained: s.Abstained, Correct: s.Correct, Margin: s.Margin}
		return Verdict{Scored: s.Scored, Abstained: s.Abstained, Correct: s.Correct, Margin: s.Margin,
			Solved: rules[a].Solves(ans)}, true
	}), nil
}

// judge builds the attack of a selection from each attacker's verdicts:
// fresh(k, a) gives the re-run verdict of pool attacker a on pick k (ok
// false when none) for the attackers again marks (nil: the Pooled ones),
// and the pool's screened verdicts stand for attackers that were not
// re-run. items are the picks as attacked (for their chance).
//
// Significance on the selection is the cards' test (issue 20.4): an exact
// one-sided Poisson-binomial test of the answered items' correct count
// against each item's own chance, Holm-corrected at metrics.Alpha over the
// attackers that answered an item of the selection, less those reported
// aside (Aside: a screening step, a cross-pool variant, a further model of
// a Video-Oasis test), which keep their own uncorrected test and enter no
// level's eps, as on the cards. An abstention is a chance-level outcome: it
// adds nothing to the evidence, so the test leaves it out of n.
func judge(p *Pool, picks []int, items []*harness.Item, again []bool, fresh func(k, a int) (Verdict, bool)) *Attack {
	if again == nil {
		again = make([]bool, len(p.Attackers))
		for a, pa := range p.Attackers {
			again[a] = pa.Pooled
		}
	}
	out := &Attack{Solvers: make([][]string, len(picks))}
	verdicts := make([][]Verdict, len(p.Attackers))
	pvalues := make([]float64, len(p.Attackers))
	kinds := newAttackerKinds()
	var family []int // the attackers in the Holm family: answered something, not aside
	for a, pa := range p.Attackers {
		r := AttackerResidual{Name: pa.Name, Level: pa.Level, Rerun: again[a], Aside: kinds.aside(pa.Name)}
		vs := make([]Verdict, len(picks))
		var correct, chance float64
		var answered []float64 // the chances of the items answered, not abstained
		hits := 0
		for k, i := range picks {
			v := p.Candidates[i].Verdicts[a]
			if again[a] {
				v, _ = fresh(k, a)
			}
			vs[k] = v
			if !v.Scored {
				continue
			}
			r.N++
			c := items[k].Chance()
			chance += c
			switch {
			case v.Abstained:
				correct += c // a chance-level outcome, not the seeded guess
			default:
				answered = append(answered, c)
				if v.Correct {
					correct++
					hits++
				}
			}
		}
		pvalues[a] = math.NaN()
		if r.N > 0 {
			r.Accuracy = round6(correct / float64(r.N))
			r.Chance = round6(chance / float64(r.N))
			r.Margin = round6(r.Accuracy - r.Chance)
			r.PaperSignificant = significant(r.Margin, r.Chance, r.N)
			pvalues[a] = metrics.PoissonBinomialUpperTail(answered, hits)
			r.PValue = sig6(pvalues[a])
			switch {
			case len(answered) == 0:
				// Only abstentions: it tested nothing (the cards keep
				// such an attacker out of the family too).
			case r.Aside != "":
				r.Significant = pvalues[a] <= metrics.Alpha
			default:
				family = append(family, a)
			}
		}
		verdicts[a] = vs
		out.Attackers = append(out.Attackers, r)
	}
	ps := make([]float64, len(family))
	for j, a := range family {
		ps[j] = pvalues[a]
	}
	for j, sig := range metrics.Holm(ps, metrics.Alpha) {
		out.Attackers[family[j]].Significant = sig
	}
	for a, pa := range p.Attackers {
		r := &out.Attackers[a]
		var on []string
		for k, i := range picks {
			v := verdicts[a][k]
			if !v.Solved {
				continue
			}
			// A re-run model reader drops what it solves, as it screens
			// (Video-Index 5.1-5.2: the VLM at 32 frames and the caption
			// attacker test the selection); a re-run learner or matcher
			// only where it is significant on the selection. A further
			// model of a Video-Oasis test is no attacker of the pyramid
			// and drops nothing by itself.
			counts := r.Significant || readerDrops(r)
			if !again[a] {
				counts = v.Significant
				if b := p.Candidates[i].Item.Benchmark; counts && !slices.Contains(on, b) {
					on = append(on, b)
				}
			}
			if !counts {
				r.Ignored++
				continue
			}
			r.Solved++
			out.Solvers[k] = append(out.Solvers[k], pa.Name)
		}
		slices.Sort(on)
		r.CountsOn = on
	}
	out.Levels = residualLevels(out.Attackers)
	return out
}

// run answers items with each attacker on each of its variants, as the
// audit does: the seeded rotating orders, every item scored once.
func (t *AttackTeam) run(ctx context.Context, cfg attack.Config, atts []attack.Attacker, items []*harness.Item, vis []*attack.Visual) ([]metrics.Outcome, error) {
	if len(atts) == 0 || len(items) == 0 {
		return nil, nil
	}
	var text, question *kernels.Matrix
	needText, needQuestion := false, false
	for _, a := range atts {
		needText = needText || attack.NeedsText(a)
		needQuestion = needQuestion || attack.NeedsQuestion(a)
	}
	if needText || needQuestion {
		emb := t.Embedder
		if emb == nil {
			emb = textembed.LexicalPerBenchmark(items, 0)[0].Lexical
		}
		texts := make([]string, len(items))
		questions := make([]string, len(items))
		for i, it := range items {
			texts[i], questions[i] = textembed.ItemText(it), textembed.QuestionText(it)
		}
		var err error
		if text, err = emb.Embed(ctx, texts); err != nil {
			return nil, fmt.Errorf("embed the selection: %w", err)
		}
		if question, err = emb.Embed(ctx, questions); err != nil {
			return nil, fmt.Errorf("embed the selection's questions: %w", err)
		}
	}
	orders := attack.Orders(items, t.Seed, max(cfg.Orders, 1))
	folds := attack.Folds(items, t.Seed)
	type unit struct {
		a       attack.Attacker
		variant int
	}
	var units []unit
	for _, a := range atts {
		for v := 0; v < attack.Variants(a, cfg); v++ {
			units = append(units, unit{a, v})
		}
	}
	workers := t.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	cfg.Threads = max(1, runtime.GOMAXPROCS(0)/workers)
	results := make([][]metrics.Outcome, len(units))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for u, un := range units {
		g.Go(func() error {
			order := orders[un.variant%len(orders)]
			s := &attack.Stream{Variant: un.variant, Seed: attack.OrderSeed(t.Seed, un.variant), Items: make([]*harness.Item, len(order))}
			for pos, i := range order {
				s.Items[pos] = items[i]
			}
			if attack.NeedsText(un.a) {
				s.Text = permuteRows(text, order)
			}
			if attack.NeedsQuestion(un.a) {
				s.Question = permuteRows(question, order)
			}
			if attack.FrameNeeds(un.a) != 0 {
				s.Visual = make([]*attack.Visual, len(order))
				for pos, i := range order {
					s.Visual[pos] = vis[i]
				}
			}
			preds, err := un.a.Attack(gctx, s)
			if err != nil {
				return fmt.Errorf("attacker %s, variant %d: %w", un.a.Name(), un.variant, err)
			}
			if len(preds) != len(order) {
				return fmt.Errorf("attacker %s, variant %d: %d predictions for %d items", un.a.Name(), un.variant, len(preds), len(order))
			}
			out := make([]metrics.Outcome, len(order))
			for pos, i := range order {
				out[pos] = metrics.Outcome{Item: int(i), Attacker: un.a.Name(), Level: un.a.Level(), Variant: un.variant,
					Position: pos, Scored: attack.Scored(un.a, folds[i], un.variant), Pred: preds[pos]}
			}
			results[u] = out
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(results...), nil
}

func permuteRows(m *kernels.Matrix, order []int32) *kernels.Matrix {
	out := kernels.NewMatrix(len(order), m.Cols)
	for p, i := range order {
		copy(out.Row(p), m.Row(int(i)))
	}
	return out
}

// round6 rounds a figure like the cards do, so that the last bits of a sum
// never reach a report.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// sig6 rounds a p-value to six significant digits, as the cards do: p-values
// span hundreds of orders of magnitude, and rounding to six decimals would
// print a strong attacker's 9e-12 as 0.
func sig6(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return r
}
