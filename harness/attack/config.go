package attack

import (
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// Config sets the attackers of a run. The zero value is not meaningful; start
// from DefaultConfig.
type Config struct {
	// Levels selects the attackers: those of every listed level run.
	Levels []harness.Level `json:"levels"`
	// Orders is the number of seeded random orders each prequential attacker
	// runs on (Video-Index 3.4: five rotating splits).
	Orders int `json:"orders"`
	// CopyThreshold is the question cosine at or above which the copy
	// attacker lends the nearest earlier answer (Video-Index 3.4: 0.9).
	CopyThreshold float64 `json:"copy_threshold"`
	// K is the number of nearest earlier question-answer pairs the k-NN vote
	// reads (Video-Index 3.4: eight).
	K int `json:"k"`
	// SGD configures the pool regression (DESIGN.md, pool level: alpha 1e-4,
	// eta 0.03, averaged weights, standardised features divided by
	// sqrt(dim), one-hot of the option count).
	SGD SGDParams `json:"sgd"`
	// ChoiceSGD configures the conditional-logit learners (option artifacts,
	// siblings). Their features are few and hand-made, so they use the same
	// step and penalty as the regression.
	ChoiceSGD SGDParams `json:"choice_sgd"`
	// Threads bounds the kernels' parallelism; results do not depend on it.
	Threads int `json:"-"`
	// Cache, shared by every copy of the configuration, lets the attackers
	// of separate Attackers calls share work that does not depend on the
	// order (see Cache). Nil gives each Attackers call its own.
	Cache *Cache `json:"-"`
}

// DefaultConfig returns the parameters of DESIGN.md and Video-Index 3.4 for
// the option, text and pool levels.
func DefaultConfig() Config {
	sgd := SGDParams{Alpha: 1e-4, Eta: 0.03, Average: true, Standardize: true, OneHotClasses: true}
	choice := SGDParams{Alpha: 1e-4, Eta: 0.03, Average: true, Standardize: true}
	return Config{
		Levels:        []harness.Level{harness.LevelOption, harness.LevelText, harness.LevelPool},
		Orders:        5,
		CopyThreshold: 0.90,
		K:             8,
		SGD:           sgd,
		ChoiceSGD:     choice,
		Cache:         NewCache(),
	}
}

// SGDParams are the parameters of an online logistic regression: the L2
// penalty Alpha, the step Eta, whether the averaged weights predict, whether
// features are standardised online (and divided by sqrt(dim)), and whether a
// one-hot of the option count joins the features. They mirror
// kernels.SGDConfig so that a run's configuration is plain data.
type SGDParams struct {
	Alpha         float64 `json:"alpha"`
	Eta           float64 `json:"eta"`
	Average       bool    `json:"average"`
	Standardize   bool    `json:"standardize"`
	OneHotClasses bool    `json:"one_hot_classes"`
}

func (c Config) has(l harness.Level) bool {
	for _, x := range c.Levels {
		if x == l {
			return true
		}
	}
	return false
}

func (c Config) kernelOptions() kernels.Options { return kernels.Options{Threads: c.Threads} }

// Attackers returns the attackers of cfg's levels in a fixed order: by level,
// then as listed here. Reports use this order for their columns.
func Attackers(cfg Config) []Attacker {
	cache := cfg.Cache
	if cache == nil {
		cache = NewCache()
	}
	var out []Attacker
	if cfg.has(harness.LevelOption) {
		out = append(out, &fixedPosition{}, &optionArtifact{cfg: cfg, cache: cache})
	}
	if cfg.has(harness.LevelText) {
		out = append(out, &lexicalMatch{})
	}
	if cfg.has(harness.LevelPool) {
		out = append(out,
			&positionPrior{},
			&copyAttacker{cfg: cfg, cache: cache},
			&siblings{cfg: cfg},
			&knnVote{cfg: cfg, cache: cache},
			&regression{cfg: cfg},
		)
	}
	return out
}

// A prequentialAttacker learns from the gold answers of earlier items of the
// stream, so its answers depend on the order and it runs on several.
type prequentialAttacker interface{ prequential() }

// Prequential reports whether a learns from earlier items of the stream; its
// answers then depend on the order, it runs on cfg.Orders orders, and its
// margin is read on the final positions of each order.
func Prequential(a Attacker) bool {
	_, ok := a.(prequentialAttacker)
	return ok
}

// Variants is the number of orders attacker a runs on: 1 for an attacker that
// answers each item on its own, cfg.Orders for one that learns.
func Variants(a Attacker, cfg Config) int {
	if Prequential(a) && cfg.Orders > 1 {
		return cfg.Orders
	}
	return 1
}

type textUser interface{ usesText() }
type questionUser interface{ usesQuestion() }

// NeedsText reports whether a reads Stream.Text (question+options embeddings).
func NeedsText(a Attacker) bool { _, ok := a.(textUser); return ok }

// NeedsQuestion reports whether a reads Stream.Question (question embeddings).
func NeedsQuestion(a Attacker) bool { _, ok := a.(questionUser); return ok }
