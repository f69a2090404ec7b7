package release

import (
	"cmp"
	"fmt"
	"maps"
	"math"
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

// A Relaxation is one step of a duration group's caps that its cells
// could not honour.
type Relaxation struct {
	// Round is the red-team round that selected (0: the first selection).
	Round int `json:"round"`
	// Selected is how many items were selected when the cap was relaxed.
	Selected int `json:"selected"`
	// DurationGroup is the group whose caps were relaxed (the authors
	// relax each group on its own).
	DurationGroup string `json:"duration_group"`
	Cap           string `json:"cap"` // per_scene, per_template or per_source
	From          string `json:"from"`
	To            string `json:"to"`
	// Blocked is how many candidates of the group were left, all kept out
	// by some cap; Only is how many of them this cap alone kept out.
	Blocked int    `json:"blocked"`
	Only    int    `json:"only"`
	Reason  string `json:"reason"`
}

// The caps, in the order a relaxation's reason lists them.
const (
	capSource   = "per_source"
	capTemplate = "per_template"
	capScene    = "per_scene"
	capVideo    = "per_video"
)

var capOrder = []string{capSource, capTemplate, capScene, capVideo}

// Select draws a coverage composition of q.Budget items from p by the rules
// of Video-Index's pool/select.py (5.2). It keeps the items of keep first
// (a refill after the red-team gate dropped some; they count against the
// caps as they stand) and never takes an item whose exclude entry is true
// (nil excludes nothing).
//
//   - Preference: within a source, items with fewer pool items of their
//     source and question template first (the authors' tgroup), then a
//     lower worst-case attacker percentile (Hardness), then a seeded hash.
//   - Caps: q.Caps.PerVideo items per video, PerScene videos per visual
//     scene, PerTemplate items per (source, template), SourceShare of the
//     budget per source, the last only when the query admits several
//     sources (issue 33: a one-source release has nothing to share).
//   - Coverage pass: every (source, task) pair gets one item first, rarest
//     pairs first, from the duration group with the fewest items so far;
//     only the video and source caps apply.
//   - Scarce cells: a (duration group, event type) cell with fewer
//     candidates than its equal share of the group's share of the budget
//     takes up to VideoScarce items per video and no scene or template cap.
//   - Round-robin: duration groups in turn, within a group's turn its event
//     types in turn, within a cell its sources in turn, each source giving
//     its first admissible item. A group that can give nothing while below
//     its share of the budget relaxes its own caps one step, recorded: the
//     scene cap up to SceneMax, then the template cap doubles once, then
//     the group is exempt from the source cap; a group that cannot relax
//     (or need not) leaves the rotation.
//
// Duration groups, event types and sources take turns in an order seeded
// by seed (the authors' go in name order). When the groups are done before
// the budget is met, the selection ends short and says why.
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
		caps.Groups = maps.Clone(caps.Groups)
	}
	events := q.Events
	if events == "" {
		events = EventsTask
	}
	s := newSelector(p, q, caps, events)
	for _, i := range keep {
		if i < 0 || i >= len(p.Candidates) || s.picked[i] {
			return nil, fmt.Errorf("select: kept item %d out of range or kept twice", i)
		}
		s.take(i)
	}
	var admissible []int
	for _, i := range s.admitted {
		if (exclude == nil || !exclude[i]) && !s.picked[i] {
			admissible = append(admissible, i)
		}
	}
	s.order(admissible, seed)
	s.coverage(admissible, keep)
	s.build(admissible, seed)
	s.roundRobin()
	if n := len(s.sel.Picks); n < q.Budget {
		s.sel.Shortfall = fmt.Sprintf("the pool admits only %d items for a budget of %d under the caps: every duration group stopped, with no admissible item left and its caps relaxed as far as they go, or holding its share of the budget (%.1f; the video cap, %d, %d in scarce cells, is never relaxed)",
			n, q.Budget, s.target, s.caps.PerVideo, s.caps.videoScarce())
	}
	s.caps.Groups = nil
	for _, g := range slices.Sorted(maps.Keys(s.groups)) {
		gs := s.groups[g]
		if gs.GroupCaps != (GroupCaps{PerScene: caps.PerScene, PerTemplate: caps.PerTemplate}) {
			if s.caps.Groups == nil {
				s.caps.Groups = map[string]GroupCaps{}
			}
			s.caps.Groups[g] = gs.GroupCaps
		}
	}
	s.sel.Caps = s.caps
	return s.sel, nil
}

// cellKey is one (duration group, event type) cell.
type cellKey struct{ group, event string }

// queue is one source's candidates in a cell, in preference order, and how
// far the draw has read them.
type queue struct {
	items []int
	head  int
}

// groupState is one duration group's caps and count.
type groupState struct {
	GroupCaps
	n int // items selected in the group (the authors' n_group)
}

// selector is the state of one draw.
type selector struct {
	p      *Pool
	budget int
	caps   Caps
	picked []bool
	// admitted are the candidates the query lets in, excluded or not.
	admitted []int
	// per candidate, built once: its group and its state, its cell and
	// whether that is scarce, the ids of its video, scene, template and
	// source (the counts below are indexed by them), its preference place.
	group      []string
	gs         []*groupState
	cell       []cellKey
	scarceItem []bool
	vid, scid  []int32
	tid, sid   []int32
	pos        []int
	// perVideo, perTemplate and perSource count the selected items of each
	// id; sceneCount the videos of each scene, inScene which (scene<<32 |
	// video) were counted.
	perVideo, perTemplate, perSource, sceneCount []int
	inScene                                      map[uint64]bool
	sourceID                                     map[string]int32
	groups                                       map[string]*groupState
	scarce                                       map[cellKey]bool
	sourceCap                                    int     // math.MaxInt with one source
	target                                       float64 // a group's share of the budget
	queues                                       map[cellKey]map[string]*queue
	sources                                      map[cellKey][]string // rotation of a cell's sources
	events                                       map[string][]string  // rotation of a group's event types
	cellsOf                                      map[string][]cellKey
	blocked                                      map[cellKey][]int
	active                                       []string
	sel                                          *Selection
}

func newSelector(p *Pool, q Query, caps Caps, events string) *selector {
	n := len(p.Candidates)
	s := &selector{p: p, budget: q.Budget, caps: caps, picked: make([]bool, n),
		group: make([]string, n), gs: make([]*groupState, n), cell: make([]cellKey, n), scarceItem: make([]bool, n),
		vid: make([]int32, n), scid: make([]int32, n), tid: make([]int32, n), sid: make([]int32, n), pos: make([]int, n),
		inScene: map[uint64]bool{}, sourceID: map[string]int32{}, groups: map[string]*groupState{}, scarce: map[cellKey]bool{},
		queues: map[cellKey]map[string]*queue{}, sources: map[cellKey][]string{}, events: map[string][]string{},
		cellsOf: map[string][]cellKey{}, blocked: map[cellKey][]int{}, sel: &Selection{}}
	cellSize := map[cellKey]int{}
	sources := map[string]bool{}
	videoID, sceneID, templateID := map[string]int32{}, map[string]int32{}, map[string]int32{}
	id := func(m map[string]int32, k string) int32 {
		v, ok := m[k]
		if !ok {
			v = int32(len(m))
			m[k] = v
		}
		return v
	}
	for i := range p.Candidates {
		c := &p.Candidates[i]
		g := DurationGroup(c.Item)
		s.group[i], s.cell[i] = g, cellKey{g, eventOf(c.Item, events)}
		s.vid[i], s.scid[i], s.tid[i] = id(videoID, c.video()), id(sceneID, c.scene()), id(templateID, c.template())
		s.sid[i] = id(s.sourceID, c.Item.Benchmark)
		if s.groups[g] == nil {
			gc := GroupCaps{PerScene: caps.PerScene, PerTemplate: caps.PerTemplate}
			if r, ok := caps.Groups[g]; ok {
				gc = r
			}
			s.groups[g] = &groupState{GroupCaps: gc}
		}
		s.gs[i] = s.groups[g]
		if q.admits(c) {
			s.admitted = append(s.admitted, i)
			cellSize[s.cell[i]]++
			sources[c.Item.Benchmark] = true
		}
	}
	// The authors' scarce cells: a group's share of the budget is budget /
	// 7 and a cell's an equal part of its group's; vidscreen divides by the
	// groups the query admits, so a pool without some groups moves their
	// share to the others (with all seven, as the authors' pool, the same).
	present := map[string]int{}
	for k := range cellSize {
		present[k.group]++
	}
	s.target = float64(q.Budget) / float64(max(1, len(present)))
	for k, size := range cellSize {
		if float64(size) < s.target/float64(present[k.group]) {
			s.scarce[k] = true
		}
	}
	for i := range p.Candidates {
		s.scarceItem[i] = s.scarce[s.cell[i]]
	}
	s.perVideo, s.sceneCount = make([]int, len(videoID)), make([]int, len(sceneID))
	s.perTemplate, s.perSource = make([]int, len(templateID)), make([]int, len(s.sourceID))
	s.sourceCap = math.MaxInt
	if len(sources) > 1 {
		s.sourceCap = caps.perSource(q.Budget)
	}
	return s
}

// order sorts idx into preference order and records each one's place.
func (s *selector) order(idx []int, seed uint64) {
	ranks := itemRanks(s.p, idx, seed, "item")
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Or(cmp.Compare(s.p.templateGroup[a], s.p.templateGroup[b]), cmp.Compare(s.p.hardness[a], s.p.hardness[b]),
			cmp.Compare(ranks[a], ranks[b])); c != 0 {
			return c
		}
		return strings.Compare(s.p.Candidates[a].Item.Key(), s.p.Candidates[b].Item.Key()) // equal hashes: the key decides
	})
	for k, i := range idx {
		s.pos[i] = k
	}
}

// videoCap is the items one video may give in candidate i's cell.
func (s *selector) videoCap(i int) int {
	if s.scarceItem[i] {
		return s.caps.videoScarce()
	}
	return s.caps.PerVideo
}

// admissible is the authors' rule: the video cap, then outside the
// coverage pass and scarce cells the scene cap (in videos) and the
// template cap of i's group, then the source cap unless i's group is
// exempt from it.
func (s *selector) admissible(i int, coverage bool) bool {
	gs := s.gs[i]
	free := coverage || s.scarceItem[i]
	return s.perVideo[s.vid[i]] < s.videoCap(i) &&
		(free || s.sceneCount[s.scid[i]] < gs.PerScene || s.inScene[s.sceneVideo(i)]) &&
		(free || s.perTemplate[s.tid[i]] < gs.PerTemplate) &&
		(s.perSource[s.sid[i]] < s.sourceCap || gs.SourceExempt)
}

// sceneVideo is the key of candidate i's (scene, video) pair in inScene.
func (s *selector) sceneVideo(i int) uint64 { return uint64(s.scid[i])<<32 | uint64(s.vid[i]) }

// blockers lists the caps that keep candidate i out, in capOrder.
func (s *selector) blockers(i int, coverage bool) []string {
	gs := s.gs[i]
	free := coverage || s.scarceItem[i]
	var out []string
	if s.perSource[s.sid[i]] >= s.sourceCap && !gs.SourceExempt {
		out = append(out, capSource)
	}
	if !free && s.perTemplate[s.tid[i]] >= gs.PerTemplate {
		out = append(out, capTemplate)
	}
	if !free && s.sceneCount[s.scid[i]] >= gs.PerScene && !s.inScene[s.sceneVideo(i)] {
		out = append(out, capScene)
	}
	if s.perVideo[s.vid[i]] >= s.videoCap(i) {
		out = append(out, capVideo)
	}
	return out
}

func (s *selector) take(i int) {
	s.picked[i] = true
	s.perVideo[s.vid[i]]++
	if k := s.sceneVideo(i); !s.inScene[k] {
		s.inScene[k] = true
		s.sceneCount[s.scid[i]]++
	}
	s.perTemplate[s.tid[i]]++
	s.perSource[s.sid[i]]++
	s.gs[i].n++
	s.sel.Picks = append(s.sel.Picks, i)
}

// coverage is the authors' coverage pass: each (source, task) pair of the
// admissible items, rarest first (then by name), gets its first item that
// the video and source caps admit, preferring the duration group with the
// fewest items so far, then the harder item, then preference order. A pair
// a kept item already covers is skipped; the pass stops at the budget.
func (s *selector) coverage(admissible, keep []int) {
	type pair struct{ source, task string }
	pairOf := func(i int) pair { it := s.p.Candidates[i].Item; return pair{it.Benchmark, it.Task} }
	covered := map[pair]bool{}
	for _, i := range keep {
		covered[pairOf(i)] = true
	}
	byPair := map[pair][]int{}
	for _, i := range admissible {
		if k := pairOf(i); !covered[k] {
			byPair[k] = append(byPair[k], i)
		}
	}
	pairs := slices.SortedFunc(maps.Keys(byPair), func(a, b pair) int {
		return cmp.Or(cmp.Compare(len(byPair[a]), len(byPair[b])), strings.Compare(a.source, b.source), strings.Compare(a.task, b.task))
	})
	for _, k := range pairs {
		if len(s.sel.Picks) >= s.budget {
			return
		}
		items := byPair[k]
		slices.SortFunc(items, func(a, b int) int {
			return cmp.Or(cmp.Compare(s.gs[a].n, s.gs[b].n),
				cmp.Compare(s.p.hardness[a], s.p.hardness[b]), cmp.Compare(s.pos[a], s.pos[b]))
		})
		for _, i := range items {
			if s.admissible(i, true) {
				s.take(i)
				break
			}
		}
	}
}

// build puts the admissible candidates not yet taken into their cells'
// source queues (in preference order) and seeds the rotations.
func (s *selector) build(admissible []int, seed uint64) {
	byName := func(tag string) func(a, b string) int {
		return func(a, b string) int {
			return cmp.Or(cmp.Compare(rank(seed, tag, a), rank(seed, tag, b)), strings.Compare(a, b))
		}
	}
	for _, i := range admissible { // in preference order
		if s.picked[i] {
			continue
		}
		k, src := s.cell[i], s.p.Candidates[i].Item.Benchmark
		if s.queues[k] == nil {
			s.queues[k] = map[string]*queue{}
			s.cellsOf[k.group] = append(s.cellsOf[k.group], k)
			s.events[k.group] = append(s.events[k.group], k.event)
		}
		qu := s.queues[k][src]
		if qu == nil {
			qu = &queue{}
			s.queues[k][src] = qu
			s.sources[k] = append(s.sources[k], src)
		}
		qu.items = append(qu.items, i)
	}
	for g, evs := range s.events {
		slices.SortFunc(evs, byName("event/"+g))
		slices.SortFunc(s.cellsOf[g], func(a, b cellKey) int { return strings.Compare(a.event, b.event) })
	}
	for k, srcs := range s.sources {
		slices.SortFunc(srcs, byName("source/"+k.group+"/"+k.event))
	}
	s.active = slices.SortedFunc(maps.Keys(s.events), byName("duration"))
}

// roundRobin is the authors' main loop: duration groups in turn, each
// giving one item from its next cell that can, or relaxing, or leaving.
func (s *selector) roundRobin() {
	for len(s.sel.Picks) < s.budget && len(s.active) > 0 {
		g := s.active[0]
		s.active = append(s.active[1:], g)
		got := false
		for tries := len(s.events[g]); len(s.events[g]) > 0 && tries > 0 && !got; tries-- {
			evs := s.events[g]
			e := evs[0]
			s.events[g] = append(evs[1:], e)
			k := cellKey{g, e}
			if s.pickFrom(k) {
				got = true
			} else if len(s.sources[k]) == 0 {
				s.events[g] = remove(s.events[g], e)
			}
		}
		if !got && !(float64(s.groups[g].n) < s.target && s.relax(g)) {
			s.active = remove(s.active, g)
		}
	}
}

// pickFrom gives cell k's sources one turn each until one gives an item:
// a source at its cap keeps its queue; an item over the video cap leaves
// for good, one over the scene or template cap waits for a relaxation; a
// source whose queue runs out leaves the rotation.
func (s *selector) pickFrom(k cellKey) bool {
	gs := s.groups[k.group]
	for range len(s.sources[k]) {
		srcs := s.sources[k]
		b := srcs[0]
		s.sources[k] = append(srcs[1:], b)
		if s.perSource[s.sourceID[b]] >= s.sourceCap && !gs.SourceExempt {
			continue
		}
		qu := s.queues[k][b]
		for qu.head < len(qu.items) {
			i := qu.items[qu.head]
			qu.head++
			switch {
			case s.picked[i]:
			case s.admissible(i, false):
				s.take(i)
				return true
			case s.perVideo[s.vid[i]] >= s.videoCap(i):
			default:
				s.blocked[k] = append(s.blocked[k], i)
			}
		}
		s.sources[k] = remove(s.sources[k], b)
		if len(s.sources[k]) == 0 {
			break
		}
	}
	return false
}

// relax takes group g one step up the authors' ladder (the scene cap up to
// SceneMax, then the template cap doubled once, then exempt from the
// source cap), puts the candidates the scene and template caps held back
// into their queues again, and records the step. It returns false when g
// is at the ladder's end, or when nothing of g waits on a cap, so that no
// step could give it an item (the authors step on regardless; the picks
// are the same, without steps that relax nothing).
func (s *selector) relax(g string) bool {
	gs := s.groups[g]
	var waiting []int
	for _, k := range s.cellsOf[g] {
		waiting = append(waiting, s.blocked[k]...)
		for _, b := range s.sources[k] {
			if qu := s.queues[k][b]; s.perSource[s.sourceID[b]] >= s.sourceCap && !gs.SourceExempt {
				for _, i := range qu.items[qu.head:] {
					if !s.picked[i] {
						waiting = append(waiting, i)
					}
				}
			}
		}
	}
	if len(waiting) == 0 {
		return false
	}
	only, all := map[string]int{}, map[string]int{}
	for _, i := range waiting {
		bs := s.blockers(i, false)
		for _, b := range bs {
			all[b]++
		}
		if len(bs) == 1 {
			only[bs[0]]++
		}
	}
	var c, from, to string
	switch {
	case gs.PerScene < s.caps.sceneMax():
		c, from = capScene, fmt.Sprint(gs.PerScene)
		gs.PerScene++
		to = fmt.Sprint(gs.PerScene)
	case gs.PerTemplate == s.caps.PerTemplate:
		c, from = capTemplate, fmt.Sprint(gs.PerTemplate)
		gs.PerTemplate *= 2
		to = fmt.Sprint(gs.PerTemplate)
	case !gs.SourceExempt && s.sourceCap != math.MaxInt:
		c, from, to = capSource, fmt.Sprintf("%g%% of the budget (%s)", 100*s.caps.SourceShare, itemCount(s.sourceCap)), "lifted"
		gs.SourceExempt = true
	default:
		return false
	}
	for _, k := range s.cellsOf[g] {
		for _, i := range s.blocked[k] {
			b := s.p.Candidates[i].Item.Benchmark
			s.queues[k][b].items = append(s.queues[k][b].items, i)
			if !slices.Contains(s.sources[k], b) {
				s.sources[k] = append(s.sources[k], b)
			}
			if !slices.Contains(s.events[g], k.event) {
				s.events[g] = append(s.events[g], k.event)
			}
		}
		s.blocked[k] = nil
	}
	var parts []string
	for _, b := range capOrder {
		if all[b] > 0 {
			parts = append(parts, fmt.Sprintf("%s keeps out %d (%d by it alone)", b, all[b], only[b]))
		}
	}
	s.sel.Relaxations = append(s.sel.Relaxations, Relaxation{
		Selected: len(s.sel.Picks), DurationGroup: g, Cap: c, From: from, To: to, Blocked: len(waiting), Only: only[c],
		Reason: fmt.Sprintf("duration group %s holds %s of its share of %.1f and no cell of it can give another; %s wait on a cap: %s",
			g, itemCount(gs.n), s.target, plural(len(waiting), "candidate"), strings.Join(parts, "; ")),
	})
	return true
}

// remove deletes the first x from xs.
func remove(xs []string, x string) []string {
	if k := slices.Index(xs, x); k >= 0 {
		return slices.Delete(xs, k, k+1)
	}
	return xs
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

// plural says n things in words.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// itemCount says n items in words.
func itemCount(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}
