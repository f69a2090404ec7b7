package release

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
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
// rotating orders, and takes the screened verdicts of the others, which
// answer each item alone and so answer it the same in any pool.
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
	// Solved is the screening rule applied to the re-run attackers'
	// answers; nil means Solved.
	Solved func(metrics.ItemScore) bool
}

// ErrVersion refuses a red team whose learning attacker is another version
// of the method that screened the pool: its answers would not be the ones
// the screen judged.
var ErrVersion = errors.New("attacker version mismatch")

// Solved is the default verdict rule of the red team on an attacker that
// learns from its pool: the item was scored and answered correctly, not by
// a seeded guess, with the margin rule of docs/attackers.md (log p(gold) -
// mean log p(others) > log 2). A learner at chance answers a quarter of
// four-option items correctly by luck; dropping those would empty the pool
// without removing any shortcut, so the gate asks for a confident answer,
// as screening asks of a model reader.
func Solved(s metrics.ItemScore) bool {
	return s.Scored && s.Correct && !s.Abstained && s.Margin > math.Ln2
}

// SolvedRule describes Solved, for the lockfile.
const SolvedRule = "scored, correct, not abstained, margin log p(gold) - mean log p(others) > log 2"

// Attack implements RedTeam.
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
	var rerun []attack.Attacker
	for _, pa := range p.Attackers {
		if !pa.Pooled {
			continue
		}
		a, ok := byName[pa.Name]
		if !ok {
			return nil, fmt.Errorf("attacker %s of the pool is not in the audit's configuration (levels %v)", pa.Name, cfg.Levels)
		}
		if v := attack.Version(a); pa.Version != "" && v != pa.Version {
			return nil, fmt.Errorf("%w: the run's %s is version %s and this vidscreen's is %s: audit the run again with this vidscreen before selecting from it", ErrVersion, pa.Name, pa.Version, v)
		}
		rerun = append(rerun, a)
	}
	outcomes, err := t.run(ctx, cfg, rerun, items)
	if err != nil {
		return nil, err
	}
	solvedRule := t.Solved
	if solvedRule == nil {
		solvedRule = Solved
	}
	scores, err := metrics.ItemScores(items, outcomes, metrics.Config{Attack: cfg})
	if err != nil {
		return nil, err
	}
	fresh := map[[2]int]metrics.ItemScore{} // (selection index, pool attacker index)
	for _, s := range scores {
		fresh[[2]int{s.Item, attackerIndex(p, s.Attacker)}] = s
	}
	out := &Attack{Solvers: make([][]string, len(picks))}
	for a, pa := range p.Attackers {
		r := AttackerResidual{Name: pa.Name, Level: pa.Level, Rerun: pa.Pooled}
		var correct, chance float64
		for k, i := range picks {
			var scored, right, solved bool
			if pa.Pooled {
				s, ok := fresh[[2]int{k, a}]
				scored, right, solved = ok && s.Scored, ok && s.Correct, ok && solvedRule(s)
			} else {
				v := p.Candidates[i].Verdicts[a]
				scored, right, solved = v.Scored, v.Correct, v.Solved
			}
			if !scored {
				continue
			}
			r.N++
			chance += items[k].Chance()
			if right {
				correct++
			}
			if solved {
				r.Solved++
				out.Solvers[k] = append(out.Solvers[k], pa.Name)
			}
		}
		if r.N > 0 {
			r.Accuracy = round6(correct / float64(r.N))
			r.Chance = round6(chance / float64(r.N))
			r.Margin = round6(r.Accuracy - r.Chance)
			r.Significant = significant(r.Margin, r.Chance, r.N)
		}
		out.Attackers = append(out.Attackers, r)
	}
	out.Levels = residualLevels(out.Attackers)
	return out, nil
}

// run answers items with each attacker on each of its variants, as the
// audit does: the seeded rotating orders, every item scored once.
func (t *AttackTeam) run(ctx context.Context, cfg attack.Config, atts []attack.Attacker, items []*harness.Item) ([]metrics.Outcome, error) {
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
