package run

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/predictions"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

// ErrNoVideo refuses the frame and order levels in a run without a video
// root or without models.
var ErrNoVideo = errors.New("the frame and order levels need a video root (--videos) and models (--models)")

// ErrReferenceModel refuses --reference-model without a video root and a
// vlm_reader, or together with a reference file.
var ErrReferenceModel = errors.New("--reference-model needs a video root (--videos) and a models directory with a vlm_reader role (--models), and no --reference file")

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
	// VerifyAnswers runs the answer-verification stage (verifyAnswers):
	// vlm_reader judges each item's marked answer at 32 frames, then at
	// 512 where it disagrees; its verdicts go to answercheck.FileName and
	// the cards.
	VerifyAnswers bool
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
	// Prompts names the wording the readers asked in (Models.Prompts),
	// for config.json.
	Prompts string
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
	// KeepYesNo audits the items whose options are a bare yes/no pair
	// (harness.IsYesNo) as two-option questions; by default they are set
	// aside before the audit, counted on their benchmark's card, as the
	// Video-Index authors keep them out of every statistic (audit/chance.py
	// is_mcq_item) and of the pool (pool/schema.py, format_yesno).
	KeepYesNo bool
	// NoDedup turns off the duplicate rule that runs before every audit
	// (harness.Sample with every item, harness.DedupRule; paper 002, 3.1).
	NoDedup bool
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
	// StageNotes, when set, is asked once, as the run writes
	// rundir.StagesFile, for keys to write beside the stages: what only
	// the caller knows of the run (Job: the served roles' counts, the
	// frame path taken).
	StageNotes func(res *Result) map[string]any
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
	// read (the plan and the claim), merge (a merge of shards), records
	// (reading what is stored), embed (reading the cache on a hit),
	// features (when a video level ran), reference (a reference model's),
	// attack, duplicates, cards, write; a shard's are read and features.
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
//
// Audit runs named stages, each in its own file: plan (plan.go) reads and
// checks the inputs and builds the configuration; claim (claim.go) takes
// the directory; a shard then runs only its feature stage (shard.go); a
// merge seeds the cache from its shards (merge.go); records (records.go)
// loads what is stored; embed (embeddings.go) embeds the texts; the
// feature stage (featurestage.go) reads the videos; reference
// (reference.go) computes a reference model's answers; attack (attack.go)
// runs every unit; duplicates (duplicates.go) and cards (cards.go) compute
// the near-duplicates and the cards; reports (reports.go) writes the
// reports, run.json, stages.json and, last, the completion record.
func Audit(ctx context.Context, opt Options) (*Result, error) {
	p, err := planAudit(ctx, opt)
	if err != nil {
		return nil, err
	}
	c, err := claimDir(opt, &p.cfg)
	if err != nil {
		return nil, err
	}
	defer c.unlock()
	a := newAudit(opt, p, c)
	defer a.close()
	a.stage("read", p.started) // the plan and the claim
	if opt.Shard != nil {
		return a.shardRun(ctx, p)
	}
	if err := a.seedFromShards(p.mergeTime); err != nil {
		return nil, err
	}
	if err := a.loadRecords(); err != nil {
		return nil, err
	}
	if err := a.importShardRecords(); err != nil {
		return nil, err
	}
	if err := a.embed(ctx, p.emb, p.lexical); err != nil {
		return nil, err
	}
	if err := a.featureStage(ctx, p.emb); err != nil {
		return nil, err
	}
	ref, err := a.referenceStage(ctx, p.ref)
	if err != nil {
		return nil, err
	}
	if err := a.verifyAnswers(ctx, nil); err != nil {
		return nil, err
	}
	if err := a.secondReference(ctx, nil); err != nil {
		return nil, err
	}
	if err := a.attack(ctx); err != nil {
		return nil, err
	}
	dup, err := a.duplicates(ctx)
	if err != nil {
		return nil, err
	}
	cards, scores, err := a.cards(ctx, ref, dup)
	if err != nil {
		return nil, err
	}
	if err := a.writeReports(cards, scores, dup, p.started); err != nil {
		return nil, err
	}
	return a.res, nil
}
