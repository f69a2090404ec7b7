package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/solve"
	"github.com/vidscreen/vidscreen/internal/checksum"
)

// permutations runs the option-permutation audit: every model reader whose
// prompt lists the options answers every item on its original options and
// on the configured number of seeded permutations of them (none when the
// audit is off: attack.Config.Permutations), and each
// benchmark gets, per reader, the accuracy of each order, their range and
// the share of items whose chosen option text changes. Each reader's
// choices under each order are stored as they are made, so a resumed run
// reads them (permutationChoices). It also returns, per multi-order reader
// (attack.MultiOrder), its choices and gold margins on the seeded orders
// 1 to solve.Orders, which the cards' solved share judges it on
// (metrics.SolvedOverOrders; Video-Index 5.1).
func (a *audit) permutations(ctx context.Context) (map[string]map[string]*metrics.Permutation, map[string]permutedOrders, error) {
	out := map[string]map[string]*metrics.Permutation{}
	further := map[string]permutedOrders{}
	k := a.acfg.PermutationCount()
	readers := 0
	for _, at := range a.attackers {
		if attack.PermutesOptions(at) {
			readers++
		}
	}
	if k == 0 || readers == 0 {
		return out, further, nil
	}
	// The audit's own meter: its model calls are many (every reader on
	// every order) and ran, unseen, inside the cards' meter.
	t0 := time.Now()
	mtr := newOrderMeter(a.opt.Progress, readers*(k+1)*len(a.items))
	a.prompts.set(mtr.prompt)
	defer a.prompts.set(nil)
	for _, at := range a.attackers {
		if !attack.PermutesOptions(at) {
			continue
		}
		chosen := make([][]string, k+1) // per order, per item: the chosen option's text
		right := make([][]bool, k+1)
		for o := 0; o <= k; o++ {
			orig, margins, err := a.permutationChoices(ctx, at, o, nil)
			mtr.order(len(a.items))
			if err != nil {
				mtr.exit()
				return nil, nil, err
			}
			if o >= 1 && o <= solve.Orders && attack.MultiOrder(at.Name()) {
				f := further[at.Name()]
				f.choices, f.margins = append(f.choices, orig), append(f.margins, margins)
				further[at.Name()] = f
			}
			chosen[o], right[o] = make([]string, len(a.items)), make([]bool, len(a.items))
			for i, c := range orig {
				it := a.items[i]
				chosen[o][i], right[o][i] = it.Options[c], c == it.Answer
			}
		}
		for bench, idx := range byBenchmark(a.items) {
			p := &metrics.Permutation{Permutations: k, N: len(idx), AccuracyMin: math.Inf(1), AccuracyMax: math.Inf(-1)}
			changed := 0
			for _, i := range idx {
				for o := 1; o <= k; o++ {
					if chosen[o][i] != chosen[0][i] {
						changed++
						break
					}
				}
			}
			for o := 0; o <= k; o++ {
				c := 0
				for _, i := range idx {
					if right[o][i] {
						c++
					}
				}
				acc := round4(float64(c) / float64(len(idx)))
				p.Accuracies = append(p.Accuracies, acc)
				p.AccuracyMin, p.AccuracyMax = min(p.AccuracyMin, acc), max(p.AccuracyMax, acc)
			}
			p.ChangedShare = round4(float64(changed) / float64(len(idx)))
			if out[bench] == nil {
				out[bench] = map[string]*metrics.Permutation{}
			}
			out[bench][at.Name()] = p
		}
	}
	mtr.finish()
	a.stage("permutations", t0)
	return out, further, nil
}

// permutedOrders are one reader's choices and gold margins on the
// permutation audit's orders 1, 2, ...: per order, per item (margins nil
// for an order whose cache kept none).
type permutedOrders struct {
	choices [][]int
	margins [][]float64
}

// permutationChoices returns, per item of idx (indexes into a.items,
// ascending; nil for every item), the original index of the option
// attacker at chooses when the items list their options in permutation o.
// They are stored in the run's cache as they are computed, keyed by the
// items asked, so a resumed run reads them instead of asking the model
// again (the readers are deterministic, so the figures are the same either
// way); a shard asks about its own items (shardPermutations), and a merge
// puts the shards' files together (shardPermutation) instead of asking.
// The margins are the gold's on that order (NaN where the scores gave
// none; nil from a cache written before they were kept).
func (a *audit) permutationChoices(ctx context.Context, at attack.Attacker, o int, idx []int32) ([]int, []float64, error) {
	shard := idx != nil
	if idx == nil {
		idx = make([]int32, len(a.items))
		for i := range idx {
			idx[i] = int32(i)
		}
	}
	items := make([]*harness.Item, len(idx))
	keys := make([]string, len(idx))
	frames := attack.FrameNeeds(at) != 0
	for k, i := range idx {
		items[k], keys[k] = a.items[i], a.permutationKey(at, int(i), shard)
	}
	path := rundir.PermutationFile(a.opt.Out, at.Name(), a.opt.Seed, o, keys)
	b, err := checksum.ReadFile(path)
	if errors.Is(err, checksum.ErrDamaged) {
		a.cacheDamaged(err.Error())
	}
	if err == nil {
		// A file written before the margins were kept holds the choices
		// alone: they stand (screening then reads no margins of it).
		if stored, margins, err := rundir.DecodePermutation(b, len(items)); err == nil && validChoices(items, stored) {
			return stored, margins, nil
		}
	}
	if len(idx) == len(a.items) && len(a.opt.Merge) > 0 && attack.HonoursAsk(at) {
		// A merge: the shards asked, each about its own items.
		if out, margins, ok := a.shardPermutation(at, o, items); ok {
			return out, margins, nil
		}
	}
	base := &attack.Stream{Seed: a.opt.Seed, Items: items}
	if frames {
		base.Visual = make([]*attack.Visual, len(idx))
		for k, i := range idx {
			base.Visual[k] = a.visual[i]
		}
	}
	s, from := attack.PermuteOptions(base, a.opt.Seed, o)
	if set := attack.VLMSet(at); set != "" && o > 0 {
		// A VLM reader reads the scores the feature stage made of its
		// prompts with the options in this permutation.
		s.Visual = make([]*attack.Visual, len(base.Visual))
		for i, v := range base.Visual {
			c := *v
			c.VLM = map[string][]float64{}
			if sc, ok := v.VLM[attack.PermutedSet(set, o)]; ok {
				c.VLM[set] = sc
			}
			s.Visual[i] = &c
		}
	}
	preds, err := at.Attack(ctx, s)
	if err != nil {
		return nil, nil, fmt.Errorf("option permutation %d of %s: %w", o, at.Name(), err)
	}
	if len(preds) != len(items) {
		return nil, nil, fmt.Errorf("option permutation %d of %s: %d predictions for %d items", o, at.Name(), len(preds), len(items))
	}
	out := make([]int, len(items))
	rec := rundir.PermutationRecord{Choices: out, Margins: make([]*float64, len(items))}
	failed := false
	for i, pr := range preds {
		it := items[i]
		if pr.Failure != "" {
			a.serverFailed.add(idx[i], pr.Failure)
			failed = true
		}
		if pr.Choice < 0 || pr.Choice >= len(it.Options) {
			return nil, nil, fmt.Errorf("option permutation %d of %s: item %s: choice %d out of range", o, at.Name(), it.Source, pr.Choice)
		}
		out[i] = from[i][pr.Choice]
		// The margin of the gold option on this order, as the run
		// computes it for its verdicts (metrics.Margin: log p(gold) - mean
		// log p(others)); none where the scores give none.
		if m, err := metrics.Margin(pr.Scores, s.Items[i].Answer); err == nil && len(pr.Scores) == len(it.Options) {
			rec.Margins[i] = &m
		}
	}
	margins := make([]float64, len(rec.Margins))
	for i, m := range rec.Margins {
		margins[i] = math.NaN()
		if m != nil {
			margins[i] = *m
		}
	}
	if failed {
		// A reader's server failed on some items: nothing is kept, so a
		// resumed run asks those again (and the rest from the store).
		return out, margins, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, err
	}
	err = checksum.Write(path, func(w io.Writer) error { return rundir.EncodePermutation(w, &rec) })
	return out, margins, err
}

// permutationKey is item i's part of the key of a permutation file of
// attacker at: the item's key, and for a reader of the video what it read
// of it and whether it failed (a restored or replaced video is another
// key). The failure is always part of a shard's key (shard), whose
// failures are its items' alone, and part of a run's when any item failed.
func (a *audit) permutationKey(at attack.Attacker, i int, shard bool) string {
	key := a.items[i].Key()
	if attack.FrameNeeds(at) == 0 {
		return key
	}
	key += "\x00" + a.inputs[i]
	if shard || a.failures != nil {
		failure := ""
		if a.failures != nil {
			failure = a.failures[i]
		}
		key += "\x00" + failure
	}
	return key
}

// validChoices reports whether every stored choice names an option of its
// item (a damaged file is computed again).
func validChoices(items []*harness.Item, choices []int) bool {
	for i, c := range choices {
		if c < 0 || c >= len(items[i].Options) {
			return false
		}
	}
	return true
}

// byBenchmark lists the indices of each benchmark's items.
func byBenchmark(items []*harness.Item) map[string][]int {
	out := map[string][]int{}
	for i, it := range items {
		out[it.Benchmark] = append(out[it.Benchmark], i)
	}
	return out
}
