package run

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// extraVLMSets returns the frame sets the later vlm_reader entries score:
// those of centre-frame-reader, shuffled-frames-reader and
// full-video-reader that needs asks for, on the original option order only
// (the option-permutation audit is the first entry's). The in-order frames
// go under attack.VLMInOrder's name, which full-video-reader#k reads: the
// consistency check compares the full-video models (Video-Oasis 3.1, the
// authors' five).
func (o *Options) extraVLMSets(needs attack.Needs) []features.VLMSet {
	if o.Video == nil || len(o.Video.ExtraVLM) == 0 {
		return nil
	}
	centre, shuffled, _ := features.VLMSets(o.frames())
	var sets []features.VLMSet
	if needs.Has(attack.NeedVLMCentre) {
		sets = append(sets, centre)
	}
	if needs.Has(attack.NeedVLMShuffled) {
		sets = append(sets, shuffled)
	}
	if needs.Has(attack.NeedVLMInOrder) {
		inOrder, _ := features.DiagnosticSets(o.frames())
		inOrder.Name = attack.VLMInOrder
		sets = append(sets, inOrder)
	}
	return sets
}

// extraVLMDecodeSize is the size entry k's frames are decoded at: the run's,
// or the entry's where larger (largestSize), as for screen_reader.
func (o *Options) extraVLMDecodeSize(needs attack.Needs, k int) decode.Size {
	size := o.decodeSize(needs)
	if k < len(o.Video.ExtraVLMSizes) {
		size = largestSize(size, o.Video.ExtraVLMSizes[k])
	}
	return size
}

// extraVLMConfig is what config.json says of the later vlm_reader entries:
// per entry, its name, frame sets and decode size, so that a changed entry
// changes every frame answer's input (videoInput) and the run's identity.
func (o *Options) extraVLMConfig(needs attack.Needs) []string {
	sets := o.extraVLMSets(needs)
	if len(sets) == 0 {
		return nil
	}
	out := make([]string, len(o.Video.ExtraVLM))
	for k, name := range o.Video.ExtraVLMNames {
		out[k] = name
		for _, s := range sets {
			out[k] += " " + s.String()
		}
		out[k] += "@" + o.extraVLMDecodeSize(needs, k).String()
	}
	return out
}

// extraVLMScores adds, to vis, each later vlm_reader entry's scores of the
// centre-frame and shuffled sets under attack.VLMModelKey (entry k + 1 for
// the k-th later one), for centre-frame-reader#<k+2> and
// shuffled-frames-reader#<k+2>. Each entry's scores are computed, or read
// from the run's cache, in a pass of its own (features.ReadVLM), keyed by
// that entry's name (its files' hashes and settings) and each video's
// content, so two VLMs never share answers and a replaced video is scored
// again. An item the entry could not score has none, and its reader
// guesses there.
func (a *audit) extraVLMScores(ctx context.Context, vis []*attack.Visual, needs attack.Needs) error {
	sets := a.opt.extraVLMSets(needs)
	if len(sets) == 0 {
		return nil
	}
	v := a.opt.Video
	for k, r := range v.ExtraVLM {
		scores, err := features.ReadVLM(ctx, a.items, features.VLMOptions{
			Root: a.opt.VideoRoot, CacheDir: filepath.Join(a.opt.Out, rundir.CacheDir), Sets: sets,
			Reader: r, ReaderName: v.ExtraVLMNames[k], Size: a.opt.extraVLMDecodeSize(needs, k), Decode: v.Decode, Seed: a.opt.Seed,
		})
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
			}
			return fmt.Errorf("vlm_reader entry %d: %w", k+2, err)
		}
		a.failUnanswered(scores)
		for i, x := range vis {
			m := make(map[string][]float64, len(x.VLM)+len(sets))
			for key, sc := range x.VLM {
				m[key] = sc
			}
			for _, set := range sets {
				if sc, ok := scores[i][set.Name]; ok && x.Failure == "" {
					m[attack.VLMModelKey(set.Name, k+1)] = sc
				}
			}
			x.VLM = m
		}
	}
	return nil
}
