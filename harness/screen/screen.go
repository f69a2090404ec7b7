package screen

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/kernels"
)

// Rules by which a verdict says an item is solved.
const (
	// RuleMargin: a model reader (its scores are the option letters'
	// log-probabilities) solves an item where it was scored when log
	// p(gold) - mean log p(others) > log 2 (docs/attackers.md, "solved
	// share"; DESIGN: "the margin ... > log 2 marks an item as solved for
	// screening").
	RuleMargin = "margin"
	// RuleCorrect: any other attacker solves an item where it was scored
	// when it answered it correctly without abstaining.
	RuleCorrect = "correct"
)

// Reasons screening removes an item, in the order of Row.Reasons.
const (
	ReasonSolved    = "solved"    // a screening attacker solves it
	ReasonDuplicate = "duplicate" // a near-duplicate of an item kept from another source
	ReasonFailed    = "failed"    // its video gave no features: its screening is incomplete
	ReasonQuality   = "quality"   // it carries a data-quality flag Options.DropQuality names
)

// An Attacker is one attacker of the run as screening uses it.
type Attacker struct {
	Name  string `json:"name"`
	Level string `json:"level"`
	// Rule is RuleMargin or RuleCorrect.
	Rule string `json:"rule"`
	// Screens is true when an item this attacker solves is removed.
	Screens bool `json:"screens"`
	// Diagnostic is true when the attacker is one of the consensus's
	// diagnostic tests.
	Diagnostic bool `json:"diagnostic"`
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
	Solved    bool    `parquet:"solved" json:"solved"`
}

// A Row is one screened item.
type Row struct {
	// Provenance.
	ID        string   `parquet:"id"`
	Benchmark string   `parquet:"benchmark"`
	Video     string   `parquet:"video"`
	Duration  *float64 `parquet:"duration,optional"` // seconds; nil when the item does not say
	Task      string   `parquet:"task"`
	Group     string   `parquet:"group"`
	Question  string   `parquet:"question"`
	Options   []string `parquet:"options,list"`
	Answer    int32    `parquet:"answer"`
	// Cluster is the item's near-duplicate cluster (duplicates.parquet: the
	// row of its first member over all benchmarks) and ClusterSize its size.
	Cluster     int32 `parquet:"dup_cluster"`
	ClusterSize int32 `parquet:"dup_cluster_size"`
	// CrossDuplicate is true when the cluster holds items of several
	// benchmarks and this one is not of the benchmark screening keeps.
	CrossDuplicate bool `parquet:"cross_duplicate"`
	// Quality lists the item's data-quality flags (harness.QualityNames).
	Quality []string `parquet:"quality,list"`
	// Failure says why the item's video gave no features ("" when it did or
	// when no video level ran).
	Failure string `parquet:"failure"`
	// Verdicts holds one verdict per attacker of the run, in the order of
	// Screen.Attackers.
	Verdicts []Verdict `parquet:"verdicts,list"`
	// SolvedBy lists the screening attackers that solve the item (on its
	// benchmark, those significantly above chance; see Options).
	SolvedBy []string `parquet:"solved_by,list"`
	// MaxMargin is the largest margin over the screening attackers (all of
	// them, significant or not) that
	// scored the item (NaN when none did): its worst-case attacker score.
	MaxMargin float64 `parquet:"max_margin"`
	// Diagnostics is the number of diagnostic tests that solve the item:
	// a Video-Oasis shortcut at consensus c when Diagnostics >= c.
	Diagnostics int32 `parquet:"diagnostics_solved"`
	// Agreement is the share of the diagnostic answers (scored, not
	// abstained) that chose the modal option; 0 with none.
	Agreement float64 `parquet:"agreement"`
	// The ambiguity flags of Video-Oasis (section 3.1, criteria 3).
	Consistency bool `parquet:"consistency"`
	Redundancy  bool `parquet:"redundancy"`
	Sensitivity bool `parquet:"sensitivity"`
	// Kept is true when screening keeps the item; Reasons otherwise says
	// why not (ReasonSolved, ReasonDuplicate, ReasonFailed, ReasonQuality,
	// in that order).
	Kept    bool     `parquet:"kept"`
	Reasons []string `parquet:"reasons,list"`
	// Embedding is the item's row in the .npy files (QuestionNPY,
	// CentreFrameNPY, MeanFrameNPY); -1 when it has none.
	Embedding int32 `parquet:"embedding_row"`
	// HasFrame is true when the frame files hold a row for the item (its
	// video gave features).
	HasFrame bool `parquet:"has_frame"`
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
// when no video level ran.
type Embeddings struct {
	Question    *kernels.Matrix
	CentreFrame *kernels.Matrix
	MeanFrame   *kernels.Matrix
}

// A Screen is the screening of one run.
type Screen struct {
	// Run names the screened run directory, as given.
	Run       string     `json:"run"`
	Options   Options    `json:"options"`
	Attackers []Attacker `json:"attackers"`
	Rows      []Row      `json:"-"`
	// Benchmarks summarises, per benchmark (sorted by name), what screening
	// removes and why.
	Benchmarks []Summary  `json:"benchmarks"`
	Consensus  *Consensus `json:"consensus"`
	Embeddings Embeddings `json:"-"`
}

// Options configure screening. The zero value screens with every attacker,
// counts every attacker as a diagnostic test and drops no quality flag.
type Options struct {
	// Attackers names the attackers whose solved items are removed; empty
	// means all of the run's. Each removes items only on the benchmarks
	// whose card finds it significantly above chance (elsewhere what it
	// solves it solves by luck), unless EveryAttacker is set.
	Attackers     []string `json:"attackers"`
	EveryAttacker bool     `json:"every_attacker"`
	// Diagnostics names the consensus's diagnostic tests; empty means every
	// attacker of the run (none of them sees the whole video in order).
	Diagnostics []string `json:"diagnostics"`
	// DropQuality names data-quality flags whose items are removed.
	DropQuality []string `json:"drop_quality"`
	// Readers names attackers judged by RuleMargin besides those whose
	// name ends in "-reader" (the model readers of the audit).
	Readers []string `json:"readers,omitempty"`
	// Window names the attackers that read one arbitrary stretch of the
	// video (Redundancy); empty means DefaultWindow.
	Window []string `json:"window"`
	// Shuffled names the attackers that read the frames out of order
	// (Sensitivity); empty means DefaultShuffled.
	Shuffled []string `json:"shuffled"`
}

// The attackers of the audit behind the ambiguity flags that read one part
// of the video or its frames shuffled (docs/attackers.md, order level).
var (
	DefaultWindow   = []string{"contiguous-tenth-reader"}
	DefaultShuffled = []string{"shuffled-frames-reader"}
)

// ln2 is the margin above which a model reader solves an item.
var ln2 = math.Log(2)

// isReader reports whether the attacker is a model reader: its scores are
// log-probabilities of the option letters.
func (o *Options) isReader(name string) bool {
	return strings.HasSuffix(name, "-reader") || slices.Contains(o.Readers, name)
}

// resolve fills the defaults and checks that every name is an attacker of
// the run.
func (o Options) resolve(attackers []string) (Options, error) {
	for _, list := range []struct {
		flag  string
		names []string
	}{{"attackers", o.Attackers}, {"diagnostics", o.Diagnostics}, {"readers", o.Readers}} {
		for _, n := range list.names {
			if !slices.Contains(attackers, n) {
				return o, fmt.Errorf("%s: %q is not an attacker of the run (it has %s)", list.flag, n, strings.Join(attackers, ", "))
			}
		}
	}
	if len(o.Attackers) == 0 {
		o.Attackers = slices.Clone(attackers)
	}
	if len(o.Diagnostics) == 0 {
		o.Diagnostics = slices.Clone(attackers)
	}
	if len(o.Window) == 0 {
		o.Window = DefaultWindow
	}
	if len(o.Shuffled) == 0 {
		o.Shuffled = DefaultShuffled
	}
	if o.DropQuality == nil {
		o.DropQuality = []string{}
	}
	return o, nil
}
