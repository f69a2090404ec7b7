package vidomni

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
)

// verifyBySimilarity is MethodSimilarity: the image_text role of
// opt.Models embeds the frames (through opt.Cache when set) and the
// sentences, and a sentence whose best frame's cosine is under the
// threshold is flagged Incorrect. The threshold is opt.Threshold, or the
// one that maximises mean per-pair F1 on opt.Fit's labelled pairs, else on
// the pairs of input themselves (in-sample: optimistic, and res says so).
// Each verdict also holds the similarities, so that another threshold
// needs no second run.
func verifyBySimilarity(ctx context.Context, opt VerifyOptions, env Env, frames *FrameSampler, pairs []*Pair, input string, res *VerifyResult) ([]verdictRecord, error) {
	m, rt, dev, err := opt.runtime(env)
	if err != nil {
		return nil, err
	}
	var cache *FrameCache
	if opt.Cache != "" {
		folder, spec, err := m.Folder(models.RoleImageText)
		if err != nil {
			return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
		}
		// The cache names the model by its role's identity, so that new
		// weights in the same folder miss rather than read stale vectors.
		id, err := models.RoleName(models.RoleImageText, folder, spec)
		if err != nil {
			return nil, fmt.Errorf("--cache: %w", err)
		}
		cache = &FrameCache{Dir: opt.Cache, Model: id}
		res.Cache = cache
	}
	if res.Verifier == "" {
		res.Verifier = string(models.RoleImageText) + "-similarity"
	}
	it, err := rt.OpenImageText(m, dev)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	defer it.Close()
	sims, failed, err := Similarities(ctx, it, frames, cache, pairs)
	if err != nil {
		return nil, err
	}
	res.skip(env, failed)
	t := math.NaN()
	if opt.Threshold != nil {
		t = *opt.Threshold
	}
	if math.IsNaN(t) {
		th, err := fitThreshold(ctx, opt, env, frames, it, cache, pairs, sims, input, res)
		if err != nil {
			return nil, err
		}
		res.Threshold = th
		t = th.Value
	} else {
		res.Threshold = &Threshold{Value: t}
	}
	var lines []verdictRecord
	for i, p := range pairs {
		if sims[i] != nil {
			lines = append(lines, verdictRecord{Pair: p.ID, Verifier: res.Verifier, Labels: Flag(sims[i], t), Similarity: sims[i]})
		}
	}
	return lines, nil
}

// fitThreshold fits the similarity threshold on opt.Fit's labelled pairs,
// their videos under opt.Videos or else beside the file, or, without
// opt.Fit, on the pairs verified (pairs and sims, read from input).
func fitThreshold(ctx context.Context, opt VerifyOptions, env Env, frames *FrameSampler, it ImageTextModel, cache *FrameCache,
	pairs []*Pair, sims [][]float64, input string, res *VerifyResult) (*Threshold, error) {
	fitPairs, fitSims := pairs, sims
	on := input + " (the pairs verified: in-sample, optimistic)"
	if opt.Fit != "" {
		on = opt.Fit
		var err error
		if fitPairs, err = readFile(opt.Fit, ReadLabels); err != nil {
			return nil, err
		}
		fitFrames := *frames
		if opt.Videos == "" {
			fitFrames.Root = filepath.Dir(opt.Fit)
		}
		var failed []FailedVideo
		if fitSims, failed, err = Similarities(ctx, it, &fitFrames, cache, fitPairs); err != nil {
			return nil, err
		}
		res.skip(env, failed)
	}
	f, err := FitThreshold(fitPairs, fitSims, Options{NoIncorrect: opt.NoIncorrect})
	if err != nil {
		return nil, fmt.Errorf("%w: fit the threshold: %v", harness.ErrBadInput, err)
	}
	return &Threshold{Value: f.Threshold, Fitted: &f, On: on}, nil
}
