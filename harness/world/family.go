package world

import (
	"fmt"
	"math/rand/v2"

	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// A Family is a family of truth.Families with what the planner needs to
// build its videos: its share of the videos, the shortest video its scenes
// fit in (seconds), and the function that plans one video.
type Family struct {
	truth.Family
	weight      int
	minDuration float64
	build       func(p *planner, v *video)
	// audio marks the audio family: its videos come after the others,
	// drawn from a generator of their own (audioFamily), so the other
	// families' videos and items are what they were without it.
	audio bool
}

// Families lists the families in the order of truth.Families.
func Families() []Family {
	plan := map[string]Family{
		"option-artifact": {weight: 8, build: (*planner).optionArtifact},
		"text-leak":       {weight: 8, build: (*planner).textLeak},
		"copy":            {weight: 10, build: (*planner).copyTemplates},
		"siblings":        {weight: 12, build: (*planner).siblings},
		"single-frame":    {weight: 12, minDuration: 3, build: (*planner).singleFrame},
		"some-frames":     {weight: 14, minDuration: 10, build: (*planner).someFrames},
		"window":          {weight: 14, minDuration: 8, build: (*planner).window},
		"order":           {weight: 10, minDuration: 10, build: (*planner).order},
		"clean":           {weight: 12, minDuration: 6, build: (*planner).clean},
		"audio":           {minDuration: 3, build: (*planner).audio, audio: true},
	}
	var out []Family
	for _, f := range truth.Families() {
		p := plan[f.Name]
		p.Family = f
		out = append(out, p)
	}
	return out
}

// visualFamilies lists the families Options.Videos is shared among: all
// but the audio family, whose videos come on top.
func visualFamilies() []Family {
	var out []Family
	for _, f := range Families() {
		if !f.audio {
			out = append(out, f)
		}
	}
	return out
}

// audioFamily returns the audio family.
func audioFamily() *Family {
	for _, f := range Families() {
		if f.audio {
			return &f
		}
	}
	panic("world: no audio family")
}

// A video is one planned scene and its items (answers still as text).
type video struct {
	id       string
	family   *Family
	duration float64
	scene    Scene
	items    []draft
}

// A draft is an item before its gold option is given its place.
type draft struct {
	task     string
	question string
	gold     string
	others   []string
	// fixed keeps options in the given order (gold first among them at
	// index fixedGold): yes/no and counting options are written in their
	// natural order, as benchmarks do.
	fixed     []string
	fixedGold int
}

// planner draws scenes and items from one seeded generator.
type planner struct {
	rng  *rand.Rand
	copy copyScene
}

// Answers are drawn independently (colours, shapes, counts, which came
// first), not dealt from balanced decks: under a balanced deck the answers
// not yet seen are the likelier ones, a real shortcut that the pool level's
// learners find (the siblings learner did, on a first version of this
// world). Independent draws leave a fixed preference among the options (a
// word an attacker likes) at chance in expectation; its luck on a family
// is what the significance test is for.

// dealShapes draws two different shapes.
func (p *planner) dealShapes() (Shape, Shape) {
	sh := distinct(p, Shapes(), 2)
	return sh[0], sh[1]
}

func (p *planner) pick(cs []Colour) Colour { return cs[p.rng.IntN(len(cs))] }

func (p *planner) shape() Shape { return Shape(p.rng.IntN(int(numShapes))) }

// distinct draws n different elements of xs.
func distinct[T any](p *planner, xs []T, n int) []T {
	idx := p.rng.Perm(len(xs))[:n]
	out := make([]T, n)
	for i, k := range idx {
		out[i] = xs[k]
	}
	return out
}

// lanes are the horizontal centres of the three columns objects move in,
// so that objects never overlap and each keeps its outline.
var lanes = [3]float64{1.0 / 6, 0.5, 5.0 / 6}

const (
	bigSize   = 0.38
	smallSize = 0.2
)

// object places a shape in lane, moving vertically between two random
// heights such that it stays inside band [lo, hi] of the frame (fractions
// of the height), from t0 to t1.
func (p *planner) object(s Shape, c Colour, size float64, lane int, t0, t1, lo, hi float64) Object {
	half := size / 2
	lo, hi = lo+half+0.02, hi-half-0.02
	y := func() float64 { return lo + p.rng.Float64()*(hi-lo) }
	jit := func() float64 { return lanes[lane] + (p.rng.Float64()-0.5)*0.04 }
	return Object{Shape: s, Colour: c, Size: size, Start: t0, End: t1, X0: jit(), Y0: y(), X1: jit(), Y1: y()}
}

// backgrounds splits [0, d) into n segments of colours drawn from cs, each
// different from the one before.
func (p *planner) backgrounds(d float64, n int, cs []Colour) []Segment {
	cuts := make([]float64, n+1)
	cuts[n] = d
	for i := 1; i < n; i++ {
		// Even cuts, jittered by up to a fifth of a segment.
		cuts[i] = d * (float64(i) + (p.rng.Float64()-0.5)*0.4) / float64(n)
	}
	var out []Segment
	prev := Colour(-1)
	for i := range n {
		c := p.pick(cs)
		for c == prev {
			c = p.pick(cs)
		}
		prev = c
		out = append(out, Segment{Start: cuts[i], End: cuts[i+1], Colour: c})
	}
	return out
}

// colourItem asks the colour of an object whose colour is of class cls.
func colourItem(task, question string, gold Colour, cls []Colour) draft {
	d := draft{task: task, question: question, gold: gold.String()}
	for _, c := range cls {
		if c != gold {
			d.others = append(d.others, c.String())
		}
	}
	return d
}

func shapeItem(task, question string, gold Shape) draft {
	d := draft{task: task, question: question, gold: gold.String()}
	for _, s := range Shapes() {
		if s != gold {
			d.others = append(d.others, s.String())
		}
	}
	return d
}

func yesNo(task, question string, yes bool) draft {
	g := 0
	if !yes {
		g = 1
	}
	return draft{task: task, question: question, fixed: []string{"yes", "no"}, fixedGold: g}
}

// twoObjects draws a class-4 and a class-5 coloured object of different
// shapes, present throughout, in the outer lanes, over backgrounds of the
// remaining class.
func (p *planner) twoObjects(v *video, segments int) (a, b Object) {
	d := v.duration
	sa, sb := p.dealShapes()
	a = p.object(sa, p.pick(class4), bigSize, 0, 0, d+1, 0, 1)
	b = p.object(sb, p.pick(class5), bigSize, 2, 0, d+1, 0, 1)
	v.scene.Backgrounds = p.backgrounds(d, segments, classC)
	v.scene.Objects = []Object{a, b}
	return a, b
}

func (p *planner) optionArtifact(v *video) {
	a, b := p.twoObjects(v, 1)
	bg := v.scene.Backgrounds[0].Colour
	stock := []string{"a dog", "a red car", "two people", "a tall tree", "an empty room", "a bird", "the sea", "a busy street", "a cat", "a kitchen", "a football", "a train"}
	golds := []string{
		fmt.Sprintf("a large %s %s drifting slowly up and down on a %s background beside a %s %s", a.Colour, a.Shape, bg, b.Colour, b.Shape),
		fmt.Sprintf("a %s %s on the left and a %s %s on the right, both moving gently over %s", a.Colour, a.Shape, b.Colour, b.Shape, bg),
		fmt.Sprintf("two simple flat shapes, a %s %s and a %s %s, gliding against a plain %s backdrop", b.Colour, b.Shape, a.Colour, a.Shape, bg),
		fmt.Sprintf("a plain %s background with a %s %s and a %s %s that keep sliding vertically", bg, a.Colour, a.Shape, b.Colour, b.Shape),
	}
	questions := []string{"What does the clip show?", "What is in the video?", "Describe the scene.", "What can be seen here?"}
	for k, q := range questions {
		v.items = append(v.items, draft{task: "describe", question: q, gold: golds[k], others: distinct(p, stock, 3)})
	}
}

func (p *planner) textLeak(v *video) {
	a, b := p.twoObjects(v, 1+p.rng.IntN(3))
	v.items = append(v.items,
		colourItem("colour", fmt.Sprintf("What colour is the %s %s?", a.Colour, a.Shape), a.Colour, class4),
		colourItem("colour", fmt.Sprintf("What colour is the %s %s?", b.Colour, b.Shape), b.Colour, class5),
		shapeItem("shape", fmt.Sprintf("Which shape is the %s %s?", a.Colour, a.Shape), a.Shape),
		shapeItem("shape", fmt.Sprintf("Which shape is the %s %s?", b.Colour, b.Shape), b.Shape),
	)
}

// copyScene is the one scene every video of the copy family shows (with its
// own motion): three objects and a background, drawn once per world. Its
// questions are yes/no ("Is the square pink?"), each template with one
// answer in every video: a template with a fixed colour answer among four
// would be answered right or wrong on every copy by any text attacker with
// a fixed liking among the four words, which is luck on a handful of
// templates, not the copy shortcut.
type copyScene struct {
	shapes  []Shape
	colours []Colour // of the objects
	wrong   []Colour // asked about, never shown
	bg      Colour
}

func (p *planner) copyTemplates(v *video) {
	cs := p.copy
	d := v.duration
	v.scene.Backgrounds = []Segment{{0, d, cs.bg}}
	for k := range 3 {
		o := p.object(cs.shapes[k], cs.colours[k], bigSize, k, 0, d+1, 0, 1)
		v.scene.Objects = append(v.scene.Objects, o)
		v.items = append(v.items,
			yesNo("attribute", fmt.Sprintf("Is the %s %s?", o.Shape, o.Colour), true),
			yesNo("attribute", fmt.Sprintf("Is the %s %s?", o.Shape, cs.wrong[k]), false))
	}
}

func (p *planner) siblings(v *video) {
	d := v.duration
	sh := distinct(p, Shapes(), 3)
	pool := append(append([]Colour{}, class4...), class5...)
	cs := distinct(p, pool, 6) // three shown, three for the hallucinated questions
	templates := []string{"Is there a %s %s in the video?", "Does a %s %s appear at any point?", "Can you see a %s %s?"}
	v.scene.Backgrounds = p.backgrounds(d, 1+p.rng.IntN(2), classC)
	for k := range 3 {
		o := p.object(sh[k], cs[k], bigSize, k, 0, d+1, 0, 1)
		v.scene.Objects = append(v.scene.Objects, o)
		t := templates[k]
		v.items = append(v.items,
			yesNo("exists", fmt.Sprintf(t, o.Colour, o.Shape), true),
			yesNo("exists", fmt.Sprintf(t, cs[3+k], o.Shape), false))
	}
}

func (p *planner) singleFrame(v *video) {
	a, b := p.twoObjects(v, 1+p.rng.IntN(3))
	// One shape question per video: two would offer the same four shapes
	// with different answers, and "not a sibling's answer" is a planted
	// sibling shortcut (the siblings learner finds it).
	s := a
	if p.rng.IntN(2) == 0 {
		s = b
	}
	v.items = append(v.items,
		colourItem("colour", fmt.Sprintf("What colour is the %s?", a.Shape), a.Colour, class4),
		colourItem("colour", fmt.Sprintf("What colour is the %s?", b.Shape), b.Colour, class5),
		shapeItem("shape", fmt.Sprintf("What shape is the %s object?", s.Colour), s.Shape),
	)
}

// bystanders places two large objects of class-C colours in the outer lanes
// for the whole video over one class-C background, so that the small
// objects asked about are never the largest things in a frame.
func (p *planner) bystanders(v *video) {
	d := v.duration
	cs := distinct(p, classC, 3)
	sh := distinct(p, Shapes(), 2)
	v.scene.Backgrounds = []Segment{{0, d, cs[0]}}
	v.scene.Objects = []Object{
		p.object(sh[0], cs[1], bigSize, 0, 0, d+1, 0, 1),
		p.object(sh[1], cs[2], bigSize, 2, 0, d+1, 0, 1),
	}
}

func (p *planner) someFrames(v *video) {
	d := v.duration
	p.bystanders(v)
	// A stretch of a fifth of the video (at least 2.5 s, so a sampler at
	// one frame per second always meets it), in the first or last 45%.
	l := min(max(0.2*d, 2.5), 0.38*d)
	first := p.rng.IntN(2) == 0
	ca, cb := p.pick(class4), p.pick(class5)
	s0, s1 := 0.05*d, 0.95*d-l
	if !first {
		s0, s1 = s1, s0
	}
	v.scene.Objects = append(v.scene.Objects,
		p.object(p.shape(), ca, smallSize, 1, s0, s0+l, 0, 1),
		p.object(p.shape(), cb, smallSize, 1, s1, s1+l, 0, 1))
	v.items = append(v.items,
		colourItem("colour", "What colour is the small shape that shows up for a while?", ca, class4),
		colourItem("colour", "Which colour does the other small shape that appears for a moment have?", cb, class5))
}

func (p *planner) window(v *video) {
	d := v.duration
	p.bystanders(v)
	ca, cb := p.pick(class4), p.pick(class5)
	gap := 0.08 * d
	top := func(c Colour) []Object {
		s := p.shape()
		return []Object{
			p.object(s, c, smallSize, 1, 0, d/2-gap, 0, 0.5),
			p.object(s, c, smallSize, 1, d/2+gap, d+1, 0, 0.5),
		}
	}
	bottom := func(c Colour) []Object {
		s := p.shape()
		return []Object{
			p.object(s, c, smallSize, 1, 0, d/2-gap, 0.5, 1),
			p.object(s, c, smallSize, 1, d/2+gap, d+1, 0.5, 1),
		}
	}
	v.scene.Objects = append(v.scene.Objects, top(ca)...)
	v.scene.Objects = append(v.scene.Objects, bottom(cb)...)
	v.items = append(v.items,
		colourItem("colour", "What colour is the small shape in the upper middle for most of the video?", ca, class4),
		colourItem("colour", "What colour is the small shape in the lower middle for most of the video?", cb, class5))
}

func (p *planner) order(v *video) {
	d := v.duration
	v.scene.Backgrounds = []Segment{{0, d, p.pick(classC)}}
	// Four slots of 12% of the video, 12% apart: no tenth of the video
	// holds two of them, and none holds the centre.
	slots := [4]float64{0.02, 0.26, 0.62, 0.86}
	pool := append(append([]Colour{}, class4...), class5...)
	cs := distinct(p, pool, 4)
	for pair := range 2 {
		sh := distinct(p, Shapes(), 2)
		var objs [2]Object
		for k := range 2 {
			t0 := slots[2*pair+k] * d
			objs[k] = p.object(sh[k], cs[2*pair+k], bigSize, 1, t0, t0+0.12*d, 0, 1)
			v.scene.Objects = append(v.scene.Objects, objs[k])
		}
		name := func(o Object) string { return fmt.Sprintf("the %s %s", o.Colour, o.Shape) }
		x, y := objs[0], objs[1]
		if p.rng.IntN(2) == 0 {
			x, y = y, x // the order the question names them in
		}
		if p.rng.IntN(2) == 0 {
			v.items = append(v.items, draft{task: "first", question: fmt.Sprintf("Which appears first: %s or %s?", name(x), name(y)), gold: name(objs[0]), others: []string{name(objs[1])}})
		} else {
			v.items = append(v.items, draft{task: "last", question: fmt.Sprintf("Which appears last: %s or %s?", name(x), name(y)), gold: name(objs[1]), others: []string{name(objs[0])}})
		}
	}
}

func (p *planner) clean(v *video) {
	d := v.duration
	// Two independent counts: neither says anything about the other.
	changes := 1 + p.rng.IntN(4)
	shown := 1 + p.rng.IntN(4)
	v.scene.Backgrounds = p.backgrounds(d, changes+1, classC)
	pool := append(append([]Colour{}, class4...), class5...)
	cs := distinct(p, pool, shown)
	for k := range shown {
		t0 := p.rng.Float64() * d * 0.6
		v.scene.Objects = append(v.scene.Objects, p.object(p.shape(), cs[k], bigSize, k%3, t0, t0+d*0.3, 0, 1))
	}
	v.items = append(v.items,
		draft{task: "count", question: "How many times does the background change colour?", fixed: []string{"1", "2", "3", "4"}, fixedGold: changes - 1},
		draft{task: "count", question: "How many shapes appear in the video?", fixed: []string{"1", "2", "3", "4"}, fixedGold: shown - 1})
}
