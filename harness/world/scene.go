package world

import "math"

// A Scene is one video: background colour segments that follow each other,
// and objects that appear, move in a straight line and disappear. Times are
// in seconds from the start; positions are fractions of the frame (0 at the
// left or top edge, 1 at the right or bottom) of the object's centre.
type Scene struct {
	Duration    float64
	Backgrounds []Segment // in time order, covering [0, Duration)
	Objects     []Object  // drawn in order, later ones on top
	// Tones are the colour words the soundtrack names, one tone each
	// (onnxbuild.ToneTrack); none: the video has no audio stream.
	Tones []string
}

// A Segment is a stretch of time with one background colour.
type Segment struct {
	Start, End float64
	Colour     Colour
}

// An Object is a filled shape seen from Start to End (seconds), moving
// from (X0, Y0) to (X1, Y1) over that time. Size is the side of its
// bounding square as a fraction of the frame height.
type Object struct {
	Shape          Shape
	Colour         Colour
	Size           float64
	Start, End     float64
	X0, Y0, X1, Y1 float64
}

// visible reports whether o is on screen at time t.
func (o *Object) visible(t float64) bool { return t >= o.Start && t < o.End }

// at returns o's centre at time t.
func (o *Object) at(t float64) (x, y float64) {
	f := 0.0
	if o.End > o.Start {
		f = min(1, max(0, (t-o.Start)/(o.End-o.Start)))
	}
	return o.X0 + f*(o.X1-o.X0), o.Y0 + f*(o.Y1-o.Y0)
}

// Background returns the background colour at time t.
func (s *Scene) Background(t float64) Colour {
	for _, g := range s.Backgrounds {
		if t < g.End {
			return g.Colour
		}
	}
	return s.Backgrounds[len(s.Backgrounds)-1].Colour
}

// Render paints the scene at time t into rgb (w*h*3 bytes, packed RGB rows).
// Pixels are sampled at their centres against exact shape outlines, with no
// anti-aliasing, so a frame is a pure function of the scene, t and the size.
func (s *Scene) Render(t float64, w, h int, rgb []byte) {
	bg := s.Background(t).RGB()
	for i := 0; i < w*h; i++ {
		rgb[3*i], rgb[3*i+1], rgb[3*i+2] = bg[0], bg[1], bg[2]
	}
	for k := range s.Objects {
		o := &s.Objects[k]
		if !o.visible(t) {
			continue
		}
		cx, cy := o.at(t)
		cx *= float64(w)
		cy *= float64(h)
		half := o.Size * float64(h) / 2
		c := o.Colour.RGB()
		x0, x1 := max(0, int(math.Floor(cx-half))), min(w-1, int(math.Ceil(cx+half)))
		y0, y1 := max(0, int(math.Floor(cy-half))), min(h-1, int(math.Ceil(cy+half)))
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				// Coordinates relative to the centre, in units of the half side.
				u := (float64(x) + 0.5 - cx) / half
				v := (float64(y) + 0.5 - cy) / half
				if inside(o.Shape, u, v) {
					p := rgb[3*(y*w+x):]
					p[0], p[1], p[2] = c[0], c[1], c[2]
				}
			}
		}
	}
}

// inside reports whether (u, v), in units of the half side with v pointing
// down, lies in the shape centred at the origin whose bounding box is
// [-1, 1] x [-1, 1]. Each shape fills a different share of its bounding
// box (square 1, circle pi/4, triangle 1/2, star about 1/3): the share a
// model can measure to tell them apart.
func inside(s Shape, u, v float64) bool {
	switch s {
	case Square:
		return math.Abs(u) <= 1 && math.Abs(v) <= 1
	case Circle:
		return u*u+v*v <= 1
	case Triangle:
		// Apex at (0, -1), base from (-1, 1) to (1, 1).
		return v <= 1 && v >= -1 && math.Abs(u) <= (v+1)/2
	case Star:
		return inStar(u, v)
	}
	return false
}

// starVertices is a regular five-pointed star (inner radius 0.382 of the
// outer, the pentagram's) with one point up, scaled to fill [-1, 1]^2.
var starVertices = func() [][2]float64 {
	var pts [][2]float64
	for i := range 10 {
		r := 1.0
		if i%2 == 1 {
			r = 0.381966
		}
		a := -math.Pi/2 + float64(i)*math.Pi/5
		pts = append(pts, [2]float64{r * math.Cos(a), r * math.Sin(a)})
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		minX, maxX = min(minX, p[0]), max(maxX, p[0])
		minY, maxY = min(minY, p[1]), max(maxY, p[1])
	}
	for i, p := range pts {
		pts[i] = [2]float64{2*(p[0]-minX)/(maxX-minX) - 1, 2*(p[1]-minY)/(maxY-minY) - 1}
	}
	return pts
}()

// inStar tests (u, v) against the star polygon by the even-odd rule.
func inStar(u, v float64) bool {
	in := false
	n := len(starVertices)
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		a, b := starVertices[i], starVertices[j]
		if (a[1] > v) != (b[1] > v) && u < (b[0]-a[0])*(v-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}
