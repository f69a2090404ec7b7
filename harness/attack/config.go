package attack

import (
	"fmt"
	"slices"

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
	// SGD configures the pool regression (docs/attackers.md, pool level: alpha 1e-4,
	// eta 0.03, averaged weights, standardised features divided by
	// sqrt(dim), one-hot of the option count).
	SGD SGDParams `json:"sgd"`
	// ChoiceSGD configures the conditional-logit learners (option artifacts,
	// siblings). Their features are few and hand-made, so they use the same
	// step and penalty as the regression.
	ChoiceSGD SGDParams `json:"choice_sgd"`
	// Roles lists the model roles the run has (image_text, text_embed,
	// captioner); the frame and order attackers whose role is missing are
	// left out (see Skipped).
	Roles []string `json:"roles,omitempty"`
	// Reader is the lm_reader role, when the run has one; the model readers
	// need it (and RoleLMReader in Roles).
	Reader LetterReader `json:"-"`
	// Extra holds the later lm_reader entries of models.json, in its order:
	// each runs the blind test again as blind-reader#2, #3, ... (a further
	// model of the Video-Oasis blind test, DiagnosticOnly), and nothing else.
	Extra []LetterReader `json:"-"`
	// ExtraVLM is the number of later vlm_reader entries of models.json
	// whose scores the feature stage gives under VLMModelKey: each runs
	// centre-frame-reader#<k+1> and shuffled-frames-reader#<k+1>, further
	// models of those Video-Oasis tests (diagnostic only).
	ExtraVLM int `json:"-"`
	// VLMOwnFrames says the VLM readers' frames come from the decode pass
	// without an image tower (every VLM reader served: the server sizes
	// its images, so no image_text preprocessing is needed): they then run
	// without RoleImageText.
	VLMOwnFrames bool `json:"-"`
	// BagK is how many frames the bag-of-frames attackers keep (Video-Oasis:
	// the top 32 of the ~1 fps set by similarity to the question).
	BagK int `json:"bag_k,omitempty"`
	// Permutations is how many seeded permutations of each item's options
	// the option-permutation audit of the model readers scores besides the
	// original order: 0 means OptionPermutations, and a negative count turns
	// the audit off. The audit multiplies a reader's prompts (nine times on
	// the default), which a pool of 500,000 items may not want to pay.
	Permutations int `json:"permutations,omitempty"`
	// CrossPool adds, at the pool level, the cross-pool variants of the copy
	// and k-NN attackers (copy-xpool, knn-vote-xpool): their store is
	// preloaded with the run's other benchmarks (the blog, 001, tables
	// 14-15, superscript c). They are reported beside the within-benchmark
	// variants and enter no level's eps, so that a benchmark's eps does not
	// depend on which other benchmarks share its run.
	CrossPool bool `json:"cross_pool,omitempty"`
	// Threads bounds the kernels' parallelism; results do not depend on it.
	Threads int `json:"-"`
	// Joiner and Searcher run the attackers' searches (the copy joins,
	// the k-NN, cross-store and retrieval top-k): a GPU's backend, or nil
	// for the CPU kernels (kernels.Options). Every backend finds the
	// CPU's pairs and neighbours, so the predictions do not depend on it.
	Joiner   kernels.Joiner            `json:"-"`
	Searcher kernels.NeighbourSearcher `json:"-"`
	// Cache, shared by every copy of the configuration, lets the attackers
	// of separate Attackers calls share work that does not depend on the
	// order (see Cache). Nil gives each Attackers call its own.
	Cache *Cache `json:"-"`
}

// DefaultConfig returns the parameters of docs/attackers.md and Video-Index 3.4 for
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

func (c Config) kernelOptions() kernels.Options {
	return kernels.Options{Threads: c.Threads, Joiner: c.Joiner, Searcher: c.Searcher}
}

// Attackers returns the attackers of cfg's levels in a fixed order: by level,
// then as listed here. Reports use this order for their columns.
func Attackers(cfg Config) []Attacker {
	cache := cfg.Cache
	if cache == nil {
		cache = NewCache()
	}
	cfg.Cache = cache // the model attackers that search the pool share it
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
		if cfg.CrossPool {
			out = append(out, &copyXPool{cfg: cfg, cache: cache}, &knnXPool{cfg: cfg, cache: cache})
		}
	}
	for _, f := range frameAttackers(cfg) {
		if f.missing == "" {
			out = append(out, f.a)
		}
	}
	// The model attackers join their levels' columns.
	slices.SortStableFunc(out, func(a, b Attacker) int { return int(a.Level()) - int(b.Level()) })
	return out
}

// A frameAttacker is one attacker that runs a model (reads the video, or
// asks lm_reader), with the role it lacks in cfg ("" when it can run).
type frameAttacker struct {
	a       Attacker
	missing string
}

// frameAttackers lists the attackers of cfg's levels that need a model
// role, by level, then as listed here.
func frameAttackers(cfg Config) []frameAttacker {
	var out []frameAttacker
	add := func(a Attacker, roles ...string) {
		fa := frameAttacker{a: a}
		for _, r := range roles {
			if !slices.Contains(cfg.Roles, r) {
				fa.missing = r
				break
			}
		}
		out = append(out, fa)
	}
	if cfg.has(harness.LevelOption) {
		add(&optionsReader{cfg.Reader}, RoleLMReader)
	}
	if cfg.has(harness.LevelText) {
		add(&blindReader{r: cfg.Reader}, RoleLMReader)
		for k, r := range cfg.Extra {
			add(&blindReader{r: r, model: k + 1}, RoleLMReader)
		}
	}
	if cfg.has(harness.LevelPool) {
		add(&retrievalReader{cfg: cfg, cache: cfg.Cache, r: cfg.Reader}, RoleLMReader)
		if cfg.CrossPool {
			add(&retrievalXPool{cfg: cfg, cache: cfg.Cache, r: cfg.Reader}, RoleLMReader)
		}
	}
	if cfg.has(harness.LevelFrame) {
		add(&centreFrame{}, RoleImageText)
		add(&centreFrame{withQuestion: true}, RoleImageText)
		add(&captionsMatch{}, RoleCaptioner, RoleTextEmbed)
		add(&captionsReader{cfg.Reader}, RoleCaptioner, RoleLMReader)
		// The VLM readers' frames come from the feature stage, which runs
		// only with an image tower to drive it, unless every VLM reader is
		// served (VLMOwnFrames).
		vlm := []string{RoleVLMReader, RoleImageText}
		if cfg.VLMOwnFrames {
			vlm = vlm[:1]
		}
		add(&centreReader{}, vlm...)
		for k := range cfg.ExtraVLM {
			add(&vlmExtra{base: &centreReader{}, set: VLMCentre, need: NeedVLMCentre, model: k + 1}, vlm...)
		}
		// The audio test (Video-Oasis 3.1), only where the models
		// directory has an asr role, as screen_reader: without it nothing
		// is skipped. Its transcripts come from the same feature stage.
		if slices.Contains(cfg.Roles, RoleASR) {
			add(&transcriptMatch{}, RoleASR, RoleImageText)
			add(&transcriptReader{cfg.Reader}, RoleASR, RoleLMReader, RoleImageText)
		}
	}
	if cfg.has(harness.LevelOrder) {
		k := cfg.BagK
		if k <= 0 {
			k = 32
		}
		add(&bagOfFrames{k: k}, RoleImageText)
		add(&bagOfFrames{k: k, useMax: true}, RoleImageText)
		vlm := []string{RoleVLMReader, RoleImageText}
		if cfg.VLMOwnFrames {
			vlm = vlm[:1]
		}
		add(&shuffledReader{}, vlm...)
		for k := range cfg.ExtraVLM {
			add(&vlmExtra{base: &shuffledReader{}, set: VLMShuffled, need: NeedVLMShuffled, model: k + 1}, vlm...)
		}
		add(&tenthReader{}, vlm...)
		add(&fullVideoReader{}, vlm...)
		for k := range cfg.ExtraVLM {
			add(&vlmExtra{base: &fullVideoReader{}, set: VLMInOrder, need: NeedVLMInOrder, model: k + 1}, vlm...)
		}
		// The redundancy check of Video-Oasis: eight chunks, each read
		// by vlm_reader (chunkreader.go).
		add(&chunkReader{}, vlm...)
		// The funnel's shuffled step on screen_reader, only where the
		// models directory has one: without it nothing is skipped.
		if slices.Contains(cfg.Roles, RoleScreenReader) {
			add(&shuffledScreenReader{}, append([]string{RoleScreenReader}, vlm...)...)
		}
	}
	return out
}

// Skipped returns one line per attacker of cfg's levels that cannot run
// because the models directory lacks its role, naming the role.
func Skipped(cfg Config) []string {
	var out []string
	for _, f := range frameAttackers(cfg) {
		if f.missing != "" {
			out = append(out, fmt.Sprintf("attacker %s skipped: the models directory has no %s role", f.a.Name(), f.missing))
		}
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
