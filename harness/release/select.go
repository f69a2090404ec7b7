package release

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// A Selection is what a selector drew: pool indices in the order they were
// taken, the caps in force at the end, and every relaxation on the way.
type Selection struct {
	Picks       []int
	Caps        Caps
	Relaxations []Relaxation
	// Shortfall says why the selection holds fewer items than asked; empty
	// when it holds them all.
	Shortfall string
}

// A Relaxation is one step of a cap that the pool could not honour.
type Relaxation struct {
	// Round is the red-team round that selected (0: the first selection).
	Round int `json:"round"`
	// Selected is how many items were selected when the cap was relaxed.
	Selected int    `json:"selected"`
	Cap      string `json:"cap"` // per_source, per_template, per_scene or per_video
	From     string `json:"from"`
	To       string `json:"to"`
	// Blocked is how many admissible candidates were left, all blocked by
	// some cap; Only is how many of them this cap alone blocked.
	Blocked int    `json:"blocked"`
	Only    int    `json:"only"`
	Reason  string `json:"reason"`
}

// The caps, in the order the selector relaxes them when two block equally
// many candidates: a source's share first, one item per video last, as
// repeated videos are what a composition must avoid most (Video-Index 5.1).
const (
	capSource   = "per_source"
	capTemplate = "per_template"
	capScene    = "per_scene"
	capVideo    = "per_video"
)

var capOrder = []string{capSource, capTemplate, capScene, capVideo}

// Select draws a coverage composition of q.Budget items from p (Video-Index
// 5.2). It keeps the items of keep first (a refill after the red-team gate
// dropped some; they count against the caps as they stand) and never takes
// an item whose exclude entry is true (nil excludes nothing).
//
// The selector draws round-robin: duration groups in turn, within each its
// event types in turn, within each of those its sources in turn, and from a
// source the first admissible item of its preference order: fewer items of
// its question template in the pool first, then a lower worst-case attacker
// percentile (Hardness), then a seeded hash of its key. Duration groups,
// event types and sources are visited in an order seeded by seed. An item
// is admissible while its video, scene, template and source are under their
// caps. When no cell can give an item and the budget is not met, the cap
// that blocks the most remaining candidates on its own (else the most in
// all) is relaxed one step, recorded with its reason, and the draw goes on;
// when no candidate is left, the selection ends short and says why.
func Select(p *Pool, q Query, seed uint64, keep []int, exclude []bool) (*Selection, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	if q.Budget <= 0 {
		return nil, fmt.Errorf("select: no budget")
	}
	if err := q.checkSources(p); err != nil {
		return nil, err
	}
	caps := DefaultCaps()
	if q.Caps != nil {
		caps = *q.Caps
	}
	s := newSelector(p, q.Budget, caps)
	for _, i := range keep {
		if i < 0 || i >= len(p.Candidates) || s.picked[i] {
			return nil, fmt.Errorf("select: kept item %d out of range or kept twice", i)
		}
		s.pick(i)
	}
	events := q.Events
	if events == "" {
		events = EventsTask
	}
	var admissible []int
	for i := range p.Candidates {
		if (exclude == nil || !exclude[i]) && !s.picked[i] && q.admits(&p.Candidates[i]) {
			admissible = append(admissible, i)
		}
	}
	tree := buildTree(p, admissible, seed, func(c *Candidate) string { return eventOf(c.Item, events) })
	for len(s.sel.Picks) < q.Budget {
		if s.pass(tree) {
			continue
		}
		if !s.relax(admissible) {
			break
		}
		for _, d := range tree {
			for _, e := range d.events {
				for _, l := range e.leaves {
					l.cursor = 0
				}
			}
		}
	}
	if n := len(s.sel.Picks); n < q.Budget {
		s.sel.Shortfall = fmt.Sprintf("the pool admits only %d items for a budget of %d: every admissible candidate is selected", n, q.Budget)
	}
	s.sel.Caps = s.caps
	return s.sel, nil
}

// selector is the state of one draw.
type selector struct {
	p         *Pool
	budget    int
	caps      Caps
	picked    []bool
	videos    map[string]int
	scenes    map[string]int
	templates map[string]int
	sources   map[string]int
	sel       *Selection
	// sceneKey and templateKey are each candidate's scene and template
	// keys, built once: the draw looks them up for every candidate it reads.
	sceneKey, templateKey []string
}

func newSelector(p *Pool, budget int, caps Caps) *selector {
	s := &selector{p: p, budget: budget, caps: caps, picked: make([]bool, len(p.Candidates)),
		videos: map[string]int{}, scenes: map[string]int{}, templates: map[string]int{}, sources: map[string]int{},
		sel: &Selection{}, sceneKey: make([]string, len(p.Candidates)), templateKey: make([]string, len(p.Candidates))}
	for i := range p.Candidates {
		s.sceneKey[i], s.templateKey[i] = p.Candidates[i].scene(), p.Candidates[i].template()
	}
	return s
}

func (s *selector) pick(i int) {
	c := &s.p.Candidates[i]
	s.picked[i] = true
	s.videos[c.video()]++
	s.scenes[s.sceneKey[i]]++
	s.templates[s.templateKey[i]]++
	s.sources[c.Item.Benchmark]++
	s.sel.Picks = append(s.sel.Picks, i)
}

// blockers lists the caps that keep candidate i out, in capOrder.
func (s *selector) blockers(i int) []string {
	c := &s.p.Candidates[i]
	var out []string
	if s.sources[c.Item.Benchmark] >= s.caps.perSource(s.budget) {
		out = append(out, capSource)
	}
	if s.templates[s.templateKey[i]] >= s.caps.PerTemplate {
		out = append(out, capTemplate)
	}
	if s.scenes[s.sceneKey[i]] >= s.caps.PerScene {
		out = append(out, capScene)
	}
	if s.videos[c.video()] >= s.caps.PerVideo {
		out = append(out, capVideo)
	}
	return out
}

// blockedInSource reports whether a cap other than the source's blocks i.
// Between two relaxations the counts only grow, so an item blocked once
// stays blocked until the next relaxation.
func (s *selector) blockedInSource(i int) bool {
	c := &s.p.Candidates[i]
	return s.templates[s.templateKey[i]] >= s.caps.PerTemplate || s.scenes[s.sceneKey[i]] >= s.caps.PerScene || s.videos[c.video()] >= s.caps.PerVideo
}

// A leaf is one source of one (duration group, event type) cell: its
// candidates in preference order and how far the draw has read them.
type leaf struct {
	source string
	items  []int
	cursor int
}

type eventNode struct {
	name   string
	leaves []*leaf
	next   int
}

type durationNode struct {
	name   string
	events []*eventNode
	next   int
}

// buildTree groups the admissible candidates by duration group, event type
// and source, each level in a seeded order, each source's candidates in
// preference order.
func buildTree(p *Pool, admissible []int, seed uint64, event func(*Candidate) string) []*durationNode {
	ranks := itemRanks(p, admissible, seed, "item")
	type path struct{ d, e, s string }
	cells := map[path][]int{}
	for _, i := range admissible {
		c := &p.Candidates[i]
		k := path{DurationGroup(c.Item), event(c), c.Item.Benchmark}
		cells[k] = append(cells[k], i)
	}
	byName := func(tag string) func(a, b string) int {
		return func(a, b string) int {
			return cmp.Or(cmp.Compare(rank(seed, tag, a), rank(seed, tag, b)), strings.Compare(a, b))
		}
	}
	durs := map[string]*durationNode{}
	evs := map[[2]string]*eventNode{}
	var dnames []string
	for k, items := range cells {
		d, ok := durs[k.d]
		if !ok {
			d = &durationNode{name: k.d}
			durs[k.d] = d
			dnames = append(dnames, k.d)
		}
		e, ok := evs[[2]string{k.d, k.e}]
		if !ok {
			e = &eventNode{name: k.e}
			evs[[2]string{k.d, k.e}] = e
			d.events = append(d.events, e)
		}
		slices.SortFunc(items, func(a, b int) int {
			ca, cb := &p.Candidates[a], &p.Candidates[b]
			if c := cmp.Or(cmp.Compare(ca.TemplateSize, cb.TemplateSize), cmp.Compare(p.hardness[a], p.hardness[b]),
				cmp.Compare(ranks[a], ranks[b])); c != 0 {
				return c
			}
			return strings.Compare(ca.Item.Key(), cb.Item.Key()) // equal hashes: the key decides
		})
		e.leaves = append(e.leaves, &leaf{source: k.s, items: items})
	}
	slices.SortFunc(dnames, byName("duration"))
	out := make([]*durationNode, len(dnames))
	for k, n := range dnames {
		d := durs[n]
		slices.SortFunc(d.events, func(a, b *eventNode) int { return byName("event/"+n)(a.name, b.name) })
		for _, e := range d.events {
			slices.SortFunc(e.leaves, func(a, b *leaf) int { return byName("source/"+n+"/"+e.name)(a.source, b.source) })
		}
		out[k] = d
	}
	return out
}

// pass gives every duration group one turn; it reports whether any took an
// item.
func (s *selector) pass(tree []*durationNode) bool {
	took := false
	for _, d := range tree {
		if len(s.sel.Picks) >= s.budget {
			return true
		}
		if s.fromDuration(d) {
			took = true
		}
	}
	return took
}

func (s *selector) fromDuration(d *durationNode) bool {
	for k := range d.events {
		j := (d.next + k) % len(d.events)
		if s.fromEvent(d.events[j]) {
			d.next = (j + 1) % len(d.events)
			return true
		}
	}
	return false
}

func (s *selector) fromEvent(e *eventNode) bool {
	for k := range e.leaves {
		j := (e.next + k) % len(e.leaves)
		if s.fromLeaf(e.leaves[j]) {
			e.next = (j + 1) % len(e.leaves)
			return true
		}
	}
	return false
}

func (s *selector) fromLeaf(l *leaf) bool {
	if s.sources[l.source] >= s.caps.perSource(s.budget) {
		return false
	}
	for l.cursor < len(l.items) {
		i := l.items[l.cursor]
		l.cursor++
		if s.picked[i] || s.blockedInSource(i) {
			continue
		}
		s.pick(i)
		return true
	}
	return false
}

// relax loosens the cap that blocks the most remaining candidates on its
// own (else the most in all; ties in capOrder) by one step and records it.
// It returns false when no candidate is left to unblock.
func (s *selector) relax(admissible []int) bool {
	only := map[string]int{}
	all := map[string]int{}
	left := 0
	for _, i := range admissible {
		if s.picked[i] {
			continue
		}
		left++
		bs := s.blockers(i)
		for _, b := range bs {
			all[b]++
		}
		if len(bs) == 1 {
			only[bs[0]]++
		}
	}
	if left == 0 {
		return false
	}
	best := ""
	for _, c := range capOrder {
		if all[c] == 0 {
			continue
		}
		if best == "" || only[c] > only[best] || only[c] == only[best] && only[c] == 0 && all[c] > all[best] {
			best = c
		}
	}
	if best == "" {
		// Unreachable: a candidate left unpicked after a pass without picks
		// is blocked by some cap.
		return false
	}
	from := s.capValue(best)
	switch best {
	case capSource:
		// Double the share until it admits another item: a step that
		// leaves the count where it was relaxes nothing.
		before := s.caps.perSource(s.budget)
		for s.caps.SourceShare < 1 && s.caps.perSource(s.budget) == before {
			s.caps.SourceShare = min(1, 2*s.caps.SourceShare)
		}
	case capTemplate:
		s.caps.PerTemplate *= 2
	case capScene:
		s.caps.PerScene++
	case capVideo:
		s.caps.PerVideo++
	}
	var parts []string
	for _, c := range capOrder {
		if all[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s blocks %d (%d by it alone)", c, all[c], only[c]))
		}
	}
	s.sel.Relaxations = append(s.sel.Relaxations, Relaxation{
		Selected: len(s.sel.Picks), Cap: best, From: from, To: s.capValue(best), Blocked: left, Only: only[best],
		Reason: fmt.Sprintf("%d of %d selected and no cell can give another: %d admissible candidates left, all over a cap: %s",
			len(s.sel.Picks), s.budget, left, strings.Join(parts, "; ")),
	})
	return true
}

// capValue says a cap's current value as a person reads it.
func (s *selector) capValue(c string) string {
	switch c {
	case capSource:
		return fmt.Sprintf("%g%% of the budget (%s)", 100*s.caps.SourceShare, itemCount(s.caps.perSource(s.budget)))
	case capTemplate:
		return fmt.Sprint(s.caps.PerTemplate)
	case capScene:
		return fmt.Sprint(s.caps.PerScene)
	default:
		return fmt.Sprint(s.caps.PerVideo)
	}
}

// itemRanks is the seeded hash of each candidate's key under tag, computed
// once for the candidates of idx (the sorts read it many times).
func itemRanks(p *Pool, idx []int, seed uint64, tag string) []uint64 {
	out := make([]uint64, len(p.Candidates))
	for _, i := range idx {
		out[i] = rank(seed, tag, p.Candidates[i].Item.Key())
	}
	return out
}

// itemCount says n items in words.
func itemCount(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}
