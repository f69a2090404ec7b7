package release

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Event types the selector can rotate over (Query.Events).
const (
	EventsTask  = "task"  // the item's task (fine)
	EventsGroup = "group" // the item's capability group (coarse)
)

// What Hardest takes K items of (Query.Per).
const (
	PerGroup     = "group"
	PerTask      = "task"
	PerBenchmark = "benchmark"
)

// A Query is what a release asks of the pool: which items may enter, how
// many, and under which caps. It is written to the lockfile as it is.
type Query struct {
	// Budget is the number of items of a coverage composition.
	Budget int `json:"budget,omitempty"`
	// Sources and Durations, when set, admit only items of these
	// benchmarks and duration groups (DurationGroups).
	Sources   []string `json:"sources,omitempty"`
	Durations []string `json:"durations,omitempty"`
	// Events is the event type the composition rotates over: EventsTask or
	// EventsGroup.
	Events string `json:"events,omitempty"`
	// Caps are the initial caps of a composition.
	Caps *Caps `json:"caps,omitempty"`
	// Hardest, when above 0, asks for the Hardest items per Per instead of
	// a composition.
	Hardest int    `json:"hardest,omitempty"`
	Per     string `json:"per,omitempty"`
	// AdmitSuspects records that the pool kept the items the answer
	// verification flagged answer_suspect (selection.Spec.AdmitSuspects,
	// --admit-suspects; by default they are left out before selection, as
	// the authors' compose_verify drops them). The filter runs before the
	// pool reaches Select, so without this field two releases differing
	// only in it, over a pool with no suspect among the picks, would have
	// the same lockfile and name. Omitted when false, so that the names of
	// releases that did not admit suspects stay as they were.
	AdmitSuspects bool `json:"admit_suspects,omitempty"`
}

// ErrNotInPool is the reason a query naming a source the pool does not
// hold is refused.
var ErrNotInPool = errors.New("not in the screened pool")

// Caps bound how much of a composition one video, scene, question template
// or source may take: the parameters of Video-Index's pool/select.py (k, j,
// m, share, j_max, k_scarce).
type Caps struct {
	// PerVideo is the items one video may give (the authors' k).
	PerVideo int `json:"per_video"`
	// PerScene is the videos one visual scene may give (the authors' j:
	// "J videos per visual scene cluster"); a second item of a video
	// already taken passes it.
	PerScene int `json:"per_scene"`
	// PerTemplate is the items one question template of one source may
	// give (the authors' m).
	PerTemplate int `json:"per_template"`
	// SourceShare is the largest share of the budget one source may hold;
	// it applies only when the query admits several sources.
	SourceShare float64 `json:"source_share"`
	// SceneMax is how far a duration group's relaxation raises its scene
	// cap (the authors' j_max, 4); VideoScarce is the items one video may
	// give in a scarce cell (k_scarce, 3). Zero takes those defaults.
	SceneMax    int `json:"scene_max,omitempty"`
	VideoScarce int `json:"video_scarce,omitempty"`
	// Groups holds, per duration group, the caps its relaxations reached;
	// a group it does not name has the initial caps. Select fills it, and
	// the red-team gate's refill starts from it.
	Groups map[string]GroupCaps `json:"groups,omitempty"`
}

// GroupCaps are one duration group's caps after its relaxations.
type GroupCaps struct {
	PerScene    int `json:"per_scene"`
	PerTemplate int `json:"per_template"`
	// SourceExempt is true once the group no longer honours the per-source
	// cap (the last step of the authors' relaxation).
	SourceExempt bool `json:"source_exempt,omitempty"`
}

// DefaultCaps are the initial caps of Video-Index 5.2: "one item per video
// and visual scene, five per question template, and 5% of the budget per
// source", with the relaxation bound and the scarce cells' video cap of
// the authors' pool/select.py (j_max = 4, k_scarce = 3).
func DefaultCaps() Caps {
	return Caps{PerVideo: 1, PerScene: 1, PerTemplate: 5, SourceShare: 0.05, SceneMax: 4, VideoScarce: 3}
}

// sceneMax and videoScarce are SceneMax and VideoScarce or their defaults.
func (c Caps) sceneMax() int    { return cmp.Or(c.SceneMax, 4) }
func (c Caps) videoScarce() int { return cmp.Or(c.VideoScarce, 3) }

// perSource is the number of items SourceShare allows one source: the share
// of the budget rounded down, at least one.
func (c Caps) perSource(budget int) int {
	return max(1, int(math.Floor(c.SourceShare*float64(budget)+1e-9)))
}

func (c Caps) check() error {
	if c.PerVideo < 1 || c.PerScene < 1 || c.PerTemplate < 1 {
		return fmt.Errorf("caps per video, scene and template must be at least 1 (have %d, %d, %d)", c.PerVideo, c.PerScene, c.PerTemplate)
	}
	if !(c.SourceShare > 0 && c.SourceShare <= 1) {
		return fmt.Errorf("source share %v: want a share in (0, 1]", c.SourceShare)
	}
	if c.SceneMax < 0 || c.VideoScarce < 0 {
		return fmt.Errorf("scene cap bound %d and scarce cells' video cap %d must not be negative", c.SceneMax, c.VideoScarce)
	}
	return nil
}

// Check refuses a query that cannot be answered: no budget and no hardest
// count, both at once, an unknown event type, duration group or grouping,
// or caps out of range. Sources are checked against a pool by Select.
func (q Query) Check() error {
	switch {
	case q.Hardest < 0 || q.Budget < 0:
		return errors.New("budget and hardest count must not be negative")
	case q.Hardest > 0 && q.Budget > 0:
		return errors.New("a budget and a hardest count exclude each other: a release is a composition or the hardest items, not both")
	case q.Hardest == 0 && q.Budget == 0:
		return errors.New("no budget: ask for a composition of N items (budget) or the hardest K per group")
	}
	if q.Events != "" && q.Events != EventsTask && q.Events != EventsGroup {
		return fmt.Errorf("event type %q: want %s or %s", q.Events, EventsTask, EventsGroup)
	}
	if q.Per != "" && !slices.Contains([]string{PerGroup, PerTask, PerBenchmark}, q.Per) {
		return fmt.Errorf("per %q: want %s, %s or %s", q.Per, PerGroup, PerTask, PerBenchmark)
	}
	if err := checkDurations(q.Durations); err != nil {
		return err
	}
	if q.Caps != nil {
		return q.Caps.check()
	}
	return nil
}

// admits reports whether the query's filters let candidate c in.
func (q Query) admits(c *Candidate) bool {
	if len(q.Sources) > 0 && !slices.Contains(q.Sources, c.Item.Benchmark) {
		return false
	}
	if len(q.Durations) > 0 && !slices.Contains(q.Durations, DurationGroup(c.Item)) {
		return false
	}
	return true
}

// checkSources refuses a source the pool does not hold: a typo would
// otherwise give a smaller release without a word.
func (q Query) checkSources(p *Pool) error {
	have := map[string]bool{}
	for i := range p.Candidates {
		have[p.Candidates[i].Item.Benchmark] = true
	}
	for _, s := range q.Sources {
		if !have[s] {
			names := make([]string, 0, len(have))
			for n := range have {
				names = append(names, n)
			}
			slices.Sort(names)
			return fmt.Errorf("source %q: %w (it holds %s)", s, ErrNotInPool, joinNames(names))
		}
	}
	return nil
}
