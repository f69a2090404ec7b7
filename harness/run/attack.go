package run

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// attack is the attack stage: it draws the seeded orders and folds of the
// items (a.orders, a.index, a.folds), then runs every unit not yet complete
// on a.workers goroutines, appending each unit's predictions to a.store as
// they are produced and filing them under the unit. res.Units,
// res.UnitsStored and res.Attackers say what was stored and what this
// process did. When ctx is cancelled, units in flight stop, what is stored
// stays stored, and the error says so and wraps the context's.
func (a *audit) attack(ctx context.Context) error {
	t0 := time.Now()
	a.orders = attack.Orders(a.items, a.opt.Seed, max(a.acfg.Orders, 1))
	a.folds = attack.Folds(a.items, a.opt.Seed)
	a.index = newOrderIndex(a.items, a.orders)
	n := len(a.items)
	var pending []*unit
	done := 0
	for _, u := range a.units {
		done += u.stored
		if u.stored < n {
			pending = append(pending, u)
		}
	}
	a.res.Units = len(a.units)
	a.res.UnitsStored = len(a.units) - len(pending)
	times := make([]AttackerTime, len(a.attackers))
	for i, at := range a.attackers {
		times[i] = AttackerTime{Name: at.Name(), Level: at.Level()}
	}
	defer func() { a.res.Attackers = times }()
	if done > 0 || a.res.Resumed {
		a.opt.Progress.Note("resuming: found stored predictions", "dir", a.opt.Out,
			"units_stored", a.res.UnitsStored, "units_left", len(pending), "units", len(a.units),
			"predictions_stored", done, "predictions_left", n*len(a.units)-done, "torn_bytes_dropped", a.res.DroppedBytes)
	}
	if len(pending) == 0 {
		a.stage("attack", t0)
		return nil
	}
	groups, chunks := a.schedule(pending)
	// The bar counts items: each attacker answers every item on each order,
	// so len(a.units) answers make one item.
	m := newItemMeter(a.opt.Progress, n, len(a.units), "attack")
	m.addWork(done)
	var mu sync.Mutex
	run := func(ctx context.Context, u *unit, c chunk) error {
		start := time.Now()
		items, stored := n, u.stored // the whole stream
		if c.bench != "" {
			items, stored = len(c.items), 0
			for _, i := range c.items {
				if u.ans.has(i) {
					stored++
				}
			}
		}
		up := &unitProgress{m: m, stored: stored, items: items}
		did, err := a.runUnit(ctx, u, c, up.add)
		if err != nil {
			return err
		}
		up.end()
		mu.Lock()
		times[u.attacker].Time += time.Since(start)
		times[u.attacker].Items += did
		mu.Unlock()
		return nil
	}
	for k, units := range groups {
		if k > 0 && chunks[k-1].bench != "" {
			// The cache keeps what the attackers of the last benchmark
			// built; nothing of it serves the next one.
			a.acfg.Cache = attack.NewCache()
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(a.workers)
		for _, u := range units {
			c := chunks[k]
			if c.bench == "" {
				c.items = nil // the whole stream
			} else if u.complete(c.items) {
				continue
			}
			g.Go(func() error { return run(gctx, u, c) })
		}
		if err := g.Wait(); err != nil {
			m.exit()
			if ctx.Err() != nil {
				return fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
			}
			return err
		}
	}
	for _, u := range pending {
		times[u.attacker].Variants++
	}
	m.finish()
	a.stage("attack", t0)
	return nil
}

// schedule orders the units of pending and groups them: each group runs at
// once, on its chunk of the items (chunks[k] for groups[k]).
func (a *audit) schedule(pending []*unit) (groups [][]*unit, chunks []chunk) {
	// Units that search embeddings (copy, k-NN, regression) take far longer
	// than the rest: start them first, so that no worker is left with a long
	// unit at the end while the other idles. Outputs do not depend on it.
	slices.SortStableFunc(pending, func(x, y *unit) int {
		switch hx, hy := a.searches(x), a.searches(y); {
		case hx && !hy:
			return -1
		case hy && !hx:
			return 1
		}
		return 0
	})
	// The units that read the embedding matrices run one benchmark at a
	// time: their attackers learn and search within a benchmark only
	// (attack's benchmarkStores), so a benchmark's stream alone gives the
	// same predictions, and memory holds the rows, the neighbour lists and
	// the option features of one benchmark rather than of the pool. So do
	// the other learners that read no model (option-artifact's cache of
	// option features would otherwise hold every option set of the pool).
	// The other units (the model readers, which batch across the stream,
	// and the attackers that learn nothing) run on the whole stream.
	var heavyUnits, light []*unit
	for _, u := range pending {
		if at := a.attackers[u.attacker]; a.searches(u) || perBenchmark(at) {
			heavyUnits = append(heavyUnits, u)
		} else {
			light = append(light, u)
		}
	}
	if len(heavyUnits) > 0 {
		for _, c := range a.benchmarkChunks() {
			groups = append(groups, heavyUnits)
			chunks = append(chunks, c)
		}
	}
	if len(light) > 0 {
		groups = append(groups, light)
		chunks = append(chunks, chunk{})
	}
	return groups, chunks
}

// searches says whether u's attacker searches the embeddings (copy, k-NN,
// regression).
func (a *audit) searches(u *unit) bool {
	at := a.attackers[u.attacker]
	return attack.NeedsText(at) || attack.NeedsQuestion(at)
}

// A chunk is the part of a unit's stream one attacker call answers: the
// items of one benchmark, or every item (bench "" and items nil).
type chunk struct {
	bench string
	items []int32 // indexes into audit.items, ascending
}

// benchmarkChunks lists the items of each benchmark, by benchmark name.
func (a *audit) benchmarkChunks() []chunk {
	at := map[string]int{}
	var out []chunk
	for i, it := range a.items {
		k, ok := at[it.Benchmark]
		if !ok {
			k = len(out)
			at[it.Benchmark] = k
			out = append(out, chunk{bench: it.Benchmark})
		}
		out[k].items = append(out[k].items, int32(i))
	}
	slices.SortFunc(out, func(x, y chunk) int { return strings.Compare(x.bench, y.bench) })
	return out
}

// runUnit answers the items of chunk c of one unit, in the unit's order,
// and appends the predictions not yet stored. Records keep each item's
// position in the whole order. For the whole stream (c.bench "") it answers
// only the benchmarks that have an item without a stored prediction: an
// attacker learns within a benchmark only, and a benchmark's items keep
// their relative order in every order, so the answers are those of the
// whole stream, and a run extended with new benchmarks computes only
// theirs. It returns how many items it answered.
func (a *audit) runUnit(ctx context.Context, u *unit, c chunk, answered func(items int)) (int, error) {
	at := attack.Attackers(a.acfg)[u.attacker] // a fresh attacker per unit: no state shared across goroutines
	full := a.orders[u.variant%len(a.orders)]
	// The items answered, in order, and their positions in full (nil when
	// all of it).
	order, pos, skipped := a.index.part(u, u.variant%len(a.orders), full, c)
	if skipped > 0 && answered != nil {
		answered(skipped)
	}
	s := &attack.Stream{Variant: u.variant, Seed: attack.OrderSeed(a.opt.Seed, u.variant), Items: make([]*harness.Item, len(order)), Progress: answered}
	for p, i := range order {
		s.Items[p] = a.items[i]
	}
	if attack.HonoursAsk(at) {
		// A model reader asks only about the items it has no stored
		// answer for: those a merge took from its shards, or a resumed
		// run from its records, would otherwise be asked again (a merge
		// has no response store of theirs).
		for p, i := range order {
			if u.ans.has(i) {
				if s.Ask == nil {
					s.Ask = make([]bool, len(order))
					for q := range p {
						s.Ask[q] = true
					}
				}
				continue
			}
			if s.Ask != nil {
				s.Ask[p] = true
			}
		}
	}
	var err error
	if attack.NeedsText(at) {
		if s.Text, err = a.text.gather(order); err != nil {
			return 0, err
		}
	}
	if attack.NeedsQuestion(at) {
		if s.Question, err = a.question.gather(order); err != nil {
			return 0, err
		}
	}
	if attack.FrameNeeds(at) != 0 {
		s.Visual = permuteVisual(a.visual, order)
	}
	if attack.CrossPool(at) {
		if s.Pool, err = a.crossPool(); err != nil {
			return 0, err
		}
	}
	preds, err := at.Attack(ctx, s)
	if err != nil {
		return 0, fmt.Errorf("attacker %s, variant %d: %w", at.Name(), u.variant, err)
	}
	if len(preds) != len(order) {
		return 0, fmt.Errorf("attacker %s, variant %d: %d predictions for %d items", at.Name(), u.variant, len(preds), len(order))
	}
	for p, i := range order {
		it, pr := a.items[i], preds[p]
		if pr.Choice < 0 || pr.Choice >= len(it.Options) {
			return 0, fmt.Errorf("attacker %s, variant %d: item %s: choice %d out of range", at.Name(), u.variant, it.Source, pr.Choice)
		}
		if s.Ask == nil && u.ans.has(i) && !u.ans.same(i, it, pr) {
			return 0, fmt.Errorf("attacker %s, variant %d: item %s: stored prediction %+v differs from the recomputed %+v: the attacker is not deterministic", at.Name(), u.variant, it.Source, u.ans.held(i), pr)
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := a.appendRecords(u, at.Name(), order, pos, preds); err != nil {
		return 0, err
	}
	// No other goroutine touches u meanwhile: a unit runs one chunk at a
	// time.
	for p, i := range order {
		if !u.ans.has(i) {
			u.stored++
			u.ans.put(i, a.items[i], preds[p])
			if u.ans.input != nil {
				u.ans.input[i] = inputID(a.inputs[i])
			}
		}
	}
	return len(order), nil
}

// appendRecords appends to the record file, in batches, the predictions of
// unit u (of the attacker named name) on the items of order not yet stored,
// at their positions in the whole order (pos; nil when order is all of it).
// A prediction a served reader's server failed, or one of an item whose
// video failed, is not stored. The served readers' modes are kept first.
func (a *audit) appendRecords(u *unit, name string, order []int32, pos []int, preds []attack.Prediction) error {
	// Appended in batches: a whole-stream unit of a large pool would
	// otherwise hold a record (and its encoding) per item at once.
	batch := recordBatch
	if a.opt.recordBatch > 0 {
		batch = a.opt.recordBatch
	}
	// The modes of the served readers that gave these answers are kept
	// before the answers are: a resumed run that asks them nothing still
	// names them on its cards.
	if _, err := a.servedModes(); err != nil {
		return err
	}
	recs := make([]rundir.Record, 0, min(len(order), batch))
	for p, i := range order {
		if u.ans.has(i) {
			continue
		}
		position := p
		if pos != nil {
			position = pos[p]
		}
		if preds[p].Failure != "" {
			// Not answered: an abstention for the cards, never stored, so
			// a resumed run asks again (as a failed video's items).
			a.serverFailed.add(i, preds[p].Failure)
			continue
		}
		rec := rundir.Record{Key: a.items[i].Key(), Attacker: name, Variant: u.variant, Position: position, Pred: preds[p]}
		if u.frames {
			if a.failures != nil && a.failures[i] != "" {
				continue // answered (an abstention) for the cards, not kept
			}
			rec.Input = a.inputs[i]
		}
		recs = append(recs, rec)
		if len(recs) == batch {
			if err := a.store.Append(recs); err != nil {
				return err
			}
			recs = recs[:0]
		}
	}
	return a.store.Append(recs)
}

// crossPool returns every item of the run with its question+options and
// question rows, the store the cross-pool attackers preload with the other
// benchmarks (attack.Pool; the blog, 001, tables 14-15). It holds the
// run's whole embedding matrices in memory: the cross-pool attackers are
// asked for (--cross-pool), never run by default.
func (a *audit) crossPool() (*attack.Pool, error) {
	a.xpool.once.Do(func() {
		all := make([]int32, len(a.items))
		for i := range all {
			all[i] = int32(i)
		}
		p := &attack.Pool{Items: a.items}
		if p.Text, a.xpool.err = a.text.gather(all); a.xpool.err != nil {
			return
		}
		if p.Question, a.xpool.err = a.question.gather(all); a.xpool.err != nil {
			return
		}
		a.xpool.pool = p
	})
	return a.xpool.pool, a.xpool.err
}
