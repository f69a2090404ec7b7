package run

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
)

// shardReaders is the readers stage of a shard: the lm_reader attackers
// (attack.HonoursAsk: the options-only, blind and retrieval readers) ask
// their model about the shard's own items (mine) and nothing else, so
// that the model work of a split audit happens where its servers and GPUs
// are, split as the features are, and merge asks no model. Their answers
// go to the shard's record file, at their places in the whole audit's
// orders (every shard reads every item and draws the same orders); their
// choices on the permutation audit's orders go to the shard's cache, one
// file per reader and order keyed by the shard's items (permutationFile).
// Merge takes both (importShardRecords, shardPermutation). The retrieval
// reader reads every item's question embedding (its pairs come from every
// earlier item of the benchmark, in any shard), so the shard embeds the
// whole benchmark's questions, as the unsharded audit does, and asks only
// about its own items.
func (a *audit) shardReaders(ctx context.Context, p *plan, mine []bool) error {
	var readers []int
	for k, at := range a.attackers {
		if attack.HonoursAsk(at) {
			readers = append(readers, k)
		}
	}
	if len(readers) == 0 {
		return nil
	}
	if err := a.loadRecords(); err != nil {
		return err
	}
	for _, k := range readers {
		if at := a.attackers[k]; attack.NeedsText(at) || attack.NeedsQuestion(at) {
			if err := a.embed(ctx, p.emb, p.lexical); err != nil {
				return err
			}
			break
		}
	}
	t0 := time.Now()
	a.orders = attack.Orders(a.items, a.opt.Seed, max(a.acfg.Orders, 1))
	a.folds = attack.Folds(a.items, a.opt.Seed)
	a.index = newOrderIndex(a.items, a.orders)
	var own []int32
	for i, m := range mine {
		if m {
			own = append(own, int32(i))
		}
	}
	var pending []*unit
	for _, u := range a.units {
		if attack.HonoursAsk(a.attackers[u.attacker]) && !u.complete(own) {
			pending = append(pending, u)
		}
	}
	left := 0
	for _, u := range pending {
		for _, i := range own {
			if !u.ans.has(i) {
				left++
			}
		}
	}
	m := newMeter(a.opt.Progress, int64(left), "readers", "prompts")
	a.prompts.set(m.add)
	times := make([]AttackerTime, len(a.attackers))
	for i, at := range a.attackers {
		times[i] = AttackerTime{Name: at.Name(), Level: at.Level()}
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.workers)
	for _, u := range pending {
		g.Go(func() error {
			start := time.Now()
			did, err := a.runShardUnit(gctx, u, mine)
			mu.Lock()
			times[u.attacker].Time += time.Since(start)
			times[u.attacker].Items += did
			mu.Unlock()
			return err
		})
	}
	err := g.Wait()
	a.prompts.set(nil)
	if err != nil {
		m.exit()
		return a.interrupted(ctx, err)
	}
	m.finish()
	for _, u := range pending {
		times[u.attacker].Variants++
	}
	a.res.Attackers = times
	a.res.Units, a.res.UnitsStored = len(a.units), len(a.units)-len(pending)
	a.stage("readers", t0)
	return a.shardPermutations(ctx, own)
}

// runShardUnit answers, for a shard, the items of mine that unit u has no
// stored answer for: the unit's attacker reads the whole stream of each
// benchmark that has one (its learners and the retrieval reader's pairs
// read every item) and asks its model about those items only
// (attack.Stream.Ask); the guesses it gives the others are not kept. It
// returns how many items it asked about.
func (a *audit) runShardUnit(ctx context.Context, u *unit, mine []bool) (int, error) {
	at := attack.Attackers(a.acfg)[u.attacker] // a fresh attacker per unit
	v := u.variant % len(a.orders)
	full := a.orders[v]
	asked := 0
	for _, c := range a.benchmarkChunks() {
		ask := false
		for _, i := range c.items {
			if mine[i] && !u.ans.has(i) {
				ask = true
				break
			}
		}
		if !ask {
			continue
		}
		order, pos, _ := a.index.part(u, v, full, c)
		s := &attack.Stream{Variant: u.variant, Seed: attack.OrderSeed(a.opt.Seed, u.variant), Ask: make([]bool, len(order))}
		for p, i := range order {
			s.Items = append(s.Items, a.items[i])
			s.Ask[p] = mine[i] && !u.ans.has(i)
			if s.Ask[p] {
				asked++
			}
		}
		if attack.FrameNeeds(at) != 0 {
			s.Visual = permuteVisual(a.visual, order)
		}
		var err error
		if attack.NeedsText(at) {
			if s.Text, err = a.text.gather(order); err != nil {
				return asked, err
			}
		}
		if attack.NeedsQuestion(at) {
			if s.Question, err = a.question.gather(order); err != nil {
				return asked, err
			}
		}
		if attack.CrossPool(at) {
			if s.Pool, err = a.crossPool(); err != nil {
				return asked, err
			}
		}
		preds, err := at.Attack(ctx, s)
		if err != nil {
			return asked, fmt.Errorf("attacker %s, variant %d: %w", at.Name(), u.variant, err)
		}
		if len(preds) != len(order) {
			return asked, fmt.Errorf("attacker %s, variant %d: %d predictions for %d items", at.Name(), u.variant, len(preds), len(order))
		}
		// Only the asked items' answers are the shard's to keep.
		var keep []int32
		var keepPos []int
		var keepPreds []attack.Prediction
		for p, i := range order {
			if !s.Ask[p] {
				continue
			}
			if pr := preds[p]; pr.Choice < 0 || pr.Choice >= len(a.items[i].Options) {
				return asked, fmt.Errorf("attacker %s, variant %d: item %s: choice %d out of range", at.Name(), u.variant, a.items[i].Source, pr.Choice)
			}
			position := p
			if pos != nil {
				position = pos[p]
			}
			keep, keepPos, keepPreds = append(keep, i), append(keepPos, position), append(keepPreds, preds[p])
		}
		if err := ctx.Err(); err != nil {
			return asked, err
		}
		if err := a.appendRecords(u, at.Name(), keep, keepPos, keepPreds); err != nil {
			return asked, err
		}
		for k, i := range keep {
			if keepPreds[k].Failure == "" {
				u.stored++
				u.ans.put(i, a.items[i], keepPreds[k])
			}
		}
	}
	return asked, nil
}

// shardPermutations runs, for a shard, the permutation audit's orders of
// the lm_reader attackers whose prompts list the options (the options-only
// and blind readers) on the shard's own items (own, ascending), each
// order's choices kept in the shard's cache (permutationChoices), where
// merge finds them (shardPermutation).
func (a *audit) shardPermutations(ctx context.Context, own []int32) error {
	k := a.acfg.PermutationCount()
	if k == 0 || len(own) == 0 {
		return nil
	}
	var readers []attack.Attacker
	for _, at := range a.attackers {
		if attack.PermutesOptions(at) && attack.HonoursAsk(at) {
			readers = append(readers, at)
		}
	}
	if len(readers) == 0 {
		return nil
	}
	t0 := time.Now()
	m := newMeter(a.opt.Progress, int64(len(readers)*(k+1)*len(own)), "permutations", "prompts")
	a.prompts.set(m.add)
	defer a.prompts.set(nil)
	for _, at := range readers {
		for o := 0; o <= k; o++ {
			if _, _, err := a.permutationChoices(ctx, at, o, own); err != nil {
				m.exit()
				return a.interrupted(ctx, err)
			}
		}
	}
	m.finish()
	a.stage("permutations", t0)
	return nil
}

// shardVisual fills, in a shard, what the captions and transcript readers
// read of each of the shard's items (mine; fr and the transcripts heard
// are of those items, in order): its video's failure, the captions of its
// uniform frames and its transcript, as the video stage gives them, with
// the input its records name (a.inputs). The other items get an empty
// Visual: they are never asked. What the video stage would also fail an
// item for (a text model's non-finite embedding of its texts or captions)
// is not looked for here: such an item's answer is kept by its shard.
func (a *audit) shardVisual(fr *features.Result, mine []bool, needs attack.Needs, hashes []string, heard []transcriptEntry) {
	n := len(a.items)
	a.inputs = make([]string, n)
	a.visual = make([]*attack.Visual, n)
	for i := range a.visual {
		a.visual[i] = &attack.Visual{}
	}
	byHash := map[string]*transcriptEntry{}
	for k, h := range hashes {
		byHash[h] = &heard[k]
	}
	// The video stage gives captions and transcripts to the readers only
	// with an image tower (a run of served VLM readers alone has none).
	full := a.opt.Video != nil && len(a.opt.Video.ImageText) > 0
	k := 0
	for i := range a.items {
		if !mine[i] {
			continue
		}
		f := fr.Items[k]
		k++
		a.inputs[i] = videoInput(f.Hash, a.cfg.Videos)
		a.fail(i, f.Failure)
		v := a.visual[i]
		v.Failure = f.Failure
		if !full {
			continue
		}
		if needs.Has(attack.NeedCaptions) && f.Failure == "" {
			vid := fr.Videos[f.Video]
			for _, r := range f.Rows[features.CaptionSet.Name] {
				if c := vid.Captions[r]; c != "" {
					v.CaptionTexts = append(v.CaptionTexts, c)
				}
			}
		}
		if needs.Has(attack.NeedTranscript) && a.opt.Video.ASR != nil {
			x := &attack.Transcript{}
			v.Transcript = x
			if e, ok := byHash[f.Hash]; ok && f.Failure == "" {
				x.NoStream, x.Text = e.NoStream, e.Text
				if e.Failure != "" {
					x.Text = ""
				}
			}
		}
	}
}
