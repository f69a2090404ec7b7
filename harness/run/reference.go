package run

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models/letters"
)

// The full protocol of the reference model, and when its 128-frame probe
// replaces it (Video-Index 3.1 and 4; docs/attackers.md).
const (
	// ReferenceFrames is the frame count of the full protocol: s* is read
	// from vlm_reader's answers on 32 uniform frames and every option.
	ReferenceFrames = features.UniformFrames
	// ProbeFrames is the frame count of the probe that supplies the
	// reference on a long-video benchmark where the 32-frame one stays
	// within ReferenceDelta of chance.
	ProbeFrames = 128
	// LongVideoSeconds is the mean video duration from which a benchmark is
	// a long-video one (Video-Index 4: "the 30 benchmarks whose videos
	// average at least 300 seconds").
	LongVideoSeconds = 300
	// ReferenceDelta is the tolerance delta of the breaking level, used
	// here for "within the tolerance of chance".
	ReferenceDelta = 0.05
)

// referenceSet is the frame set of the reference: the clip's uniform
// frames in time order, with every option in the prompt (the base of the
// order diagnostics, so a run with both scores it once).
func referenceSet(frames int) features.VLMSet {
	base, _ := features.DiagnosticSets(frames)
	return base
}

// referenceStage is the reference stage: with Options.ReferenceModel it
// computes s* (modelReference), sets a.refSource and returns the answers by
// item key; otherwise it returns ref, the reference file's answers (nil
// without one), as they are.
func (a *audit) referenceStage(ctx context.Context, ref map[string]int) (map[string]int, error) {
	if !a.opt.ReferenceModel {
		return ref, nil
	}
	ref, src, err := a.modelReference(ctx)
	if err != nil {
		return nil, err
	}
	a.refSource = src
	return ref, nil
}

// modelReference computes s* with vlm_reader (--reference-model): the
// answers of the full protocol for every item (scored by the feature
// stage, in its one decode pass), then, on each long-video
// benchmark whose 32-frame accuracy stays within ReferenceDelta of chance,
// the answers of the 128-frame probe for that benchmark's items instead,
// where the probe rises more than ReferenceDelta above chance
// (applyProbe). It returns the answers by item key and, per benchmark,
// what the card says of them. A merge asks no model: it reads the probe's
// scores its shards stored (shardProbe, mergedProbe).
func (a *audit) modelReference(ctx context.Context) (map[string]int, map[string]*metrics.ReferenceSource, error) {
	t0 := time.Now()
	v := a.opt.Video
	// The full protocol's scores came with the feature stage's one pass.
	s32 := a.refScores
	if s32 == nil {
		s32 = make([][]float64, len(a.items))
	}
	ref, src, probe := planReference(a.items, s32, a.videoSeconds(), "vlm_reader:"+v.VLMName)
	// The probe is decided by the full protocol's accuracy, so it cannot
	// join the first pass: its benchmarks' videos are decoded again, at 128
	// frames, and only where it runs.
	if len(probe) > 0 {
		var idx []int
		var sub []*harness.Item
		for i, it := range a.items {
			if probe[it.Benchmark] {
				idx = append(idx, i)
				sub = append(sub, it)
			}
		}
		var s128 [][]float64
		var failed []bool
		var err error
		if len(a.opt.Merge) > 0 {
			s128, failed, err = a.mergedProbe(ctx, idx)
		} else {
			s128, failed, err = a.probeScores(ctx, sub)
		}
		if err != nil {
			return nil, nil, err
		}
		all := make([][]float64, len(a.items))
		for k, i := range idx {
			all[i] = s128[k]
			if failed[k] {
				// As every served failure: the item fails with reason server
				// (items.parquet, the cards' count) and the run goes on. It
				// joins the run's failures with the attackers' (serverFailed),
				// so the other readers' records of the item are kept; its
				// probe scores were not stored, so a resumed run asks again.
				a.serverFailed.add(int32(i), letters.FailureServer)
			}
		}
		applyProbe(a.items, all, probe, ref, src)
	}
	a.stage("reference", t0)
	return ref, src, nil
}

// probeScores returns each item's vlm_reader scores on ProbeFrames uniform
// frames (nil where the prompt fitted no frame count, or the server failed
// it) and which items a served reader's server failed on after its
// retries: the set is then present with a nil row (features.ReadVLM). The
// scores are kept in the run's cache, so that a resumed run decodes
// nothing already scored.
func (a *audit) probeScores(ctx context.Context, items []*harness.Item) ([][]float64, []bool, error) {
	v := a.opt.Video
	set := referenceSet(ProbeFrames)
	scores, err := features.ReadVLM(ctx, items, features.VLMOptions{
		Root: a.opt.VideoRoot, CacheDir: filepath.Join(a.opt.Out, rundir.CacheDir), Sets: []features.VLMSet{set},
		Reader: v.VLM, ReaderName: v.VLMName, Size: a.opt.decodeSize(needsOf(a.attackers)), Decode: v.Decode, Seed: a.opt.Seed,
		Damaged: a.cacheDamaged,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
		}
		return nil, nil, fmt.Errorf("reference model: %w", err)
	}
	out := make([][]float64, len(items))
	failed := make([]bool, len(items))
	for i, s := range scores {
		sc, asked := s[set.Name]
		out[i], failed[i] = sc, asked && sc == nil
	}
	return out, failed, nil
}

// videoSeconds returns each item's video duration in seconds: the item's
// duration field, else its decoded video's, else NaN.
func (a *audit) videoSeconds() []float64 {
	out := make([]float64, len(a.items))
	for i, it := range a.items {
		switch {
		case it.Duration != nil:
			out[i] = *it.Duration
		case a.decodedSeconds != nil && a.decodedSeconds[i] > 0:
			out[i] = a.decodedSeconds[i]
		default:
			out[i] = math.NaN()
		}
	}
	return out
}

// planReference reads the reference answers off vlm_reader's 32-frame
// letter scores (one per item, nil where it gave none: the item is then
// left unanswered) and, per benchmark, fills its ReferenceSource and
// decides whether the 128-frame probe may replace them: on a long-video
// benchmark (mean of seconds, NaN left out, at least LongVideoSeconds)
// where s* - c <= ReferenceDelta, c the mean chance of the items the
// reference answered (the authors' reference_128.py, near_chance). probe
// holds those benchmarks. Every benchmark whose s* is within
// ReferenceDelta of chance is flagged NearChance (levels.py's
// reference_near_chance), the probed ones too.
func planReference(items []*harness.Item, s32 [][]float64, seconds []float64, model string) (ref map[string]int, src map[string]*metrics.ReferenceSource, probe map[string]bool) {
	ref = map[string]int{}
	type tally struct {
		ok, n, chance, sec float64
		secN               int
	}
	per := map[string]*tally{}
	var names []string
	for i, it := range items {
		t := per[it.Benchmark]
		if t == nil {
			t = &tally{}
			per[it.Benchmark] = t
			names = append(names, it.Benchmark)
		}
		if !math.IsNaN(seconds[i]) {
			t.sec += seconds[i]
			t.secN++
		}
		if s := s32[i]; len(s) == len(it.Options) {
			p := argmax(s)
			ref[it.Key()] = p
			t.n++
			t.chance += 1 / float64(len(it.Options))
			if p == it.Answer {
				t.ok++
			}
		}
	}
	slices.Sort(names)
	src = map[string]*metrics.ReferenceSource{}
	probe = map[string]bool{}
	for _, b := range names {
		t := per[b]
		rs := &metrics.ReferenceSource{Model: model, Frames: ReferenceFrames, N32: int(t.n)}
		if t.secN > 0 {
			rs.MeanVideoSeconds = roundTo(t.sec / float64(t.secN))
			rs.LongVideo = t.sec/float64(t.secN) >= LongVideoSeconds
		}
		if t.n == 0 {
			rs.Note = fmt.Sprintf("vlm_reader answered none of the items at %d frames", ReferenceFrames)
			src[b] = rs
			continue
		}
		acc, chance := t.ok/t.n, t.chance/t.n
		rs.Accuracy32 = roundTo(acc)
		rs.NearChance = acc-chance <= ReferenceDelta
		switch {
		case rs.LongVideo && rs.NearChance:
			probe[b] = true
			rs.Note = fmt.Sprintf("long-video benchmark (videos average %.0f s, at least %d s) whose %d-frame reference (%.4f) stays within %.2f of chance (%.4f): the %d-frame probe supplies s* where it rises above that",
				*rs.MeanVideoSeconds, LongVideoSeconds, ReferenceFrames, acc, ReferenceDelta, chance, ProbeFrames)
		case rs.NearChance:
			rs.Note = fmt.Sprintf("the full protocol (%d uniform frames, every option) supplies s*, within %.2f of chance (%.4f): reference_near_chance", ReferenceFrames, ReferenceDelta, chance)
		case rs.LongVideo:
			rs.Note = fmt.Sprintf("long-video benchmark whose %d-frame reference is more than %.2f above chance: the full protocol supplies s*", ReferenceFrames, ReferenceDelta)
		default:
			rs.Note = fmt.Sprintf("the full protocol (%d uniform frames, every option) supplies s*", ReferenceFrames)
		}
		src[b] = rs
	}
	return ref, src, probe
}

// MinReferenceItems is the fewest items a reference must score for its
// accuracy to count: the 128-frame probe's replaces s* only over at least
// this many (the authors' levels.py, MIN_N = 30, "if len(sc) >= min_n:
// s128 = ..."), and a card reads no breaking level off fewer
// (metrics.MinReferenceItems).
const MinReferenceItems = metrics.MinReferenceItems

// applyProbe decides, per probed benchmark, from the 128-frame scores (s128,
// nil where the probe gave none), as the authors' levels.py (assign_level):
// where the probe scored at least MinReferenceItems items and its accuracy
// exceeds c by more than ReferenceDelta (c the mean chance of the items the
// 32-frame reference answered), its answers replace the benchmark's
// reference (an item it gave none is then unanswered); otherwise s* stays
// the 32-frame one and the card keeps reference_near_chance. Either way
// the source records the probe's accuracy and count.
func applyProbe(items []*harness.Item, s128 [][]float64, probe map[string]bool, ref map[string]int, src map[string]*metrics.ReferenceSource) {
	type tally struct{ ok, n, chance, n32 float64 }
	per := map[string]*tally{}
	for i, it := range items {
		if !probe[it.Benchmark] {
			continue
		}
		t := per[it.Benchmark]
		if t == nil {
			t = &tally{}
			per[it.Benchmark] = t
		}
		if _, ok := ref[it.Key()]; ok {
			t.n32++
			t.chance += 1 / float64(len(it.Options))
		}
		if s := s128[i]; len(s) == len(it.Options) {
			t.n++
			if argmax(s) == it.Answer {
				t.ok++
			}
		}
	}
	replace := map[string]bool{}
	for b := range probe {
		t, rs := per[b], src[b]
		if t == nil || t.n32 == 0 {
			continue
		}
		chance := t.chance / t.n32
		rs.N128 = int(t.n)
		if t.n > 0 {
			rs.Accuracy128 = roundTo(t.ok / t.n)
		}
		switch {
		case int(t.n) < MinReferenceItems:
			rs.Note += fmt.Sprintf("; the %d-frame probe scored %d items, fewer than the %d its accuracy needs: s* stays the %d-frame one (reference_near_chance)", ProbeFrames, rs.N128, MinReferenceItems, ReferenceFrames)
		case t.ok/t.n-chance <= ReferenceDelta:
			rs.Note += fmt.Sprintf("; the %d-frame probe (%.4f) is also within %.2f of chance: s* stays the %d-frame one (reference_near_chance)", ProbeFrames, t.ok/t.n, ReferenceDelta, ReferenceFrames)
		default:
			replace[b] = true
			rs.Frames, rs.Probe = ProbeFrames, true
			rs.Note += fmt.Sprintf("; the %d-frame probe (%.4f over %d items) rises above that: it supplies s*", ProbeFrames, t.ok/t.n, rs.N128)
		}
	}
	for i, it := range items {
		if !replace[it.Benchmark] {
			continue
		}
		delete(ref, it.Key())
		if s := s128[i]; len(s) == len(it.Options) {
			ref[it.Key()] = argmax(s)
		}
	}
}

// argmax is the first index of the largest score.
func argmax(s []float64) int {
	best := 0
	for j := range s {
		if s[j] > s[best] {
			best = j
		}
	}
	return best
}

// roundTo rounds x to 4 decimals, as the cards do.
func roundTo(x float64) *float64 {
	r := math.Round(x*1e4) / 1e4
	return &r
}
