package run

import (
	"context"
	"fmt"
	"time"

	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
)

// duplicates is the duplicates stage: it finds the near-duplicate pairs of
// the items by their question rows (a.question), joins the items that share
// a video (by a.videoIdentity, when videos were read) and, with
// Options.Confirm, keeps the pairs the confirming embedder confirms.
func (a *audit) duplicates(ctx context.Context) (*dups.Result, error) {
	threads := a.opt.kernelOptions()
	t0 := time.Now()
	dm := newMeter(a.opt.Progress, int64(len(a.items)), "duplicates", "items")
	// Near-duplicates are pairs of items whose questions alone are close
	// (001: "question cosine >= 0.9, confirmed with MPNet").
	dup, err := dups.FindRows(ctx, a.items, a.question, dups.DefaultThreshold, threads)
	if err != nil {
		dm.exit()
		return nil, err
	}
	dm.add(len(a.items))
	dm.finish()
	if a.videoIdentity != nil {
		dup.SharedVideos(a.items, a.videoIdentity, a.videosBy)
	}
	if a.opt.Confirm != nil {
		if dup, err = a.confirm(ctx, dup); err != nil {
			return nil, err
		}
	}
	a.stage("duplicates", t0)
	return dup, nil
}

// confirm embeds the items of dup's pairs with the confirming embedder
// (through the cache, so a resumed run reads them) and keeps the pairs it
// confirms.
func (a *audit) confirm(ctx context.Context, dup *dups.Result) (*dups.Result, error) {
	emb := a.opt.Confirm
	idx := dups.PairItems(dup, len(a.items))
	texts := make([]string, len(idx))
	for j, i := range idx {
		texts[j] = textembed.QuestionText(a.items[i])
	}
	cache := a.cache()
	key := rundir.ContentKey(emb.Name(), nil, texts)
	m, err := cache.load("confirm-question", key, len(texts), emb.Dim())
	if err != nil {
		return nil, err
	}
	if m == nil {
		meter := newMeter(a.opt.Progress, int64(len(texts)), "confirm", "texts")
		var bad []int
		if m, bad, err = embedAll(ctx, emb, texts, meter.add); err != nil {
			meter.exit()
			return nil, fmt.Errorf("embed near-duplicate candidates with %s: %w", emb.Name(), err)
		}
		meter.finish()
		// A candidate the confirming model cannot embed fails its item; its
		// zero row confirms none of its pairs.
		for _, j := range bad {
			a.textFailed(idx[j])
		}
		if len(bad) == 0 {
			if err := cache.store("confirm-question", key, m); err != nil {
				return nil, err
			}
		}
	}
	return dups.ConfirmPairs(a.items, dup, idx, m)
}
