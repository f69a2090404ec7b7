package run

import (
	"sync"
	"time"

	"github.com/vidscreen/vidscreen/harness/answercheck"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/kernels"
)

// audit is the state of one Audit call once its directory is claimed: what
// the stages after the claim read of one another, grouped by the stage that
// fills it.
type audit struct {
	// From the plan and claim stages (newAudit).
	opt       Options
	cfg       rundir.Config
	samples   []harness.SampleInfo
	aside     []harness.SetAside
	items     []*harness.Item
	acfg      attack.Config // its Cache is renewed per benchmark by the attack stage
	workers   int
	models    []metrics.EvaluatedModel
	attackers []attack.Attacker
	// res is the result, filled by every stage (res.Stages by a.stage).
	res *Result
	// prompts counts the lm_reader's scored prompts into the meter of the
	// stage asking them.
	prompts *promptCounter
	// split is, in a merge, each item's shard (shardOf).
	split struct {
		once sync.Once
		of   []int
	}

	// The records stage (loadRecords): one unit per attacker and variant,
	// holding its stored predictions, and the record file appended to.
	units []*unit
	store *rundir.Store

	// The embed stage (embed): question+options and question alone, one
	// row per item, on disk.
	text     *embedRows
	question *embedRows

	// The feature stage (featureStage; video.go), nil when no video level
	// ran. features counts its work.
	features *features.Stats
	// visual holds what the feature stage made of each item's video, and
	// failures why an item failed: its video gave no features, or a model
	// gave a non-finite embedding of one of its texts ("" when neither; nil
	// when no item failed). The embed stage, the confirmation of the
	// near-duplicates and the cards (the served readers' failures) fail
	// items too (fail).
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
	// meanFrames and questionTE are the v_i and t_i of the effective size:
	// the unit mean embedding of each item's uniform frames (nil when its
	// video failed) and the text_embed embedding of its question (nil
	// without a text_embed model).
	meanFrames [][]float32
	questionTE *kernels.Matrix
	// decodedSeconds is the duration of each item's decoded video (0 when
	// it failed or no video level ran).
	decodedSeconds []float64
	// refScores are vlm_reader's letter scores of each item on the full
	// protocol (nil without --reference-model, or where it gave none).
	refScores [][]float64
	// diagnostics are each benchmark's halves and shifted grids (nil
	// unless the order level's VLM readers ran).
	diagnostics map[string]*metrics.OrderDiagnostics

	// The reference stage (reference): what each card says of a reference
	// computed by --reference-model.
	refSource map[string]*metrics.ReferenceSource

	// The answer-verification stage (verifyanswers.go): its verdicts,
	// written to answercheck.FileName, and what each card says of it (nil
	// without --verify-answers).
	answerCheck  *answercheck.File
	answerChecks map[string]*metrics.AnswerCheck

	// The second reference (secondref.go): the second vlm_reader entry's
	// answers at 32 frames by item key, its name, or why it could not run.
	secondRef      map[string]int
	secondRefModel string
	secondRefNote  string

	// The attack stage (attack): the seeded orders, where each item sits in
	// each order, and attack.Folds' fold of each item, which the cards and
	// the permutation audit read too.
	orders [][]int32
	index  *orderIndex
	folds  []int
	// xpool is the run's cross-pool store (every item with its text and
	// question rows), built on the first cross-pool unit (crossPool).
	xpool struct {
		once sync.Once
		pool *attack.Pool
		err  error
	}
	// serverFailed holds the items a served reader's server failed on
	// while the attackers (or the reference's probe) ran (serverfail.go).
	serverFailed serverFailures

	// Shared by the stages: what the run knows of its served readers'
	// modes (servedmodes.go), and the lock of res.CacheDamaged.
	served    servedModes
	damagedMu sync.Mutex
}

// newAudit starts the state of a run planned as p in the directory c
// claimed, and notes the attackers the run's models leave out.
func newAudit(opt Options, p *plan, c claim) *audit {
	a := &audit{opt: opt, cfg: p.cfg, samples: p.samples, aside: p.aside, items: p.items, acfg: p.acfg, workers: p.workers, models: p.models,
		res: &Result{Dir: opt.Out, Items: len(p.items), Sampled: p.read, Resumed: c.resumed, Extended: c.extended, Matches: p.matches}}
	// The lm_reader attackers' prompts move the meter of the stage that
	// asks them (promptCounter).
	a.prompts = &promptCounter{}
	a.acfg.Reader = a.prompts.wrap(p.acfg.Reader)
	if len(p.acfg.Extra) > 0 {
		a.acfg.Extra = make([]attack.LetterReader, len(p.acfg.Extra))
		for k, r := range p.acfg.Extra {
			a.acfg.Extra[k] = a.prompts.wrap(r)
		}
	}
	a.attackers = attack.Attackers(a.acfg)
	if opt.Embedder != nil || opt.Video != nil || opt.Reader != nil { // a models directory was given
		for _, line := range attack.Skipped(p.acfg) {
			opt.Progress.Note(line)
		}
	}
	return a
}

// stage records the wall time of the stage named name, begun at since.
func (a *audit) stage(name string, since time.Time) {
	a.res.Stages = append(a.res.Stages, Stage{name, time.Since(since)})
}

// close releases the embedding rows and the record file, those of them
// the stages opened.
func (a *audit) close() {
	if a.question != nil {
		a.question.close()
	}
	if a.text != nil {
		a.text.close()
	}
	if a.store != nil {
		a.store.Close()
	}
}
