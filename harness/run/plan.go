package run

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answercheck"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/predictions"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// A plan is what the plan stage makes of Options before anything is
// written: the items to audit, what their answers are scored against, the
// attackers' configuration and the run's rundir.Config, which the claim
// stage compares with the directory's.
type plan struct {
	// started is when the plan stage began: the start of the read stage
	// (which ends once the directory is claimed) and run.json's.
	started time.Time
	acfg    attack.Config
	workers int // units run at once
	// items are those audited (sampled when Options.Sample is set), read
	// the number of items read before the sample drew them, samples what
	// the sample did per benchmark.
	items   []*harness.Item
	read    int
	samples []harness.SampleInfo
	// aside counts, per benchmark, the bare yes/no items set aside before
	// the sample (harness.SetAsideYesNo; none with Options.KeepYesNo).
	aside []harness.SetAside
	// ref is the reference file's answers by item key (nil without one);
	// models the evaluated models' answers; matches how the rows of the
	// reference and then each model file were matched to the items.
	ref     map[string]int
	models  []metrics.EvaluatedModel
	matches []*predictions.Report
	// emb embeds the item texts; lexical says it is the default lexical
	// embedder, fitted on each benchmark's own texts.
	emb     textembed.TextEmbedder
	lexical bool
	cfg     rundir.Config
	// mergeTime is the time the check of Options.Merge's shards took (the
	// merge stage's first part).
	mergeTime time.Duration
}

// planAudit is the plan stage: it checks opt, reads and checks the items,
// the reference and the evaluated models' predictions, draws the sample and
// builds the attackers' configuration and the run's rundir.Config, and, for
// a merge, checks that opt.Merge names the shards of this very audit.
// Nothing is written: a bad input returns its error (a *harness.ParseError
// for a bad file, a *ShardError for a shard of another audit) and leaves
// opt.Out untouched.
func planAudit(ctx context.Context, opt Options) (*plan, error) {
	if opt.Out == "" {
		return nil, errors.New("no run directory given")
	}
	if len(opt.Items) == 0 {
		return nil, errors.New("no item files given")
	}
	acfg, workers, err := attackConfig(opt)
	if err != nil {
		return nil, err
	}
	p := &plan{started: time.Now(), acfg: acfg, workers: workers}
	read, digests, err := readItems(ctx, opt)
	if err != nil {
		return nil, err
	}
	if opt.Sample < 0 {
		return nil, fmt.Errorf("sample size %d: want 0 (every item) or more", opt.Sample)
	}
	if p.ref, p.models, p.matches, err = loadAnswers(ctx, opt, read); err != nil {
		return nil, err
	}
	p.read = len(read)
	audited := read
	if !opt.KeepYesNo {
		// Bare yes/no items leave before anything is drawn or attacked
		// (Video-Index audit/chance.py is_mcq_item; harness.SetAsideYesNo).
		audited, p.aside = harness.SetAsideYesNo(read)
		for _, s := range p.aside {
			opt.Progress.Note("set aside", "benchmark", s.Benchmark, "reason", harness.YesNoReason, "items", s.YesNo, "of", s.Of)
		}
		if len(audited) == 0 {
			return nil, &harness.ParseError{File: strings.Join(opt.Items, ", "), Field: "options", Err: ErrOnlyYesNo}
		}
	}
	// Duplicates leave before the audit, with or without a sample (paper
	// 002, 3.1; the authors' audit/screen.py), one item per group, judged
	// by the audit's own text embedder; the sample then refills (blog 001;
	// harness.Sample).
	var embed harness.QuestionEmbedder
	if !opt.NoDedup {
		embed = sampleEmbedder(audited, opt.Embedder)
	}
	if p.items, p.samples, err = harness.Sample(ctx, audited, opt.Sample, opt.Seed, embed); err != nil {
		return nil, err
	}
	for _, si := range p.samples {
		if opt.Sample <= 0 {
			opt.Progress.Note("duplicates removed before the audit", "benchmark", si.Benchmark, "removed", si.Duplicates, "of", si.Of)
			continue
		}
		opt.Progress.Note("sample", "benchmark", si.Benchmark, "items", si.N, "of", si.Of, "duplicates_removed", si.Duplicates, "replaced", si.Refilled)
	}
	p.emb, p.lexical = opt.Embedder, opt.Embedder == nil
	if p.lexical {
		p.emb = textembed.NewLexical(0)
	}
	if p.cfg, err = runConfig(opt, acfg, p.items, digests, p.emb, p.lexical); err != nil {
		return nil, err
	}
	if p.mergeTime, err = checkSplit(opt, &p.cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// ErrOnlyYesNo is returned when every item read is a bare yes/no pair and
// Options.KeepYesNo is not set: nothing is left to audit.
var ErrOnlyYesNo = fmt.Errorf("%w: every item read is a bare yes/no pair, set aside as the Video-Index authors do (format_yesno); --keep-yesno audits them as two-option questions", harness.ErrNoItems)

// attackConfig is the attackers' configuration of opt and the number of
// units run at once. It refuses the video levels and the reference model
// without what they read (ErrNoVideo, ErrReferenceModel).
func attackConfig(opt Options) (attack.Config, int, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	acfg := attack.DefaultConfig()
	acfg.Permutations = opt.Permutations
	acfg.CrossPool = opt.CrossPool
	if len(opt.Levels) > 0 {
		// A set, kept in pyramid order: "--levels text,option" is the same
		// configuration as "option,text", on a first run and on resume.
		acfg.Levels = slices.Compact(slices.Sorted(slices.Values(opt.Levels)))
	}
	if hasVideoLevel(acfg.Levels) && (opt.Video == nil || opt.VideoRoot == "") {
		return acfg, 0, ErrNoVideo
	}
	if opt.ReferenceModel && (opt.Video == nil || opt.Video.VLM == nil || opt.VideoRoot == "" || opt.Reference != "") {
		return acfg, 0, ErrReferenceModel
	}
	if hasVideoLevel(acfg.Levels) || opt.Reader != nil {
		acfg.Roles = opt.roles()
		acfg.Reader = opt.Reader
		if opt.Reader != nil {
			acfg.Extra = opt.ExtraReaders
		}
		if v := opt.Video; v != nil && v.VLM != nil {
			acfg.ExtraVLM = len(v.ExtraVLM)
			// No image tower: the caller opened served VLM readers only,
			// whose frames the decode pass gives without one.
			acfg.VLMOwnFrames = len(v.ImageText) == 0
		}
	}
	// The kernels of each unit share the machine with the other workers.
	acfg.Threads = max(1, runtime.GOMAXPROCS(0)/workers)
	acfg.Joiner, acfg.Searcher = opt.Joiner, opt.Searcher
	return acfg, workers, nil
}

// hasVideoLevel reports whether levels include frame or order.
func hasVideoLevel(levels []harness.Level) bool {
	return slices.Contains(levels, harness.LevelFrame) || slices.Contains(levels, harness.LevelOrder)
}

// readItems reads and checks opt.Items (the read meter), with the digests
// of the bytes read; no item at all is a *harness.ParseError.
func readItems(ctx context.Context, opt Options) ([]*harness.Item, []harness.Digest, error) {
	rm := newMeter(opt.Progress, int64(len(opt.Items)), "read", "files")
	// Videos are resolved per item by the feature stage, so that a bad path
	// fails that item only; the reader does not check them.
	items, digests, err := harness.ReadFSDigests(ctx, opt.FS, opt.Items, harness.ReadOptions{Benchmarks: opt.Benchmarks, Limit: opt.Limit})
	if err != nil {
		rm.exit()
		return nil, nil, err
	}
	rm.add(len(opt.Items))
	rm.finish()
	if len(items) == 0 {
		return nil, nil, &harness.ParseError{File: strings.Join(opt.Items, ", "), Err: harness.ErrNoItems}
	}
	return items, digests, nil
}

// loadAnswers reads the reference file's answers and each evaluated
// model's, with how each file's rows matched the items (the reference's
// first). The reference is checked against every item read: it may answer
// items the sample leaves out.
func loadAnswers(ctx context.Context, opt Options, items []*harness.Item) (map[string]int, []metrics.EvaluatedModel, []*predictions.Report, error) {
	var ref map[string]int
	var matches []*predictions.Report
	if opt.Reference != "" {
		var rep *predictions.Report
		if err := regularInput(opt.Reference); err != nil {
			return nil, nil, nil, err
		}
		var err error
		if ref, rep, err = predictions.Load(ctx, opt.Reference, items, indexBase(opt.IndexBase)); err != nil {
			return nil, nil, nil, err
		}
		matches = append(matches, rep)
	}
	var models []metrics.EvaluatedModel
	for _, mf := range opt.Models {
		if err := regularInput(mf.Path); err != nil {
			return nil, nil, nil, err
		}
		answers, rep, err := predictions.Load(ctx, mf.Path, items, indexBase(opt.IndexBase))
		if err != nil {
			return nil, nil, nil, err
		}
		matches = append(matches, rep)
		models = append(models, metrics.EvaluatedModel{Name: mf.Name, Answers: answers})
	}
	return ref, models, matches, nil
}

// indexBase is the reading of digit replies the user chose, for
// predictions.Load.
func indexBase(b *int) items.Options {
	if b == nil {
		return items.NoOptions()
	}
	return items.Options{IndexBase: *b}
}

// sampleEmbedder is the question embedder of the sample's near-duplicate
// rule (harness.Sample): the audit's text_embed model when it has one,
// else a lexical embedder fitted on the benchmark's own texts as read
// (the audit's lexical embedder is fitted on the sampled ones, which do not
// exist yet).
func sampleEmbedder(items []*harness.Item, model textembed.TextEmbedder) harness.QuestionEmbedder {
	return func(ctx context.Context, benchmark string, questions []string) ([][]float32, error) {
		emb := model
		if emb == nil {
			var own []*harness.Item
			for _, it := range items {
				if it.Benchmark == benchmark {
					own = append(own, it)
				}
			}
			emb = textembed.LexicalPerBenchmark(own, 0)[0].Lexical
		}
		m, err := emb.Embed(ctx, questions)
		if err != nil {
			return nil, err
		}
		out := make([][]float32, m.Rows)
		for r := range out {
			out[r] = m.Row(r)
		}
		return out, nil
	}
}

// runConfig is the run's rundir.Config (config.json): what its outputs
// depend on, the inputs fingerprinted by the bytes read (digests, for the
// items: a pipe or FIFO is never opened twice).
func runConfig(opt Options, acfg attack.Config, items []*harness.Item, digests []harness.Digest, emb textembed.TextEmbedder, lexical bool) (rundir.Config, error) {
	root, err := canonicalRoot(opt.VideoRoot)
	if err != nil {
		return rundir.Config{}, err
	}
	cfg := rundir.Config{
		Format: rundir.FormatVersion, VideoRoot: root, Seed: opt.Seed, Sample: opt.Sample, Embedder: emb.Name(),
		Attack: acfg, Duplicates: dups.DefaultThreshold, DuplicateText: "question", Bootstrap: metrics.DefaultConfig(acfg).BootstrapReps,
		Benchmarks: opt.Benchmarks, Limit: opt.Limit, BenchmarkItems: benchmarkItems(items),
	}
	if opt.Sample > 0 && !opt.NoDedup {
		cfg.SampleRule = harness.SampleRule
	}
	if !opt.NoDedup {
		cfg.Dedup = harness.DedupRule
	}
	cfg.YesNo = harness.YesNoSetAside
	if opt.KeepYesNo {
		cfg.YesNo = harness.YesNoKept
	}
	if lexical {
		cfg.Embedder += " (IDF fitted on each benchmark's own texts)"
	}
	if opt.Confirm != nil {
		cfg.Confirm = opt.Confirm.Name()
	}
	cfg.LMReader = opt.ReaderName
	if opt.Reader != nil || (opt.Video != nil && opt.Video.VLMName != "") {
		cfg.Prompts = opt.Prompts
	}
	if opt.Reader != nil && len(opt.ExtraReaders) > 0 {
		cfg.LMReaderExtra = opt.ExtraReaderNames
	}
	cfg.AttackerVersions = map[string]string{}
	for _, at := range attack.Attackers(acfg) {
		cfg.AttackerVersions[at.Name()] = attack.Version(at)
	}
	if needs := needsOf(attack.Attackers(acfg)); needs != 0 {
		cfg.Videos = videoConfig(opt, needs)
	}
	if opt.ReferenceModel {
		cfg.ReferenceModel = &rundir.ReferenceModelConfig{VLMReader: opt.Video.VLMName, Frames: ReferenceFrames, ProbeFrames: ProbeFrames,
			LongVideoSeconds: LongVideoSeconds, Delta: ReferenceDelta, DecodeSize: opt.decodeSize(needsOf(attack.Attackers(acfg))).String()}
		if len(opt.Video.ExtraVLMNames) > 0 {
			cfg.ReferenceModel.SecondReader = opt.Video.ExtraVLMNames[0]
		}
	}
	if opt.VerifyAnswers && opt.Video != nil && opt.Video.VLM != nil {
		cfg.VerifyAnswers = &rundir.VerifyAnswersConfig{VLMReader: opt.Video.VLMName, FirstSampler: answercheck.FirstSampler,
			RecheckSampler: answercheck.RecheckSampler, ShortVideoSeconds: answercheck.ShortVideoSeconds,
			DecodeSize: opt.decodeSize(needsOf(attack.Attackers(acfg))).String()}
	}
	cfg.Attack.Threads = 0 // not part of the result
	for _, d := range digests {
		cfg.Items = append(cfg.Items, inputOf(d))
	}
	if opt.Reference != "" {
		in, err := hashInput(opt.Reference)
		if err != nil {
			return rundir.Config{}, fmt.Errorf("hash reference: %w", err)
		}
		cfg.Reference = &in
	}
	for _, mf := range opt.Models {
		in, err := hashInput(mf.Path)
		if err != nil {
			return rundir.Config{}, fmt.Errorf("hash predictions of %s: %w", mf.Name, err)
		}
		cfg.Models = append(cfg.Models, rundir.ModelInput{Model: mf.Name, Input: in})
	}
	return cfg, nil
}

// videoConfig is config.json's "videos": the video models and the frame
// and VLM sets that the attackers of needs read.
func videoConfig(opt Options, needs attack.Needs) *rundir.VideoConfig {
	v := opt.Video
	c := &rundir.VideoConfig{ImageText: v.ImageName, Prep: imageprep.Version, Size: opt.decodeSize(needs).String(), Frames: opt.frames()}
	if needs.Has(attack.NeedCaptions) {
		c.Captioner = v.CaptionerName
	}
	if needs.Has(attack.NeedTranscript) {
		c.ASR = v.ASRName
	}
	for _, s := range frameSets(needs, opt.frames()) {
		c.Sets = append(c.Sets, s.Name+"="+s.Sampler.String())
	}
	if sets := opt.allVLMSets(needs); len(sets) > 0 {
		c.VLMReader = v.VLMName
		for _, s := range sets {
			c.VLMSets = append(c.VLMSets, s.String())
		}
	}
	c.VLMExtra = opt.extraVLMConfig(needs)
	if sets := opt.screenSets(needs); len(sets) > 0 {
		c.ScreenReader = v.ScreenName
		for _, s := range sets {
			c.ScreenSets = append(c.ScreenSets, s.String()+"@"+opt.screenDecodeSize(needs).String())
		}
	}
	return c
}

// checkSplit names a shard in cfg (Options.Shard) or checks that the
// shards a merge names (Options.Merge) are this very audit's, returning
// the time that check took; a run is not both.
func checkSplit(opt Options, cfg *rundir.Config) (time.Duration, error) {
	if opt.Shard != nil {
		if err := opt.Shard.check(); err != nil {
			return 0, err
		}
		if len(opt.Merge) > 0 {
			return 0, errors.New("a run is either a shard or a merge of shards, not both")
		}
		cfg.Shard = opt.Shard.String()
	}
	if len(opt.Merge) == 0 {
		return 0, nil
	}
	tm := time.Now()
	if err := checkShards(opt.Merge, cfg); err != nil {
		return 0, err
	}
	return time.Since(tm), nil
}
