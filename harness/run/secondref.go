package run

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// secondReference is the second reference of --reference-model (the
// authors' audit/reference.py: "the attacker role at 32 frames is the
// second reference"; levels.py's sr_* columns): the second vlm_reader
// entry answers every item on the full protocol (32 uniform frames, every
// option), through features.ReadVLM and its cache, as the first entry
// does for s*. mine, when not nil, is a shard's items: the shard asks
// about those only and keeps only its cache, which the merge is seeded
// with; a merge asks no model (mergeReader). A run without a second
// entry says so on the cards (secondRefNote).
func (a *audit) secondReference(ctx context.Context, mine []bool) error {
	if !a.opt.ReferenceModel {
		return nil
	}
	v := a.opt.Video
	if v == nil || len(v.ExtraVLM) == 0 {
		a.secondRefNote = "no second vlm_reader entry in --models: the second reference (the authors' sr_*, another model on the full protocol) needs one"
		return nil
	}
	t0 := time.Now()
	var reader features.VLMScorer = v.ExtraVLM[0]
	if len(a.opt.Merge) > 0 {
		reader = mergeReader{reader}
	}
	var idx []int
	var sub []*harness.Item
	for i, it := range a.items {
		if mine == nil || mine[i] {
			idx = append(idx, i)
			sub = append(sub, it)
		}
	}
	set := referenceSet(ReferenceFrames)
	scores, err := features.ReadVLM(ctx, sub, features.VLMOptions{
		Root: a.opt.VideoRoot, CacheDir: filepath.Join(a.opt.Out, rundir.CacheDir), Sets: []features.VLMSet{set},
		Reader: reader, ReaderName: v.ExtraVLMNames[0], Size: a.opt.extraVLMDecodeSize(needsOf(a.attackers), 0), Decode: v.Decode, Seed: a.opt.Seed,
		Damaged: a.cacheDamaged,
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
		}
		return fmt.Errorf("second reference (vlm_reader entry 2): %w", err)
	}
	a.stage("second reference", t0)
	if mine != nil {
		return nil
	}
	a.secondRef = map[string]int{}
	for k, i := range idx {
		it := a.items[i]
		if s := scores[k][set.Name]; len(s) == len(it.Options) {
			a.secondRef[it.Key()] = argmax(s)
		}
	}
	a.secondRefModel = "vlm_reader#2:" + v.ExtraVLMNames[0]
	return nil
}
