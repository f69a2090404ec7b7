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
	Pred     attack.Prediction
}

// Reference holds a reference model's answers: item key (harness.Item.Key)
// -> predicted option index. Its accuracy is s*.
type Reference map[string]int

// A Card is the audit of one benchmark. Pointer fields are null in JSON when
// the figure needs something the run lacks (a reference, duplicates).
type Card struct {
	Benchmark string  `json:"benchmark"`
	N         int     `json:"n"`
	Chance    float64 `json:"chance"` // mean of 1/len(options)
	// Significance is 2.326 * sqrt(c(1-c)/n): a margin below it is not
	// significant at one-sided 1% (DESIGN.md, attack pyramid).
	Significance      float64  `json:"significance"`
	ReferenceAccuracy *float64 `json:"reference_accuracy"`
	ReferenceN        int      `json:"reference_n"`
	Levels            Levels   `json:"levels"`
	// Attackers lists every attacker that ran, in the order of
	// attack.Attackers.
	Attackers []AttackerResult `json:"attackers"`
	// BreakingLevel maps each tolerance delta ("0.03", "0.05", "0.08") to the
	// first level with eps >= s* - c - delta, or null when none breaks; the
	// whole map is null without a reference.
	BreakingLevel map[string]*string `json:"breaking_level"`
	// VideoDependence is s* minus the accuracy of the stronger blind
	// (text-level) reader; Residual is s* - c - eps of the highest level run.
	VideoDependence *float64 `json:"video_dependence"`
	Residual        *float64 `json:"residual"`
	// The pool regression's learning curve (accuracy per tenth of the
	// positions, averaged over orders) and its ALC (see AttackerResult).
	LearningCurve []float64 `json:"learning_curve,omitempty"`
	ALC           *float64  `json:"alc"`

	NearDuplicateShare *float64 `json:"near_duplicate_share"`
	// CrossBenchmarkDuplicates counts the benchmark's items with a near
	// duplicate in another benchmark; CrossBenchmarkFlows splits the pairs
	// by the other benchmark.
	CrossBenchmarkDuplicates *int   `json:"cross_benchmark_duplicates"`
	CrossBenchmarkFlows      []Flow `json:"cross_benchmark_flows,omitempty"`
	// DistinctClusters is the number of near-duplicate clusters within the
	// benchmark; SharedVideos the number of its videos another benchmark
	// uses too, split by benchmark in SharedVideoFlows.
	DistinctClusters *int   `json:"distinct_clusters"`
	SharedVideos     *int   `json:"shared_videos"`
	SharedVideoFlows []Flow `json:"shared_video_flows,omitempty"`
	// WeightedReferenceAccuracy is s* with each item weighted by the inverse
	// size of its near-duplicate cluster within the benchmark.
	WeightedReferenceAccuracy *float64 `json:"weighted_reference_accuracy"`
	// UnconfirmedDuplicates counts the near-duplicate pairs touching the
	// benchmark that the first embedder found and the confirming one
	// rejected (dups.Confirm); absent when no second model confirmed them.
	UnconfirmedDuplicates *int `json:"unconfirmed_duplicate_pairs,omitempty"`
	// Models holds each evaluated model's accuracy and residual (see
	// WithModels); absent when no predictions were given.
	Models []ModelResult `json:"models,omitempty"`
}

// Levels holds the exploitability of each level run; a level that did not
// run (and has none below it that did) is null.
type Levels struct {
	Option *LevelResult `json:"option"`
	Text   *LevelResult `json:"text"`
	Pool   *LevelResult `json:"pool"`
}

// A LevelResult is eps_l, the largest margin over chance of any attacker at
// or below level l (Video-Index eq. 1, nested sets), and who reached it.
type LevelResult struct {
	Eps         float64 `json:"eps"`
	Attacker    string  `json:"attacker"`
	Significant bool    `json:"significant"`
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
	// Accuracy is the share answered correctly, averaged over the orders the
	// attacker ran on; for a prequential attacker only the final stage (the
	// last 20% of each order's positions) counts, where it has learned from
	// the rest (Video-Index appendix: "final-stage margin").
	Accuracy float64 `json:"accuracy"`
	// Margin is Accuracy minus the chance of the same items.
	Margin float64 `json:"margin"`
	// N is the number of items scored per order.
	N int `json:"n"`
	// CILow and CIHigh bound Accuracy: the seeded bootstrap percentile
	// interval over items (each item's correctness averaged over the orders
	// in which it was scored).
	CILow       float64 `json:"ci_low"`
	CIHigh      float64 `json:"ci_high"`
	Chance      float64 `json:"chance"`
	Significant bool    `json:"significant"`
	Orders      int     `json:"orders"`
	// AccuracyAll is the accuracy over every position, early ones included.
	AccuracyAll float64 `json:"accuracy_all"`
	// AbstainShare is the share of predictions that were seeded guesses.
	AbstainShare float64 `json:"abstain_share"`
	// SolvedShare is the share of items whose mean margin
	// log p(gold) - mean log p(others) exceeds log 2 (DESIGN.md, screening).
	SolvedShare float64 `json:"solved_share"`
	// LearningCurve is the accuracy in each tenth of the positions of the
	// orders (averaged over orders), for prequential attackers only.
	LearningCurve []float64 `json:"learning_curve,omitempty"`
	// ALC is the normalised area under the learning curve: the mean over the
	// tenths of (acc - c)/(1 - c), with c the chance of that tenth's items;
	// 0 at chance throughout, 1 when every answer is right from the start
	// (Video-Index appendix, tables 14-15, reported there in %).
	ALC *float64 `json:"alc"`
}
