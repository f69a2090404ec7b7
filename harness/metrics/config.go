package metrics

import "github.com/vidscreen/vidscreen/harness/attack"

// Config sets how cards are computed.
type Config struct {
	// Attack is the attack configuration of the run: it says which attackers
	// ran, at which level, in which column order, and which learn.
	Attack attack.Config
	// Seed seeds the bootstrap.
	Seed uint64
	// BootstrapReps is the number of bootstrap resamples (1000) and CILevel
	// the interval's coverage (0.95).
	BootstrapReps int
	CILevel       float64
	// Embedder names the text embedder of the run, for the cards.
	Embedder string
	// Samples describes, per benchmark, how its items were drawn when the
	// run audits a sample; a benchmark not listed is audited whole.
	Samples map[string]Sample
	// CurveBuckets is the number of points of a learning curve.
	CurveBuckets int
	// Deltas are the tolerances of the breaking level (Video-Index section 2:
	// 0.05, about the 95% sampling margin of a 300-item accuracy; docs/attackers.md
	// asks for 0.03 and 0.08 too).
	Deltas []float64
	// Failures, when not nil, says per item of the run why its video gave
	// no features ("" when it did): a benchmark every one of whose videos
	// failed gets its frame and order levels marked not run.
	Failures []string `json:"-"`
	// Threads bounds the bootstrap's goroutines; results do not depend on it.
	Threads int `json:"-"`
}

// DefaultConfig returns the parameters of docs/attackers.md for cfg's attackers.
func DefaultConfig(cfg attack.Config) Config {
	return Config{
		Attack:        cfg,
		BootstrapReps: 1000,
		CILevel:       0.95,
		CurveBuckets:  10,
		Deltas:        []float64{0.03, 0.05, 0.08},
	}
}
