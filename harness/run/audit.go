package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/predictions"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/harness/report"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// ErrNoVideo refuses the frame and order levels in a run without a video
// root or without models.
var ErrNoVideo = errors.New("the frame and order levels need a video root (--videos) and models (--models)")

// ErrReferenceModel refuses --reference-model without a video root and a
// vlm_reader, or together with a reference file.
var ErrReferenceModel = errors.New("--reference-model needs a video root (--videos) and a models directory with a vlm_reader role (--models), and no --reference file")

// hasVideoLevel reports whether levels include frame or order.
func hasVideoLevel(levels []harness.Level) bool {
	return slices.Contains(levels, harness.LevelFrame) || slices.Contains(levels, harness.LevelOrder)
}

// Options configures an audit.
type Options struct {
	// Items names the item files (JSONL or Parquet), read in this order.
	Items []string
	// FS, when set, is where Items are opened (the embedded default);
	// otherwise they are paths on disk.
	FS fs.FS
	// Out is the run directory.
	Out string
	// Levels selects the attackers (option, text and pool by default).
	Levels []harness.Level
	// Reference is an optional file of a reference model's answers, in any
	// layout package predictions reads.
	Reference string
	// IndexBase says how a reply that is only a digit is read in
	// Reference and Models (--index-base): 0 or 1; nil when the user did
	// not say, and such a reply is then refused, naming both readings.
	IndexBase *int
	// ReferenceModel, instead of Reference, has vlm_reader (Video.VLM)
	// answer every item on the full protocol to give s* (referenceStage).
	ReferenceModel bool
	// Models are evaluated models' predictions files, whose residuals
	// s - c - eps go on the cards.
	Models []ModelFile
	// Seed seeds the prequential orders, the attackers' guesses and the
	// bootstrap.
	Seed uint64
	// Workers is the number of units of work run at once (GOMAXPROCS when
	// 0); outputs do not depend on it.
	Workers int
	// Joiner and Searcher run the run's searches: the attackers' copy
	// joins and top-k (attack.Config), the near-duplicate join and the
	// perceptual video identity's. Nil means the CPU kernels; a GPU's
	// backend (kernels/cuda) finds the same pairs and neighbours, so the
	// outputs do not depend on them.
	Joiner   kernels.Joiner
	Searcher kernels.NeighbourSearcher
	// VideoRoot is the directory items' videos are resolved under
	// (harness.ResolveVideo): video_path, else video. A video outside it,
	// missing or undecodable fails only its items.
	VideoRoot string
	// Benchmarks, when set, audits only the items of these benchmarks;
	// Limit, when above 0, only the first Limit items of each.
	Benchmarks []string
	Limit      int
	// Progress reports each stage (bars on a terminal, log lines
	// elsewhere); nil keeps the run quiet.
	Progress *progress.Reporter
	// Video holds the models of the frame and order levels; nil when the
	// run has none (those levels then cannot be selected).
	Video *VideoModels
	// Frames is the number of uniform frames the frame and order attackers
	// read (captions, the shuffled and the tenth readers, the mean frame of
	// the effective size); 0 means the 32 of Video-Index.
	Frames int
	// CrossPool runs the cross-pool variants of the copy and k-NN attackers
	// (attack.Config.CrossPool), reported beside, in no level's eps.
	CrossPool bool
	// Permutations is how many seeded permutations of each item's options
	// the model readers' option-permutation audit scores: 0 means the 8 of
	// Video-Index, a negative count none (attack.Config.Permutations).
	Permutations int
	// Reader is the lm_reader role (nil without one): the options-only,
	// blind and captions readers ask it. ReaderName names its weights.
	Reader     attack.LetterReader
	ReaderName string
	// ExtraReaders are the later lm_reader entries of models.json, each
	// running the blind test as a further diagnostic model (blind-reader#2,
	// ...; attack.Config.Extra); ExtraReaderNames name their weights, in
	// the same order. Used only with Reader.
	ExtraReaders     []attack.LetterReader
	ExtraReaderNames []string
	// Served, when set, says how each served role's answers were read so
	// far (its mode and form; "" for a role not yet asked). The run keeps
	// what it says in its cache folder (servedmodes.go), so the cards of a
	// resumed run that asked a role nothing still name its mode.
	Served func() []metrics.ServedReader
	// Embedder embeds item texts; nil means a textembed.Lexical of the
	// default width fitted on each benchmark's own question+options texts.
	Embedder textembed.TextEmbedder
	// Confirm, when set, is a second embedder that confirms the
	// near-duplicate pairs Embedder finds (001: "a question cosine
	// similarity of at least 0.9 under BGE-large, confirmed with MPNet"): a
	// pair is kept only when the cosine of its questions under Confirm is
	// also at or above the threshold.
	Confirm textembed.TextEmbedder
	// Sample, when positive, audits at most that many items per benchmark,
	// drawn by harness.Sample (Video-Index 3.1: n = 300, stratified by
	// subtask, every item of smaller benchmarks); 0 audits every item.
	Sample int
	// Shard, when set, makes this run one shard of a split audit: it reads
	// and checks every item as the whole audit does, runs the feature stage
	// on the items whose videos fall in the shard (VideoShard), and writes
	// rundir.ShardFile; config.json names the shard, so the shard resumes like any
	// run and no other run's directory is taken for it.
	Shard *Shard
	// Spec is kept in a shard's ShardFile for merge (ShardSummary.Spec):
	// the Spec the run was opened from, as Spec.ShardSpec gives it.
	Spec *Spec
	// Merge names the run directories of the shards 0..N-1 of this very
	// audit: their caches seed this run's, so its feature stage decodes
	// nothing they hold, and the run then goes on as an unsharded one, with
	// byte-identical outputs. Shards of another configuration are refused
	// with a *ShardError before anything is written.
	Merge []string
	// recordBatch, when above 0, is how many records a unit appends at
	// once instead of recordBatch (tests cut small units into batches).
	recordBatch int
}

// A ModelFile names an evaluated model's predictions file.
type ModelFile struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// A Result summarises a finished audit.
type Result struct {
	Dir   string
	Items int
	Cards []metrics.Card
	// Matches says, for the reference and then each model file, how its
	// rows were matched to the items (unmatched, ambiguous, unparsed rows).
	Matches []*predictions.Report
	// Resumed is true when Dir held an earlier run of the same
	// configuration; UnitsStored of Units were then already complete, and
	// DroppedBytes of torn records were cut from the record file.
	Resumed bool
	Units   int
	// Extended is true when Dir held a finished or partial run that this
	// configuration only adds to (more benchmarks, levels or models; see
	// extendsConfig): its records were kept and only the new work done.
	Extended     bool
	UnitsStored  int
	DroppedBytes int64
	// Attackers holds, per attacker, the time this process spent answering
	// (zero when every variant was stored).
	Attackers []AttackerTime
	// Stages holds the wall time of each stage of this process, in order:
	// read, records (reading what is stored), embed (reading the cache on a
	// hit), features (when a video level ran), attack, duplicates, cards,
	// write.
	Stages []Stage
	// Sampled is the number of items read before --sample drew Items of
	// them (equal to Items without a sample).
	Sampled int
	// Features counts the feature stage's work; nil when no video level ran.
	Features *features.Stats
	// Shard is what a shard run wrote to its rundir.ShardFile (nil otherwise); a
	// shard has no cards.
	Shard *ShardSummary
	// Seeded is the number of cache files a merge took from its shards.
	Seeded int
	// Outputs names the files the run wrote that its completion record
	// (harness/completion) covers, config.json first.
	Outputs []string
	// CacheDamaged describes each cache file whose bytes disagreed with
	// its checksum, which this process computed again (run.json counts
	// them).
	CacheDamaged []string
}

// A Stage is the wall time of one stage of an audit.
type Stage struct {
	Name string
	Time time.Duration
}

// AttackerTime is what one attacker cost in this process.
type AttackerTime struct {
	Name     string
	Level    harness.Level
	Variants int // variants computed here
	Items    int // items answered here (items x variants)
	Time     time.Duration
}

// Audit runs the attackers of opt.Levels over the items, storing every
// prediction in opt.Out as it is produced, then computes the near-duplicates
// and the cards and writes the reports. Started again on the same directory
// with the same configuration, it reads what is stored, computes only the
// rest, and writes outputs byte-identical to those of an uninterrupted run.
//
// Items and the reference are read and checked before anything is written: a
// bad input returns its *harness.ParseError and leaves opt.Out untouched. A
// directory holding another configuration's run is refused with a
// *rundir.ConfigMismatchError. When ctx is cancelled, units in flight stop, what is
// stored stays stored, and Audit returns the context's error.
func Audit(ctx context.Context, opt Options) (*Result, error) {
	if opt.Out == "" {
		return nil, errors.New("no run directory given")
	}
	if len(opt.Items) == 0 {
		return nil, errors.New("no item files given")
	}
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
		return nil, ErrNoVideo
	}
	if opt.ReferenceModel && (opt.Video == nil || opt.Video.VLM == nil || opt.VideoRoot == "" || opt.Reference != "") {
		return nil, ErrReferenceModel
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

	t0 := time.Now()
	started := t0
	rm := newMeter(opt.Progress, int64(len(opt.Items)), "read", "files")
	// Videos are resolved per item by the feature stage, so that a bad path
	// fails that item only; the reader does not check them.
	items, digests, err := harness.ReadFSDigests(ctx, opt.FS, opt.Items, harness.ReadOptions{Benchmarks: opt.Benchmarks, Limit: opt.Limit})
	if err != nil {
		rm.exit()
		return nil, err
	}
	rm.add(len(opt.Items))
	rm.finish()
	if len(items) == 0 {
		return nil, &harness.ParseError{File: strings.Join(opt.Items, ", "), Err: harness.ErrNoItems}
	}
	if opt.Sample < 0 {
		return nil, fmt.Errorf("sample size %d: want 0 (every item) or more", opt.Sample)
	}
	// The reference is checked against every item read: it may answer items
	// the sample leaves out.
	var ref map[string]int
	var matches []*predictions.Report
	if opt.Reference != "" {
		var rep *predictions.Report
		if err := regularInput(opt.Reference); err != nil {
			return nil, err
		}
		if ref, rep, err = predictions.Load(ctx, opt.Reference, items, indexBase(opt.IndexBase)); err != nil {
			return nil, err
		}
		matches = append(matches, rep)
	}
	var models []metrics.EvaluatedModel
	for _, mf := range opt.Models {
		if err := regularInput(mf.Path); err != nil {
			return nil, err
		}
		answers, rep, err := predictions.Load(ctx, mf.Path, items, indexBase(opt.IndexBase))
		if err != nil {
			return nil, err
		}
		matches = append(matches, rep)
		models = append(models, metrics.EvaluatedModel{Name: mf.Name, Answers: answers})
	}
	read := len(items)
	// The sample keeps one item per near-duplicate group, by the audit's
	// own text embedder (blog 001; harness.Sample).
	items, samples, err := harness.Sample(ctx, items, opt.Sample, opt.Seed, sampleEmbedder(items, opt.Embedder))
	if err != nil {
		return nil, err
	}
	for _, si := range samples {
		opt.Progress.Note("sample", "benchmark", si.Benchmark, "items", si.N, "of", si.Of, "near_duplicates", si.Duplicates, "replaced", si.Refilled)
	}

	emb := opt.Embedder
	lexical := emb == nil
	if lexical {
		emb = textembed.NewLexical(0)
	}
	root, err := canonicalRoot(opt.VideoRoot)
	if err != nil {
		return nil, err
	}
	cfg := rundir.Config{
		Format: rundir.FormatVersion, VideoRoot: root, Seed: opt.Seed, Sample: opt.Sample, Embedder: emb.Name(),
		Attack: acfg, Duplicates: dups.DefaultThreshold, DuplicateText: "question", Bootstrap: metrics.DefaultConfig(acfg).BootstrapReps,
		Benchmarks: opt.Benchmarks, Limit: opt.Limit, BenchmarkItems: benchmarkItems(items),
	}
	if opt.Sample > 0 {
		cfg.SampleRule = harness.SampleRule
	}
	if lexical {
		cfg.Embedder += " (IDF fitted on each benchmark's own texts)"
	}
	if opt.Confirm != nil {
		cfg.Confirm = opt.Confirm.Name()
	}
	cfg.LMReader = opt.ReaderName
	if opt.Reader != nil && len(opt.ExtraReaders) > 0 {
		cfg.LMReaderExtra = opt.ExtraReaderNames
	}
	cfg.AttackerVersions = map[string]string{}
	for _, at := range attack.Attackers(acfg) {
		cfg.AttackerVersions[at.Name()] = attack.Version(at)
	}
	if needs := needsOf(attack.Attackers(acfg)); needs != 0 {
		v := opt.Video
		cfg.Videos = &rundir.VideoConfig{ImageText: v.ImageName, Prep: imageprep.Version, Size: opt.decodeSize(needs).String(), Frames: opt.frames()}
		if needs.Has(attack.NeedCaptions) {
			cfg.Videos.Captioner = v.CaptionerName
		}
		if needs.Has(attack.NeedTranscript) {
			cfg.Videos.ASR = v.ASRName
		}
		for _, s := range frameSets(needs, opt.frames()) {
			cfg.Videos.Sets = append(cfg.Videos.Sets, s.Name+"="+s.Sampler.String())
		}
		if sets := opt.allVLMSets(needs); len(sets) > 0 {
			cfg.Videos.VLMReader = v.VLMName
			for _, s := range sets {
				cfg.Videos.VLMSets = append(cfg.Videos.VLMSets, s.String())
			}
		}
		cfg.Videos.VLMExtra = opt.extraVLMConfig(needs)
		if sets := opt.screenSets(needs); len(sets) > 0 {
			cfg.Videos.ScreenReader = v.ScreenName
			for _, s := range sets {
				cfg.Videos.ScreenSets = append(cfg.Videos.ScreenSets, s.String()+"@"+opt.screenDecodeSize(needs).String())
			}
		}
	}
	if opt.ReferenceModel {
		cfg.ReferenceModel = &rundir.ReferenceModelConfig{VLMReader: opt.Video.VLMName, Frames: ReferenceFrames, ProbeFrames: ProbeFrames,
			LongVideoSeconds: LongVideoSeconds, Delta: ReferenceDelta, DecodeSize: opt.decodeSize(needsOf(attack.Attackers(acfg))).String()}
	}
	cfg.Attack.Threads = 0 // not part of the result
	// The inputs are fingerprinted by the bytes read above: a pipe or FIFO
	// is never opened twice.
	for _, d := range digests {
		cfg.Items = append(cfg.Items, inputOf(d))
	}
	if opt.Reference != "" {
		in, err := hashInput(opt.Reference)
		if err != nil {
			return nil, fmt.Errorf("hash reference: %w", err)
		}
		cfg.Reference = &in
	}
	for _, mf := range opt.Models {
		in, err := hashInput(mf.Path)
		if err != nil {
			return nil, fmt.Errorf("hash predictions of %s: %w", mf.Name, err)
		}
		cfg.Models = append(cfg.Models, rundir.ModelInput{Model: mf.Name, Input: in})
	}

	if opt.Shard != nil {
		if err := opt.Shard.check(); err != nil {
			return nil, err
		}
		if len(opt.Merge) > 0 {
			return nil, errors.New("a run is either a shard or a merge of shards, not both")
		}
		cfg.Shard = opt.Shard.String()
	}
	var mergeTime time.Duration
	if len(opt.Merge) > 0 {
		tm := time.Now()
		if err := checkShards(opt.Merge, &cfg); err != nil {
			return nil, err
		}
		mergeTime = time.Since(tm)
	}

	unlock, err := rundir.Lock(opt.Out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	resumed, err := rundir.Claim(opt.Out, &cfg)
	var mismatch *rundir.ConfigMismatchError
	extended := false
	if errors.As(err, &mismatch) && mismatch.Format == "" {
		if extended, err = extendDir(opt.Out, &cfg, mismatch); extended {
			resumed = true
			opt.Progress.Note("extending the run: only the new benchmarks and attackers, and the answers that read a changed video model, are computed", "dir", opt.Out)
		} else if err == nil {
			err = mismatch
		}
	}
	if err != nil {
		if errors.Is(err, rundir.ErrNotRunDir) {
			os.Remove(filepath.Join(opt.Out, rundir.LockFile))
		}
		return nil, err
	}
	removeTemps(opt.Out)
	removeTemps(filepath.Join(opt.Out, rundir.CacheDir))
	// From here the outputs may change: readers refuse the directory until
	// the record is written again, last.
	if err := completion.Remove(opt.Out); err != nil {
		return nil, err
	}

	a := &audit{opt: opt, cfg: cfg, samples: samples, items: items, acfg: acfg, workers: workers, models: models,
		res: &Result{Dir: opt.Out, Items: len(items), Sampled: read, Resumed: resumed, Extended: extended, Matches: matches}}
	a.attackers = attack.Attackers(acfg)
	if opt.Embedder != nil || opt.Video != nil || opt.Reader != nil { // a models directory was given
		for _, line := range attack.Skipped(acfg) {
			opt.Progress.Note(line)
		}
	}
	a.stage("read", t0)
	if opt.Shard != nil {
		return a.shardRun(ctx, started)
	}
	if len(opt.Merge) > 0 {
		tm := time.Now()
		if a.res.Seeded, err = seedCache(opt.Out, opt.Merge); err != nil {
			return nil, err
		}
		opt.Progress.Note("merge: cache seeded from the shards", "shards", len(opt.Merge), "files", a.res.Seeded)
		// The check of the shards and the seeding of the cache.
		a.res.Stages = append(a.res.Stages, Stage{"merge", mergeTime + time.Since(tm)})
	}
	t0 = time.Now()
	if err := a.loadRecords(); err != nil {
		return nil, err
	}
	a.stage("records", t0)
	defer a.store.Close()
	t0 = time.Now()
	err = a.embed(ctx, emb, lexical)
	defer a.text.close()
	defer a.question.close()
	if err != nil {
		return nil, err
	}
	a.stage("embed", t0)
	t0 = time.Now()
	if err := a.videoStage(ctx, emb); err != nil {
		return nil, err
	}
	if _, err := a.servedModes(); err != nil { // the VLM readers' and captioner's, before the units
		return nil, err
	}
	a.dropStale()
	if a.features != nil {
		a.stage("features", t0)
		a.res.Features = a.features
		if len(opt.Merge) > 0 && a.features.Computed > 0 {
			opt.Progress.Note("merge: the shards lacked the features of some videos, computed here", "videos", a.features.Computed)
		}
	}
	var refSource map[string]*metrics.ReferenceSource
	if opt.ReferenceModel {
		if ref, refSource, err = a.referenceStage(ctx); err != nil {
			return nil, err
		}
	}
	a.refSource = refSource
	t0 = time.Now()
	a.orders = attack.Orders(items, opt.Seed, max(acfg.Orders, 1))
	a.folds = attack.Folds(items, opt.Seed)
	a.index = newOrderIndex(items, a.orders)
	if err := a.attack(ctx); err != nil {
		return nil, err
	}
	a.stage("attack", t0)
	if err := a.finish(ctx, ref); err != nil {
		return nil, err
	}
	if err := a.writeRunJSON(started); err != nil {
		return nil, err
	}
	if err := writeStages(opt.Out, a.res); err != nil {
		return nil, err
	}
	if err := completion.Write(opt.Out, harness.Version, a.res.Outputs); err != nil {
		return nil, err
	}
	return a.res, nil
}

func (a *audit) stage(name string, since time.Time) {
	a.res.Stages = append(a.res.Stages, Stage{name, time.Since(since)})
}

// audit is the state of one Audit call.
type audit struct {
	opt       Options
	cfg       rundir.Config
	samples   []harness.SampleInfo
	items     []*harness.Item
	acfg      attack.Config
	workers   int
	attackers []attack.Attacker
	orders    [][]int32
	index     *orderIndex // where each item sits in each order
	folds     []int       // attack.Folds: the fold of each item
	text      *embedRows  // question+options, one row per item, on disk
	question  *embedRows  // question alone, one row per item, on disk
	store     *rundir.Store
	units     []*unit
	res       *Result
	models    []metrics.EvaluatedModel
	// visual holds what the feature stage made of each item's video (nil
	// when no video level ran), and failures why an item failed: its video
	// gave no features, or a model gave a non-finite embedding of one of its
	// texts ("" when neither; nil when no item failed).
	visual   []*attack.Visual
	failures []string
	// inputs names what the frame attackers read of each item's video
	// (rundir.Record.Input: its SHA-256's first 16 hex digits; "" when it could
	// not be read, or no video level ran).
	inputs []string
	// videoContent holds each item's video content hash (the SHA-256 the
	// feature extraction computes; "" where the file was not read); nil
	// when no video was read. Shared videos are counted by it (Video-Index
	// 4.5; dups.VideoIdentity).
	videoContent []string
	// videoIdentity is each item's video identity (videoidentity.go) and
	// videosBy what made it (dups.VideosByContent or VideosByPerceptual);
	// nil when no video was read.
	videoIdentity []string
	videosBy      string
	// xpool is the run's cross-pool store (every item with its text and
	// question rows), built on the first cross-pool unit (crossPool).
	xpool struct {
		once sync.Once
		pool *attack.Pool
		err  error
	}
	features *features.Stats
	// serverFailed holds the items a served reader's server failed on
	// while the attackers ran (serverfail.go).
	serverFailed serverFailures
	// served guards what the run knows of its served readers' modes
	// (servedmodes.go).
	served servedModes
	// meanFrames and questionTE are the v_i and t_i of the effective size:
	// the unit mean embedding of each item's uniform frames (nil when its
	// video failed) and the text_embed embedding of its question (nil
	// without a text_embed model).
	meanFrames [][]float32
	questionTE *kernels.Matrix
	// decodedSeconds is the duration of each item's decoded video (0 when
	// it failed or no video level ran); refSource what each card says of a
	// reference computed by --reference-model.
	decodedSeconds []float64
	refSource      map[string]*metrics.ReferenceSource
	// refScores are vlm_reader's letter scores of each item on the full
	// protocol (nil without --reference-model, or where it gave none).
	refScores [][]float64
	// diagnostics are each benchmark's halves and shifted grids (nil
	// unless the order level's VLM readers ran).
	diagnostics map[string]*metrics.OrderDiagnostics
	damagedMu   sync.Mutex // guards res.CacheDamaged
}

// A unit is one attacker on one variant: the work of one Attack call, whose
// predictions (one per item) are stored as they are produced.
type unit struct {
	attacker int // index into audit.attackers
	variant  int
	ans      *answers // by item index
	stored   int
	// frames is true when the attacker reads the video: its answers hold
	// and store what they read of it (rundir.Record.Input), and the answer of an
	// item whose video failed is not stored (a failure is not a result:
	// the next run tries the video again).
	frames bool
}

func (a *audit) unitOf(name string, variant int) (*unit, bool) {
	for _, u := range a.units {
		if a.attackers[u.attacker].Name() == name && u.variant == variant {
			return u, true
		}
	}
	return nil, false
}

// loadRecords opens the record file and files every stored prediction under
// its unit.
func (a *audit) loadRecords() error {
	for i, at := range a.attackers {
		for v := 0; v < attack.Variants(at, a.acfg); v++ {
			u := &unit{attacker: i, variant: v, ans: newAnswers(len(a.items)), frames: attack.FrameNeeds(at) != 0}
			if u.frames {
				u.ans.input = make([]uint64, len(a.items))
			}
			a.units = append(a.units, u)
		}
	}
	index := make(map[string]int, len(a.items))
	for i, it := range a.items {
		index[it.Key()] = i
	}
	type uk struct {
		name    string
		variant int
	}
	byKey := map[uk]*unit{}
	for _, u := range a.units {
		byKey[uk{a.attackers[u.attacker].Name(), u.variant}] = u
	}
	s, dropped, err := rundir.OpenStore(filepath.Join(a.opt.Out, rundir.RecordsFile), func(r rundir.Record) error {
		u, ok := byKey[uk{r.Attacker, r.Variant}]
		i, ok2 := index[r.Key]
		if !ok || !ok2 {
			return fmt.Errorf("record of %s variant %d for item %q matches nothing in this run's configuration", r.Attacker, r.Variant, r.Key)
		}
		if !u.ans.has(int32(i)) {
			u.stored++
		}
		u.ans.put(int32(i), a.items[i], r.Pred)
		if u.ans.input != nil {
			u.ans.input[i] = inputID(r.Input)
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.store = s
	a.res.DroppedBytes = dropped
	return nil
}

// attack runs every unit not yet complete on a.workers goroutines.
func (a *audit) attack(ctx context.Context) error {
	n := len(a.items)
	var todo []*unit
	done := 0
	for _, u := range a.units {
		done += u.stored
		if u.stored < n {
			todo = append(todo, u)
		}
	}
	a.res.Units = len(a.units)
	a.res.UnitsStored = len(a.units) - len(todo)
	times := make([]AttackerTime, len(a.attackers))
	for i, at := range a.attackers {
		times[i] = AttackerTime{Name: at.Name(), Level: at.Level()}
	}
	defer func() { a.res.Attackers = times }()
	if done > 0 || a.res.Resumed {
		a.opt.Progress.Note("resuming: found stored predictions", "dir", a.opt.Out,
			"units_stored", a.res.UnitsStored, "units_left", len(todo), "units", len(a.units),
			"predictions_stored", done, "predictions_left", n*len(a.units)-done, "torn_bytes_dropped", a.res.DroppedBytes)
	}
	if len(todo) == 0 {
		return nil
	}
	// Units that search embeddings (copy, k-NN, regression) take far longer
	// than the rest: start them first, so that no worker is left with a long
	// unit at the end while the other idles. Outputs do not depend on it.
	heavy := func(u *unit) bool {
		at := a.attackers[u.attacker]
		return attack.NeedsText(at) || attack.NeedsQuestion(at)
	}
	slices.SortStableFunc(todo, func(x, y *unit) int {
		switch hx, hy := heavy(x), heavy(y); {
		case hx && !hy:
			return -1
		case hy && !hx:
			return 1
		}
		return 0
	})
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
	for _, u := range todo {
		if at := a.attackers[u.attacker]; heavy(u) || perBenchmark(at) {
			heavyUnits = append(heavyUnits, u)
		} else {
			light = append(light, u)
		}
	}
	groups := [][]*unit{}
	var chunks []chunk
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
	for _, u := range todo {
		times[u.attacker].Variants++
	}
	m.finish()
	return nil
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

// complete says whether u has a stored prediction for every item of items.
func (u *unit) complete(items []int32) bool {
	for _, i := range items {
		if !u.ans.has(i) {
			return false
		}
	}
	return true
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
		if u.ans.has(i) && !u.ans.same(i, it, pr) {
			return 0, fmt.Errorf("attacker %s, variant %d: item %s: stored prediction %+v differs from the recomputed %+v: the attacker is not deterministic", at.Name(), u.variant, it.Source, u.ans.held(i), pr)
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
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
		return 0, err
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
		rec := rundir.Record{Key: a.items[i].Key(), Attacker: at.Name(), Variant: u.variant, Position: position, Pred: preds[p]}
		if u.frames {
			if a.failures != nil && a.failures[i] != "" {
				continue // answered (an abstention) for the cards, not kept
			}
			rec.Input = a.inputs[i]
		}
		recs = append(recs, rec)
		if len(recs) == batch {
			if err := a.store.Append(recs); err != nil {
				return 0, err
			}
			recs = recs[:0]
		}
	}
	if err := a.store.Append(recs); err != nil {
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

// finish turns the stored predictions into outcomes, finds the
// near-duplicates, computes the cards and writes the reports.
func (a *audit) finish(ctx context.Context, ref map[string]int) error {
	// The units' compact predictions stay until the cards, which read
	// them one benchmark at a time (outcomes).
	threads := a.opt.kernelOptions()
	t0 := time.Now()
	dm := newMeter(a.opt.Progress, int64(len(a.items)), "duplicates", "items")
	// Near-duplicates are pairs of items whose questions alone are close
	// (001: "question cosine >= 0.9, confirmed with MPNet").
	dup, err := dups.FindRows(ctx, a.items, a.question, dups.DefaultThreshold, threads)
	if err != nil {
		dm.exit()
		return err
	}
	dm.add(len(a.items))
	dm.finish()
	if a.videoIdentity != nil {
		dup.SharedVideos(a.items, a.videoIdentity, a.videosBy)
	}
	if a.opt.Confirm != nil {
		if dup, err = a.confirm(ctx, dup); err != nil {
			return err
		}
	}
	a.stage("duplicates", t0)
	t0 = time.Now()
	mcfg := metrics.DefaultConfig(a.acfg)
	mcfg.Seed = a.opt.Seed
	mcfg.Threads = threads.Threads
	cm := newMeter(a.opt.Progress, int64(len(a.items)), "cards", "items")
	mcfg.Embedder = a.cfg.Embedder
	a.serverFailed.into(a)
	mcfg.Failures = a.failures
	for _, si := range a.samples {
		if mcfg.Samples == nil {
			mcfg.Samples = map[string]metrics.Sample{}
		}
		mcfg.Samples[si.Benchmark] = metrics.Sample{Of: si.Of, Method: si.Method, Duplicates: si.Duplicates, Replaced: si.Refilled}
	}
	cards, scores, err := metrics.CardsByBenchmark(ctx, a.items, a.outcomes(), metrics.Reference(ref), dup, mcfg)
	if err != nil {
		cm.exit()
		return fmt.Errorf("cards: %w", err)
	}
	for _, u := range a.units {
		u.ans = nil
	}
	metrics.WithModels(cards, a.items, a.models)
	served, err := a.servedModes()
	if err != nil {
		cm.exit()
		return err
	}
	metrics.WithServed(cards, served)
	if a.failures != nil {
		metrics.CountFailures(cards, a.items, a.failures)
	}
	if a.meanFrames != nil && a.questionTE != nil {
		eff, err := effectiveSizes(ctx, a.items, a.meanFrames, a.questionTE, a.opt.Seed, threads.Threads)
		if err != nil {
			cm.exit()
			return fmt.Errorf("effective size: %w", err)
		}
		for k := range cards {
			cards[k].EffectiveSize = eff[cards[k].Benchmark]
		}
	}
	perms, further, err := a.permutations(ctx)
	if err != nil {
		cm.exit()
		return err
	}
	for _, at := range a.attackers {
		if f, ok := further[at.Name()]; ok {
			if err := metrics.SolvedOverOrders(cards, a.items, scores, at.Name(), f.choices, f.margins); err != nil {
				cm.exit()
				return err
			}
		}
	}
	for k := range cards {
		cards[k].Permutation = perms[cards[k].Benchmark]
		cards[k].ReferenceSource = a.refSource[cards[k].Benchmark]
		cards[k].OrderDiagnostics = a.diagnostics[cards[k].Benchmark]
	}
	cm.add(len(a.items))
	cm.finish()
	a.stage("cards", t0)
	t0 = time.Now()
	cols := make([]report.Attacker, len(a.attackers))
	for i, at := range a.attackers {
		cols[i] = report.Attacker{Name: at.Name(), Level: at.Level()}
	}
	config, err := rundir.EncodeConfig(&a.cfg)
	if err != nil {
		return err
	}
	rep := &report.Report{Version: harness.Version, Config: config, Items: a.items, Attackers: cols, Cards: cards, Scores: scores, Duplicates: dup, Failures: a.failures, VideoSHA256: a.videoContent, VideoIdentity: a.videoIdentity}
	outs := []output{
		{rundir.CardsJSON, rep.WriteCardsJSON},
		{rundir.CardsMarkdown, rep.WriteMarkdown},
		{rundir.IndexHTML, rep.WriteHTML},
		{rundir.ItemsParquet, rep.WriteItemsParquet},
		{rundir.DuplicatesFile, rep.WriteDuplicatesParquet},
	}
	outs = append(outs, a.embeddingOutputs()...)
	wm := newMeter(a.opt.Progress, int64(len(outs)), "write", "files")
	a.res.Outputs = []string{rundir.ConfigFile}
	for _, out := range outs {
		if err := atomicfile.Write(filepath.Join(a.opt.Out, out.name), out.write); err != nil {
			wm.exit()
			return err
		}
		a.res.Outputs = append(a.res.Outputs, out.name)
		wm.add(1)
	}
	wm.finish()
	a.stage("write", t0)
	a.res.Cards = cards
	return nil
}

// outcomes yields the outcomes of a benchmark's items from the units'
// predictions: per unit, in the order of the members, each with its
// position in the unit's order and whether that position is scored.
func (a *audit) outcomes() metrics.BenchmarkOutcomes {
	return func(members []int, yield func(metrics.Outcome) error) error {
		for _, u := range a.units {
			at := a.attackers[u.attacker]
			name, level, where := at.Name(), at.Level(), a.index.where[u.variant%len(a.orders)]
			for _, i := range members {
				o := metrics.Outcome{Item: i, Attacker: name, Level: level, Variant: u.variant, Position: int(where[i]),
					Scored: attack.Scored(at, a.folds[i], u.variant)}
				u.ans.fill(int32(i), &o)
				if err := yield(o); err != nil {
					return err
				}
			}
		}
		return nil
	}
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

// removeTemps deletes the temporary files an interrupted atomic write left.
func removeTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// runInfo is the content of run.json: what this process did and how long it
// took. It is rewritten by every run, resumed or not, and is the one output
// whose bytes differ between two runs of the same configuration.
type runInfo struct {
	Vidscreen string         `json:"vidscreen"`
	Commit    string         `json:"commit"`
	Started   time.Time      `json:"started"`
	Host      string         `json:"host"`
	Workers   int            `json:"workers"`
	Resumed   bool           `json:"resumed"`
	Units     int            `json:"units"`
	Stored    int            `json:"units_stored"`
	Dropped   int64          `json:"dropped_bytes"`
	Damaged   int            `json:"cache_files_damaged"` // checksums that disagreed: computed again
	Stages    []stageJSON    `json:"stages"`
	Attackers []attackerJSON `json:"attackers"`
}

type stageJSON struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

type attackerJSON struct {
	Name     string  `json:"name"`
	Level    string  `json:"level"`
	Variants int     `json:"variants"`
	Items    int     `json:"items"`
	Seconds  float64 `json:"seconds"`
}

// writeRunJSON writes run.json.
func (a *audit) writeRunJSON(started time.Time) error {
	host, _ := os.Hostname()
	info := runInfo{Vidscreen: harness.Version, Commit: harness.Commit(), Started: started.UTC().Round(time.Second), Host: host,
		Workers: a.workers, Resumed: a.res.Resumed, Units: a.res.Units, Stored: a.res.UnitsStored, Dropped: a.res.DroppedBytes, Damaged: len(a.res.CacheDamaged)}
	for _, s := range a.res.Stages {
		info.Stages = append(info.Stages, stageJSON{s.Name, s.Time.Seconds()})
	}
	for _, t := range a.res.Attackers {
		info.Attackers = append(info.Attackers, attackerJSON{t.Name, t.Level.String(), t.Variants, t.Items, t.Time.Seconds()})
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(a.opt.Out, rundir.RunJSON), func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
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

// indexBase is the reading of digit replies the user chose, for
// predictions.Load.
func indexBase(b *int) items.Options {
	if b == nil {
		return items.NoOptions()
	}
	return items.Options{IndexBase: *b}
}
