// Package metrics turns the attackers' stored predictions into one report
// card per benchmark (Video-Index sections 2-4): chance, each attacker's
// accuracy and margin over chance with a bootstrap interval, the
// exploitability per level as a running maximum, its significance, and, with
// a reference model's answers, the breaking level, the video dependence and
// the residual; plus learning curves of the prequential attackers and the
// near-duplicate figures of package dups.
//
// Everything here is a pure function of the items, the outcomes, the
// reference and the seed: outcomes may arrive in any order, and every float
// in a card is rounded to a fixed number of digits so that the JSON written
// from it is byte-stable.
package metrics

import (
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
)

// An Outcome is one stored prediction: the record a run keeps per (item,
// attacker, variant).
type Outcome struct {
	Item     int // index into the run's items
	Attacker string
	Level    harness.Level
	Variant  int // which order (0 for order-free attackers)
	Position int // position of the item in that variant's order
	// Scored is true when this answer counts towards the attacker's
	// accuracy: every answer of an attacker that learns nothing, and the
	// answers on the scored fold of each order for a prequential one
	// (attack.Scored; over five orders each item is scored exactly once).
	Scored bool
	Pred   attack.Prediction
	// Reduced, when true, says that Answer holds the prediction already
	// checked and reduced by Reduce, and Pred is not read: a run that keeps
	// its predictions compactly hands them over so.
	Reduced bool
	Answer  Answer
}

// Reference holds a reference model's answers: item key (harness.Item.Key)
// -> predicted option index. Its accuracy is s*.
type Reference map[string]int

// A Card is the audit of one benchmark. Pointer fields are null in JSON when
// the figure needs something the run lacks (a reference, duplicates).
type Card struct {
	Benchmark string `json:"benchmark"`
	// N is the number of items the card covers: the benchmark's items, or
	// its sample (Sample says how it was drawn).
	N int `json:"n"`
	// Sample describes the draw when the run audits a sample of the
	// benchmark (--sample); null when every item is audited.
	Sample *Sample `json:"sample"`
	// SetAside counts, by reason, the benchmark's items set aside before
	// the audit and in none of the card's figures (harness.YesNoReason:
	// bare yes/no pairs, which the Video-Index authors count in no audit
	// statistic); absent when none was. YesNoOnly marks a benchmark made
	// only of them: its card has no multiple-choice figures (N is 0, no
	// level ran), as the authors' chance.py gives it no c. See
	// WithSetAside.
	SetAside  map[string]int `json:"set_aside,omitempty"`
	YesNoOnly bool           `json:"yes_no_only,omitempty"`
	// DuplicatesRemoved counts the benchmark's items removed as
	// duplicates before the audit (harness.DedupRule: same video, option
	// set and answer, question cosine >= 0.90; paper 002, 3.1); null when
	// that rule did not run (--no-dedup). It is not NearDuplicateShare,
	// which is measured on the audited items, by question cosine alone.
	DuplicatesRemoved *int `json:"duplicates_removed_before_audit,omitempty"`

	Chance float64 `json:"chance"` // mean of 1/len(options)
	// Significance is the papers' own threshold, 2.326 * sqrt(c(1-c)/n)
	// (the Video-Index authors' levels.py), with c and n those of the
	// reference's items when the run has a reference and of the card's
	// items otherwise. It is kept for comparison with the published tables
	// (each attacker's PaperMargin is read against it); the flags
	// Significant are the exact test after Holm's correction
	// (docs/attackers.md, "significant").
	Significance float64 `json:"significance"`
	// Embedder names what embedded the texts the pool attackers and the
	// near-duplicate search read (the lexical embedder fitted on this
	// benchmark alone, or a model).
	Embedder string `json:"embedder"`
	// ReferenceAccuracy is s*, over the ReferenceN items the reference
	// answers; ReferenceCoverage is ReferenceN / N, and ReferencePartial
	// flags an s* read on fewer than all of the card's items.
	ReferenceAccuracy *float64 `json:"reference_accuracy"`
	ReferenceN        int      `json:"reference_n"`
	ReferenceCoverage *float64 `json:"reference_coverage"`
	ReferencePartial  bool     `json:"reference_partial,omitempty"`
	// ReferenceNearChance is the authors' reference_near_chance
	// (levels.py): s* - c is within 0.05; the breaking level is then the
	// first level that ran. With --reference-model it is the 32-frame
	// s*'s, also where the 128-frame probe replaced it
	// (ReferenceSource.NearChance).
	ReferenceNearChance bool `json:"reference_near_chance,omitempty"`
	// ReferenceSource says which model answers s* is read from when the
	// run computed them (--reference-model); absent otherwise.
	ReferenceSource *ReferenceSource `json:"reference_source,omitempty"`
	Levels          Levels           `json:"levels"`
	// Attackers lists every attacker that ran, in the order of
	// attack.Attackers.
	Attackers []AttackerResult `json:"attackers"`
	// Tasks and Groups break the card down by the items' task and group
	// fields (sorted by name; empty names are listed as ""): n and eps per
	// level over the items of each, each level's flag by the same exact test
	// and Holm's correction over the attackers on those items.
	Tasks  []Breakdown `json:"tasks,omitempty"`
	Groups []Breakdown `json:"groups,omitempty"`
	// Durations breaks the card down the same way by the items'
	// duration_category (Video-MME's short, medium, long), for a benchmark
	// that gives its lengths as categories; none when its items share one
	// category or give none.
	Durations []Breakdown `json:"durations,omitempty"`
	// BreakingLevel maps each tolerance delta ("0.03", "0.05", "0.08") to the
	// first level with eps >= s* - c - delta, or null when none of the levels
	// that ran breaks; the whole map is null without a reference.
	BreakingLevel map[string]*string `json:"breaking_level"`
	// VideoDependence is m = s* minus the accuracy of the stronger blind
	// reader (Video-Index 3.3: the blind-reader models only, not
	// question-match, not the running maximum), which VideoDependenceReader
	// names. The blind reader's accuracy is taken on the items both it and
	// the reference answered, as the authors' levels.py takes every
	// attacker's against s*, so that a partial reference compares like
	// with like; VideoDependenceAccuracy is that accuracy, so that a
	// reader of the card can check m = s* - it, where the reader's overall
	// accuracy on the card differs. Residual is s* - c - eps of the highest
	// level run. Unavailable says, for each figure left null, what it needs
	// (m: a blind reader).
	VideoDependence         *float64          `json:"video_dependence"`
	VideoDependenceReader   string            `json:"video_dependence_reader,omitempty"`
	VideoDependenceAccuracy *float64          `json:"video_dependence_accuracy,omitempty"`
	Residual                *float64          `json:"residual"`
	Unavailable             map[string]string `json:"unavailable,omitempty"`
	// ALCAttacker is the pool attacker with the largest final-stage margin;
	// LearningCurve and ALC are its learning curve (accuracy per tenth of
	// the positions, averaged over orders) and its normalised area under it
	// (001, tables 14-15: "ALC is that attacker's normalized area").
	ALCAttacker   string    `json:"alc_attacker,omitempty"`
	LearningCurve []float64 `json:"learning_curve,omitempty"`
	ALC           *float64  `json:"alc"`
	// DataQuality counts the items carrying each data-quality flag
	// (harness.Quality); absent when none does.
	DataQuality map[string]int `json:"data_quality,omitempty"`

	NearDuplicateShare *float64 `json:"near_duplicate_share"`
	// CrossBenchmarkDuplicates counts the benchmark's items with a near
	// duplicate in another benchmark; CrossBenchmarkFlows splits the pairs
	// by the other benchmark.
	CrossBenchmarkDuplicates *int   `json:"cross_benchmark_duplicates"`
	CrossBenchmarkFlows      []Flow `json:"cross_benchmark_flows,omitempty"`
	// DistinctClusters is the number of near-duplicate clusters within the
	// benchmark; SharedVideoItems the number of its items whose video
	// another benchmark uses too (Video-Index 4.5 counts items), split by
	// benchmark in SharedVideoFlows; SharedVideosBy says what identifies a
	// video there: its content (the SHA-256 of the file, when the audit read
	// the videos) or, without videos, its video id (dups.VideosBy).
	DistinctClusters *int   `json:"distinct_clusters"`
	SharedVideoItems *int   `json:"shared_video_items"`
	SharedVideoFlows []Flow `json:"shared_video_flows,omitempty"`
	SharedVideosBy   string `json:"shared_videos_by,omitempty"`
	// WeightedReferenceAccuracy is s* with each item weighted by the inverse
	// size of its near-duplicate cluster within the benchmark.
	WeightedReferenceAccuracy *float64 `json:"weighted_reference_accuracy"`
	// UnconfirmedDuplicates counts the near-duplicate pairs touching the
	// benchmark that the first embedder found and the confirming one
	// rejected (dups.Confirm); absent when no second model confirmed them.
	UnconfirmedDuplicates *int `json:"unconfirmed_duplicate_pairs,omitempty"`
	// LevelsRun lists the levels whose attackers ran and answered, from
	// the least access to the most, so that a card that is not broken says
	// how far up the pyramid it was tested.
	LevelsRun []harness.Level `json:"levels_run"`
	// LevelsNotRun maps each level that was asked for but whose attackers
	// answered no item ("frame", "order", ...) to why: no attacker of it
	// ran, or every answer was a seeded guess, e.g. "30 videos failed:
	// missing 30". Such a level is null in Levels: no eps, no
	// significance, not the maximum of the levels below.
	LevelsNotRun map[string]string `json:"levels_not_run,omitempty"`
	// Failures counts the items whose video gave no features, or for one of
	// whose texts a model gave a NaN or an infinity, by reason ("missing",
	// "outside-root", "corrupt", "timeout", "non-finite-embedding", ...),
	// or whose served reader's server failed after its retries ("server");
	// the frame and order attackers abstained on them. Empty when none
	// failed.
	Failures map[string]int `json:"failures"`
	// EffectiveSize is the benchmark's effective number of distinct items
	// (Video-Index 4.5; see EffectiveSize); null when no video level ran or
	// the run had no text_embed model.
	EffectiveSize *EffectiveSize `json:"effective_size"`
	// Permutation holds, per model reader whose prompt lists the options,
	// the option-permutation audit (see Permutation); absent when the run
	// had none.
	Permutation map[string]*Permutation `json:"permutation,omitempty"`
	// OrderDiagnostics holds vlm_reader's halves and shifted grids (see
	// OrderDiagnostics); absent unless the order level ran with a
	// vlm_reader. They count for no level.
	OrderDiagnostics *OrderDiagnostics `json:"order_diagnostics,omitempty"`
	// Models holds each evaluated model's accuracy and residual (see
	// WithModels); absent when no predictions were given.
	Models []ModelResult `json:"models,omitempty"`
	// ServedReaders says, per reader role a server answered, which mode
	// and form its answers came in (see ServedReader); absent when no role
	// was served.
	ServedReaders []ServedReader `json:"served_readers,omitempty"`
	// AnswerCheck is the answer-verification stage on the benchmark's
	// items (see AnswerCheck); absent without --verify-answers.
	AnswerCheck *AnswerCheck `json:"answer_check,omitempty"`
	// ErrorAttribution is where the reference's errors fall (see
	// ErrorAttribution); absent without a reference model.
	ErrorAttribution *ErrorAttribution `json:"error_attribution,omitempty"`
	// SecondReference is the authors' second reference (sr_*; see
	// SecondReference); absent without --reference-model.
	SecondReference *SecondReference `json:"second_reference,omitempty"`
}

// Levels holds the exploitability of each level run; a level that did not
// run is null.
type Levels struct {
	Option *LevelResult `json:"option"`
	Text   *LevelResult `json:"text"`
	Pool   *LevelResult `json:"pool"`
	Frame  *LevelResult `json:"frame"`
	Order  *LevelResult `json:"order"`
}

// At returns the result of level l (nil when it did not run).
func (ls Levels) At(l harness.Level) *LevelResult {
	switch l {
	case harness.LevelOption:
		return ls.Option
	case harness.LevelText:
		return ls.Text
	case harness.LevelPool:
		return ls.Pool
	case harness.LevelFrame:
		return ls.Frame
	case harness.LevelOrder:
		return ls.Order
	}
	return nil
}

// Set stores the result of level l.
func (ls *Levels) Set(l harness.Level, r *LevelResult) {
	switch l {
	case harness.LevelOption:
		ls.Option = r
	case harness.LevelText:
		ls.Text = r
	case harness.LevelPool:
		ls.Pool = r
	case harness.LevelFrame:
		ls.Frame = r
	case harness.LevelOrder:
		ls.Order = r
	}
}

// Top returns the highest level that ran and its result, or false when none
// did.
func (ls Levels) Top() (harness.Level, *LevelResult, bool) {
	all := harness.Levels()
	for k := len(all) - 1; k >= 0; k-- {
		if r := ls.At(all[k]); r != nil {
			return all[k], r, true
		}
	}
	return 0, nil, false
}

// A Breakdown is the part of a card over the items of one task or group.
type Breakdown struct {
	Name         string  `json:"name"`
	N            int     `json:"n"`
	Chance       float64 `json:"chance"`
	Significance float64 `json:"significance"`
	Levels       Levels  `json:"levels"`
}

// A Sample says how a card's items were drawn from its benchmark.
type Sample struct {
	// Of is the number of items the benchmark has; the card covers N of
	// them.
	Of int `json:"of"`
	// Method names the draw, e.g. "stratified by task, then group; seed 1".
	Method string `json:"method"`
	// Duplicates counts the drawn items that left as duplicates of
	// another (one item per group, blog 001): the card's
	// DuplicatesRemoved, under the same name; Replaced how many of them
	// unsampled items replaced.
	Duplicates int `json:"duplicates_removed_before_audit"`
	Replaced   int `json:"replaced"`
}

// A LevelResult is eps_l, the largest margin over chance of any attacker at
// or below level l (Video-Index eq. 1, nested sets), and who reached it,
// with that attacker's exact test: Significant after Holm's correction,
// SignificantUncorrected on its own p-value.
type LevelResult struct {
	Eps                    float64 `json:"eps"`
	Attacker               string  `json:"attacker"`
	Significant            bool    `json:"significant"`
	SignificantUncorrected bool    `json:"significant_uncorrected"`
	PValue                 float64 `json:"p_value"`
}

// Flow is a count shared with another benchmark.
type Flow struct {
	Benchmark string `json:"benchmark"`
	Count     int    `json:"count"`
}

// An AttackerResult is one attacker's score on one benchmark.
type AttackerResult struct {
	Name  string        `json:"name"`
	Level harness.Level `json:"level"`
	// ScreeningOnly is true for an attacker that is a step of the
	// screening funnel and no level's (full-video-reader: 32 frames in
	// order is the reference protocol, Video-Index 5.1): it is reported,
	// and no eps counts it.
	ScreeningOnly bool `json:"screening_only,omitempty"`
	// Accuracy is the share of scored answers that are correct; for a
	// prequential attacker only the final stage (the scored fold, last in
	// each order) counts, where it has learned from the rest (Video-Index
	// appendix: "final-stage margin").
	Accuracy float64 `json:"accuracy"`
	// Margin is Accuracy minus the chance of the same items.
	Margin float64 `json:"margin"`
	// N is the number of distinct items scored: every item of the card for
	// an attacker that learns nothing, and for a prequential one the items
	// on the scored folds of its orders (all of them over five orders).
	N int `json:"n"`
	// LearnsFromPool is true for an attacker that learns from the gold
	// answers of other items of the benchmark (pool access by Video-Index's
	// definition), even at the option level: fixed-position and
	// option-artifact learn where the answers sit and which option texts win.
	LearnsFromPool bool `json:"learns_from_pool"`
	// CrossPool is true for a cross-pool attacker (copy-xpool,
	// knn-vote-xpool): its store also holds the run's other benchmarks
	// (the blog, 001, tables 14-15, superscript c). It is reported beside
	// the within-benchmark variant and enters no level's eps.
	CrossPool bool `json:"cross_pool,omitempty"`
	// DiagnosticOnly is true for a further model of a Video-Oasis
	// diagnostic test (seed 003, section 3.2), run on a later entry of its
	// role in models.json (blind-reader#2 on the second lm_reader entry):
	// it is reported and screening's consensus counts it, but it enters no
	// level's eps and no Holm family, so the levels stay those of the role's
	// first entry, comparable with the papers (m, the stronger blind
	// reader's, may take it: Video-Index 3.3).
	DiagnosticOnly bool `json:"diagnostic_only,omitempty"`
	// CILow and CIHigh bound Accuracy: the seeded bootstrap percentile
	// interval over the scored items.
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	Chance float64 `json:"chance"`
	// PValue is the exact one-sided p-value of the attacker's right
	// answers against each item's own chance (a Poisson-binomial tail over
	// its Answered outcomes: an abstention is a chance-level outcome and
	// moves nothing). Significant is its rejection after Holm's correction
	// at 0.05 over the attackers of the benchmark that answered;
	// SignificantUncorrected is PValue <= 0.05 alone. A margin that passes
	// uncorrected only is "not significant after correction" on the
	// reports (issue 20, point 4).
	PValue                 float64 `json:"p_value"`
	Answered               int     `json:"answered"`
	Significant            bool    `json:"significant"`
	SignificantUncorrected bool    `json:"significant_uncorrected"`
	// PaperMargin is the margin as the Video-Index authors' levels.py
	// reads it: accuracy minus chance over the PaperN items both the
	// reference and the attacker scored; PaperSignificant compares it with
	// the card's Significance. Null without a reference or with fewer than
	// 30 common items (the authors drop such an attacker).
	PaperMargin      *float64 `json:"paper_margin"`
	PaperN           int      `json:"paper_n,omitempty"`
	PaperSignificant *bool    `json:"paper_significant"`
	Orders           int      `json:"orders"`
	// AccuracyAll is the accuracy over every position, early ones included.
	AccuracyAll float64 `json:"accuracy_all"`
	// AbstainShare is the share of predictions that were seeded guesses.
	AbstainShare float64 `json:"abstain_share"`
	// SolvedShare is the share of the card's items the attacker solved
	// where scored, by package solve's rule (Video-Index 5.1, the authors'
	// pool screen): a model reader scoring letters must be right AND have a
	// margin above log 2, any other attacker right; a seeded guess never
	// solves (items.parquet's <name>_solved). The options-only and blind
	// readers are judged on the first SolvedOrders seeded option orders of
	// the permutation audit (not the original): three of four right and,
	// with log-probabilities, their mean margin above log 2
	// (SolvedOverOrders).
	SolvedShare float64 `json:"solved_share"`
	// SolvedOrders is the number of seeded option orders SolvedShare
	// judged an item on: solve.Orders for the options-only and blind
	// readers when the permutation audit ran (fewer with fewer
	// permutations), absent (the original order alone) otherwise.
	SolvedOrders int `json:"solved_orders,omitempty"`
	// LearningCurve is the accuracy in each tenth of the positions of the
	// orders (averaged over orders), for prequential attackers only.
	LearningCurve []float64 `json:"learning_curve,omitempty"`
	// ALC is the normalised area under the learning curve: the mean over the
	// tenths of (acc - c)/(1 - c), with c the chance of that tenth's items;
	// 0 at chance throughout, 1 when every answer is right from the start
	// (Video-Index appendix, tables 14-15, reported there in %).
	ALC *float64 `json:"alc"`
}

// EffectiveSize is the Vendi score of the joint kernel K_ij = (v_i . v_j)
// (t_i . t_j), v the unit mean image embedding of an item's 32 uniform
// frames and t the unit text_embed embedding of its question, on seeded
// draws of DrawSize items (all of them when fewer): Mean over the Draws, and
// the 2.5 and 97.5 percentiles of the draws' scores. N counts the items
// with video features it drew from.
type EffectiveSize struct {
	Mean     float64 `json:"mean"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Draws    int     `json:"draws"`
	DrawSize int     `json:"draw_size"`
	N        int     `json:"n"`
}

// Permutation is how much a model reader depends on the order of the
// options: its accuracy on the original order and on each of its seeded
// permutations (Video-Index's option-permutation audit), their range, and
// the share of items whose chosen option text changes in at least one
// permutation.
type Permutation struct {
	Permutations int       `json:"permutations"`
	N            int       `json:"n"`
	Accuracies   []float64 `json:"accuracies"` // original first
	AccuracyMin  float64   `json:"accuracy_min"`
	AccuracyMax  float64   `json:"accuracy_max"`
	ChangedShare float64   `json:"changed_share"`
}
