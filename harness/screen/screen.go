package screen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/kernels"
)

// The funnel's own steps besides the screening attackers' (Video-Index
// 5.1; the authors' pool/screen.py runs them in this order around the
// attack steps): a row's RemovedBy names the step that removed it, an
// attack step by its attacker's name.
const (
	// StepDuplicate: a near-duplicate of an item of the same benchmark on
	// the same video (question+options cosine > 0.90); the smallest id of
	// each group stays.
	StepDuplicate = "duplicate"
	// StepOptionFormat: a meta option, a repeated option text or an empty
	// gold option (and any flag Options.DropQuality names).
	StepOptionFormat = "option_format"
	// StepCrossDuplicate: a near-duplicate of an item kept from an earlier
	// benchmark on the same video (cosine >= 0.90), applied last.
	StepCrossDuplicate = "cross_duplicate"
)

// An Attacker is one attacker of the run as screening uses it.
type Attacker struct {
	Name  string `json:"name"`
	Level string `json:"level"`
	// Rule says what an answer must show to solve an item (solve.Rule):
	// "correct and margin > log 2" for a model reader, "correct" for
	// anything else.
	Rule string `json:"rule"`
	// Orders is the number of seeded option orders an item is judged on:
	// four for the options-only and blind readers when the run's
	// permutation audit holds them, one otherwise.
	Orders int `json:"orders"`
	// Screens is true when the attacker is a step of the funnel.
	Screens bool `json:"screens"`
	// Test names the Video-Oasis diagnostic test the attacker is a model
	// of ("" when it is none), and Model the model it stands for within
	// the test (variants of one model share it).
	Test  string `json:"test,omitempty"`
	Model string `json:"model,omitempty"`
}

// A Verdict is what one attacker did with one item where it was scored
// (items.parquet's <name>_* columns).
type Verdict struct {
	Attacker  string  `parquet:"attacker" json:"attacker"`
	Scored    bool    `parquet:"scored" json:"scored"`
	Abstained bool    `parquet:"abstained" json:"abstained"`
	Choice    int32   `parquet:"choice" json:"choice"` // -1 when the attacker has no prediction
	Correct   bool    `parquet:"correct" json:"correct"`
	Margin    float64 `parquet:"margin" json:"margin"`
	// Orders and OrdersCorrect are the option orders the verdict was
	// judged on and how many of them the attacker answered correctly
	// (1 and 0 or 1 for an attacker judged on one order).
	Orders        int32 `parquet:"orders" json:"orders"`
	OrdersCorrect int32 `parquet:"orders_correct" json:"orders_correct"`
	// Solved applies the attacker's rule (harness/solve) to the verdict.
	Solved bool `parquet:"solved" json:"solved"`
	// OrdersMargin is the mean gold margin over the seeded option orders
	// the verdict was judged on, over the orders that have one: the
	// authors' opt_margin and blind_margin (Video-Index pool/screen.py,
	// text_step_result: sum(margins)/len(margins)), what hardest-K ranks
	// the options-only and blind steps by (harness/release). nil for an
	// attacker judged on one order, or whose orders the run kept without
	// margins, or with no margin on any order.
	OrdersMargin *float64 `parquet:"orders_margin,optional" json:"orders_margin,omitempty"`
}

// A Row is one screened item.
type Row struct {
	// Provenance.
	ID        string `parquet:"id"`
	Benchmark string `parquet:"benchmark"`
	Video     string `parquet:"video"`
	// VideoID is the video's identity for the duplicate steps: the
	// SHA-256 of its bytes where the run recorded it, else Video.
	VideoID  string   `parquet:"video_id"`
	Duration *float64 `parquet:"duration,optional"` // seconds; nil when the item does not say
	Task     string   `parquet:"task"`
	Group    string   `parquet:"group"`
	Question string   `parquet:"question"`
	Options  []string `parquet:"options,list"`
	Answer   int32    `parquet:"answer"`

	// DurationCategory is the item's duration_category (Video-MME's
	// short/medium/long), "" when it gives none or the audit predates it.
	DurationCategory string `parquet:"duration_category,optional"`

	// Cluster is the item's near-duplicate cluster (duplicates.parquet: the
	// row of its first member over all benchmarks) and ClusterSize its size.
	Cluster     int32 `parquet:"dup_cluster"`
	ClusterSize int32 `parquet:"dup_cluster_size"`
	// Quality lists the item's data-quality flags (harness.QualityNames).
	Quality []string `parquet:"quality,list"`
	// Failure says why the item's video gave no features ("" when it did or
	// when no video level ran).
	Failure string `parquet:"failure"`
	// Verdicts holds one verdict per attacker of the run, in the order of
	// Screen.Attackers.
	Verdicts []Verdict `parquet:"verdicts,list"`
	// SolvedBy lists every screening attacker that solves the item (a
	// learner or matcher on its benchmark only where significantly above
	// chance; see Options), whichever step removed it: the detail behind
	// RemovedBy.
	SolvedBy []string `parquet:"solved_by,list"`
	// MaxMargin is the largest margin over the screening attackers (all of
	// them, significant or not) that
	// scored the item (NaN when none did): its worst-case attacker score.
	MaxMargin float64 `parquet:"max_margin"`
	// Diagnostics is the largest number of one diagnostic test's models
	// that answer the item correctly: a Video-Oasis shortcut at consensus
	// c when Diagnostics >= c (seed 003, section 3.2).
	Diagnostics int32 `parquet:"diagnostics_solved"`
	// Agreement is the share of the diagnostic models' answers (scored,
	// not abstained) that chose the modal option; 0 with none.
	Agreement float64 `parquet:"agreement"`
	// The ambiguity flags of Video-Oasis (section 3.1, criteria 3).
	Consistency bool `parquet:"consistency"`
	Redundancy  bool `parquet:"redundancy"`
	Sensitivity bool `parquet:"sensitivity"`
	// Restored is true when a person restored the item at the sensitivity
	// review (Options.Restored): its frame-shuffling test does not make
	// it a shortcut (the authors' "restored" status).
	Restored bool `parquet:"restored"`
	// Kept is true when the item passed every step of the funnel.
	// RemovedBy names the one step that removed it otherwise (the first
	// that applies, in funnel order: StepDuplicate, StepOptionFormat, a
	// screening attacker's name, StepCrossDuplicate), and DuplicateOf the
	// item a duplicate step kept in its place (its id; benchmark/id across
	// benchmarks). Pending names the step the item waits for when it
	// reached a step that reads its video and its video failed: it is
	// neither kept nor removed (the authors' pending_steps).
	Kept        bool   `parquet:"kept"`
	RemovedBy   string `parquet:"removed_by"`
	DuplicateOf string `parquet:"duplicate_of"`
	Pending     string `parquet:"pending"`
	// Embedding is the item's row in the .npy files (QuestionNPY,
	// CentreFrameNPY, MeanFrameNPY); -1 when it has none.
	Embedding int32 `parquet:"embedding_row"`
	// HasFrame is true when the frame files hold a row for the item (its
	// video gave features).
	HasFrame bool `parquet:"has_frame"`
	// AnswerSuspect is true when the run's answer verification
	// (--verify-answers, answercheck.FileName) does not keep the item, and
	// AnswerCheck is its keep reason ("" when the run verified no
	// answers). A suspect item stays in the funnel's counts and out of a
	// selection unless the selection admits suspects.
	AnswerSuspect bool   `parquet:"answer_suspect"`
	AnswerCheck   string `parquet:"answer_check"`
}

// Key is the item's key in the run's records (harness.Item.Key).
func (r *Row) Key() string { return r.Benchmark + "\x00" + r.ID }

// Verdict returns the row's verdict of the named attacker, or nil.
func (r *Row) Verdict(attacker string) *Verdict {
	for i := range r.Verdicts {
		if r.Verdicts[i].Attacker == attacker {
			return &r.Verdicts[i]
		}
	}
	return nil
}

// Embeddings are the embedding rows of the screened items, one row per Row
// (Row.Embedding). Question is always present; the frame matrices are nil
// when no video level ran. Text (question+options, what the duplicate steps
// compare) is read from the run and not written with the screen.
type Embeddings struct {
	Text        *kernels.Matrix
	Question    *kernels.Matrix
	CentreFrame *kernels.Matrix
	MeanFrame   *kernels.Matrix
}

// A Screen is the screening of one run.
type Screen struct {
	// Run names the screened run directory, as given.
	Run string `json:"run"`
	// Audit names the audit screened (its completion record's hash,
	// completion.Record.Hash): select refuses a screen of another audit
	// of the run directory (one extended or rerun since).
	Audit     string     `json:"audit,omitempty"`
	Options   Options    `json:"options"`
	Attackers []Attacker `json:"attackers"`
	Rows      []Row      `json:"-"`
	// Benchmarks summarises, per benchmark (sorted by name), what screening
	// removes and why.
	Benchmarks []Summary `json:"benchmarks"`
	// Funnel names the funnel's steps in the order they ran.
	Funnel    []string   `json:"funnel"`
	Consensus *Consensus `json:"consensus"`
	// Notes says where screening had to do without something the papers'
	// rule reads (a run without the permutation orders, without content
	// hashes of its videos, with one VLM for both roles), one line each.
	Notes      []string   `json:"notes"`
	Embeddings Embeddings `json:"-"`
	// KeepYesNo is true when the audit kept its bare yes/no items
	// (--keep-yesno, config.json's yes_no): the funnel keeps them too,
	// where it otherwise removes them at StepYesNo.
	KeepYesNo bool `json:"keep_yesno,omitempty"`
}

// Options configure screening. The zero value screens with
// DefaultScreeners, counts the run's diagnostic models (DiagnosticTests) and
// removes no quality flag beyond the option-format step's own.
type Options struct {
	// Attackers names the screening attackers, the funnel's attack steps;
	// empty means DefaultScreeners (those the run has). They run in
	// pyramid order (the level of each, DefaultScreeners' order within a
	// level). A learner or embedding matcher removes items only on the
	// benchmarks whose card finds it significantly above chance (elsewhere
	// what it solves it solves by luck), unless EveryAttacker is set; the
	// model readers remove what they answer everywhere (Video-Index 5.1).
	Attackers     []string `json:"attackers"`
	EveryAttacker bool     `json:"every_attacker"`
	// Diagnostics names the attackers counted as the diagnostic models of
	// the consensus; empty means every attacker of the run that
	// DiagnosticTests lists. Each must be one of them: learners are never
	// diagnostic models (Video-Oasis 3.2).
	Diagnostics []string `json:"diagnostics"`
	// DropQuality names further data-quality flags whose items the
	// option-format step removes.
	DropQuality []string `json:"drop_quality"`
	// Readers names attackers judged as model readers besides those whose
	// name ends in "-reader".
	Readers []string `json:"readers,omitempty"`
	// Window names the attackers that read one arbitrary stretch of the
	// video (Redundancy); empty means DefaultWindow.
	Window []string `json:"window"`
	// Shuffled names the attackers that read the frames out of order
	// (Sensitivity); empty means DefaultShuffled.
	Shuffled []string `json:"shuffled"`
	// ConsensusRule says when a diagnostic model solves an item for the
	// Video-Oasis consensus: RuleCorrect ("" too), the authors' (its
	// answer is the gold: aggregate_results.py), or RuleSolve, the
	// project's variant (the attacker's Video-Index solve rule, three of
	// four orders and a margin: Verdict.Solved).
	ConsensusRule string `json:"consensus_rule"`
	// Consistency names the models the consistency check compares (the
	// authors' maximal disagreement over the full-video models: Video-Oasis
	// ambiguity/consistency.py); empty means every entry of
	// DefaultConsistency's readers the run has.
	Consistency []string `json:"consistency"`
	// Restored lists the items a person restored at the sensitivity review
	// (the frame-shuffling test's false positives, Video-Oasis 3.1 and
	// Figure 3(b); the authors' --sensitivity-restore): their
	// frame-shuffling test does not make them shortcuts.
	Restored []ItemRef `json:"restored"`
}

// An ItemRef names one item of a run.
type ItemRef struct {
	Benchmark string `json:"benchmark"`
	ID        string `json:"id"`
}

// The consensus rules (Options.ConsensusRule).
const (
	// RuleCorrect: a model solves an item when it answers it with the
	// gold option (Video-Oasis, aggregate_results.py read_prediction).
	RuleCorrect = "correct"
	// RuleSolve: the attacker's own solve rule (Verdict.Solved).
	RuleSolve = "solve"
)

// DefaultConsistency is the reader whose role's entries the consistency
// check compares by default: the full-video reader on each vlm_reader
// entry (full-video-reader, full-video-reader#2, ...), as the authors
// compare five Video-LLMs on the full video (Video-Oasis 3.1, criteria 3).
const DefaultConsistency = "full-video-reader"

// DefaultScreeners are the funnel's attack steps (Video-Index 5.1): the
// model readers that answer from the options alone, the question and
// options, one frame (the centre of the 32-frame grid), and 32 frames in
// order and shuffled. Captions and the contiguous tenth do not screen by
// default; learners and matchers only when named. A run with a
// screen_reader role screens its shuffled step with ShuffledScreenReader
// in place of shuffled-frames-reader.
var DefaultScreeners = []string{"options-reader", "blind-reader", "centre-frame-reader", "full-video-reader", "shuffled-frames-reader"}

// ShuffledScreenReader is the funnel's shuffled step on the screen_reader
// role, the smaller VLM of Video-Index 5.1 (harness/attack): the card's
// shuffled-frames-reader stays on vlm_reader, and a run that has both
// screens with this one by default.
const ShuffledScreenReader = "shuffled-frames-screen-reader"

// The attackers of the audit behind the ambiguity flags that read parts
// of the video or its frames shuffled (docs/attackers.md, order level).
// The redundancy check is the authors' eight chunks (Video-Oasis
// ambiguity/redundancy.py: an item answered on every one of eight
// contiguous chunks); contiguous-tenth-reader, one seeded tenth, is the
// project's variant (--window).
var (
	DefaultWindow   = []string{ChunkReader}
	DefaultShuffled = []string{"shuffled-frames-reader"}
)

// ChunkReader is the attacker of the redundancy check (attack): vlm_reader
// on each of eight contiguous chunks of the video, answering an item when
// the eight agree.
const ChunkReader = "eight-chunk-reader"

// isMultiOrder reports whether the attacker is judged on four seeded
// option orders (attack.MultiOrder: the options-only and blind readers,
// three of four; Video-Index 5.1).
func isMultiOrder(name string) bool { return attack.MultiOrder(name) }

// isReader reports whether the attacker is a model reader: its scores are
// log-probabilities of the option letters. A reader on a later entry of its
// role (blind-reader#2) is one too.
func (o *Options) isReader(name string) bool {
	base, _ := attack.SplitModel(name)
	return strings.HasSuffix(base, "-reader") || slices.Contains(o.Readers, name)
}

// resolve fills the defaults and checks that every name is an attacker of
// the run. It returns the default screeners the run lacks.
func (o Options) resolve(attackers []string) (Options, []string, error) {
	for _, list := range []struct {
		flag  string
		names []string
	}{{"attackers", o.Attackers}, {"diagnostics", o.Diagnostics}, {"readers", o.Readers}, {"consistency", o.Consistency}} {
		for _, n := range list.names {
			if !slices.Contains(attackers, n) {
				return o, nil, fmt.Errorf("%s: %q is not an attacker of the run (it has %s)", list.flag, n, strings.Join(attackers, ", "))
			}
		}
	}
	for _, n := range o.Diagnostics {
		if _, ok := testOf(n); !ok {
			return o, nil, fmt.Errorf("diagnostics: %q is not a diagnostic model of a Video-Oasis test (learners never are; the models: %s)", n, strings.Join(diagnosticNames(), ", "))
		}
	}
	var missing []string
	if len(o.Attackers) == 0 {
		o.Attackers = []string{}
		for _, n := range DefaultScreeners {
			if n == "shuffled-frames-reader" && slices.Contains(attackers, ShuffledScreenReader) {
				n = ShuffledScreenReader
			}
			if slices.Contains(attackers, n) {
				o.Attackers = append(o.Attackers, n)
			} else {
				missing = append(missing, n)
			}
		}
	}
	if len(o.Diagnostics) == 0 {
		o.Diagnostics = []string{}
		for _, n := range attackers {
			if _, ok := testOf(n); ok {
				o.Diagnostics = append(o.Diagnostics, n)
			}
		}
	}
	if len(o.Window) == 0 {
		o.Window = DefaultWindow
	}
	if len(o.Shuffled) == 0 {
		o.Shuffled = DefaultShuffled
	}
	switch o.ConsensusRule {
	case "":
		o.ConsensusRule = RuleCorrect
	case RuleCorrect, RuleSolve:
	default:
		return o, nil, fmt.Errorf("consensus-rule: %q is not a rule (want %s, the authors', or %s, the Video-Index solve rule)", o.ConsensusRule, RuleCorrect, RuleSolve)
	}
	if len(o.Consistency) == 0 {
		o.Consistency = []string{}
		for _, n := range attackers {
			if base, _ := attack.SplitModel(n); base == DefaultConsistency {
				o.Consistency = append(o.Consistency, n)
			}
		}
	}
	if o.Restored == nil {
		o.Restored = []ItemRef{}
	}
	if o.DropQuality == nil {
		o.DropQuality = []string{}
	}
	return o, missing, nil
}
