package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answercheck"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models"
)

// The two passes of the answer-verification stage as VLM sets: their
// names key the verdicts' scores in the run's VLM cache, apart from every
// attacker's (the verification items' prompts differ too).
func verifySets() (first, recheck features.VLMSet) {
	return features.VLMSet{Name: "verify-32", Sampler: mustParseSampler(answercheck.FirstSampler)},
		features.VLMSet{Name: "verify-512", Sampler: mustParseSampler(answercheck.RecheckSampler)}
}

func mustParseSampler(spec string) decode.Sampler {
	s, err := decode.ParseSampler(spec)
	if err != nil {
		panic(err)
	}
	return s
}

// errMergeAsks is what a merge's verifier answers instead of asking a
// model: the shards asked about every item, so every verdict is in the
// cache the merge was seeded with (seedFromShards).
var errMergeAsks = errors.New("merge asks no model: the shards' caches lack answers this merge needs (were the shards made by this vidscreen, with the same flags?)")

// mergeReader is a VLM reader in a merge: it encodes and measures frames
// as the reader does and refuses to score.
type mergeReader struct{ features.VLMScorer }

func (mergeReader) Score(context.Context, []models.VLMPrompt) ([][]float64, error) {
	return nil, errMergeAsks
}

// verifyAnswers is the answer-verification stage (--verify-answers;
// harness/answercheck, the authors' compose/verify.py): vlm_reader reads
// each asked item's verification question on fps:1,max:32 frames, then,
// where it says contradicted or not_verifiable, on fps:1,max:512 frames.
// Both passes go through features.ReadVLM, so a served or ONNX reader is
// asked alike, each video is decoded once per pass, and the scores are
// cached by content: a resumed run asks nothing it stored. mine, when not
// nil, is a shard's items: the shard asks about those only and keeps
// nothing but its cache, which the merge is seeded with; a merge asks no
// model (mergeReader). Otherwise the verdicts are kept in a.answerCheck
// and counted per benchmark for the cards.
func (a *audit) verifyAnswers(ctx context.Context, mine []bool) error {
	if !a.opt.VerifyAnswers {
		return nil
	}
	v := a.opt.Video
	if v == nil || v.VLM == nil || a.opt.VideoRoot == "" {
		a.answerChecks = notRunChecks(a.items, "the run has no vlm_reader and video root to verify answers with (--verify-answers needs --videos and --models with a vlm_reader role)")
		return nil
	}
	t0 := time.Now()
	var reader features.VLMScorer = v.VLM
	if len(a.opt.Merge) > 0 {
		reader = mergeReader{v.VLM}
	}
	first, recheck := verifySets()
	read := func(idx []int, set features.VLMSet) ([]string, error) {
		sub := make([]*harness.Item, len(idx))
		for k, i := range idx {
			sub[k] = answercheck.Item(a.items[i])
		}
		scores, err := features.ReadVLM(ctx, sub, features.VLMOptions{
			Root: a.opt.VideoRoot, CacheDir: filepath.Join(a.opt.Out, rundir.CacheDir), Sets: []features.VLMSet{set},
			Reader: reader, ReaderName: v.VLMName, Size: a.opt.decodeSize(needsOf(a.attackers)), Decode: v.Decode, Seed: a.opt.Seed,
			Damaged: a.cacheDamaged,
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
			}
			return nil, fmt.Errorf("answer verification (%s): %w", set.Name, err)
		}
		out := make([]string, len(idx))
		for k, s := range scores {
			out[k] = answercheck.VerdictOf(s[set.Name])
		}
		return out, nil
	}
	var asked []int
	for i, it := range a.items {
		if (mine == nil || mine[i]) && answercheck.Asked(it) {
			asked = append(asked, i)
		}
	}
	v32, err := read(asked, first)
	if err != nil {
		return err
	}
	firstOf := make([]string, len(a.items))
	var again []int
	for k, i := range asked {
		firstOf[i] = v32[k]
		if answercheck.Recheck(v32[k]) {
			again = append(again, i)
		}
	}
	v512, err := read(again, recheck)
	if err != nil {
		return err
	}
	secondOf := make([]string, len(a.items))
	for k, i := range again {
		secondOf[i] = v512[k]
	}
	a.stage("verify answers", t0)
	a.opt.Progress.Note("answer verification done", "asked", len(asked), "rechecked", len(again))
	if mine != nil {
		return nil // the shard's cache holds the verdicts; merge reads them
	}
	seconds := a.videoSeconds()
	f := &answercheck.File{Verifier: "vlm_reader:" + v.VLMName, FirstSampler: answercheck.FirstSampler, RecheckSampler: answercheck.RecheckSampler,
		ShortVideoSeconds: answercheck.ShortVideoSeconds, Items: make([]answercheck.Record, len(a.items))}
	for i, it := range a.items {
		f.Items[i] = answercheck.Decide(it, firstOf[i], secondOf[i], seconds[i])
	}
	a.answerCheck = f
	a.answerChecks = metrics.AnswerChecks(f.Items, f.Verifier)
	return nil
}

// notRunChecks is each benchmark's card entry of a stage that could not
// run, saying why.
func notRunChecks(items []*harness.Item, why string) map[string]*metrics.AnswerCheck {
	out := map[string]*metrics.AnswerCheck{}
	for _, it := range items {
		if out[it.Benchmark] == nil {
			out[it.Benchmark] = &metrics.AnswerCheck{Note: why}
		}
		out[it.Benchmark].Items++
	}
	return out
}

// answerCheckOutputs is the run directory's answercheck.FileName, written
// with the reports when the stage ran.
func (a *audit) answerCheckOutputs() []output {
	if a.answerCheck == nil {
		return nil
	}
	return []output{{answercheck.FileName, func(w io.Writer) error { return a.answerCheck.Write(w) }}}
}
