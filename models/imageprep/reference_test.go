package imageprep

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var regen = flag.Bool("regen", false, "regenerate testdata/reference.* with /usr/bin/python3 (needs python3-pil, python3-opencv)")

type refCase struct {
	Name     string          `json:"name"`
	Source   string          `json:"source"`
	Op       string          `json:"op"`
	Offset   int             `json:"offset"`
	Length   int             `json:"length"`
	Width    int             `json:"width"`
	Height   int             `json:"height"`
	Resample int             `json:"resample"`
	Config   json.RawMessage `json:"config"`
}

type reference struct {
	Pillow string    `json:"pillow"`
	Cases  []refCase `json:"cases"`
	blob   []byte
	frames map[string]Frame
}

func (r *reference) data(c refCase) []byte { return r.blob[c.Offset : c.Offset+c.Length] }

func loadReference(t *testing.T) *reference {
	t.Helper()
	if *regen {
		cmd := exec.Command("/usr/bin/python3", "make_reference.py")
		cmd.Dir = "testdata"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make_reference.py: %v\n%s", err, out)
		}
	}
	idx, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(idx, &r); err != nil {
		t.Fatal(err)
	}
	if r.blob, err = os.ReadFile(filepath.Join("testdata", "reference.bin")); err != nil {
		t.Fatal(err)
	}
	r.frames = map[string]Frame{}
	for _, c := range r.Cases {
		if c.Op == "source" {
			r.frames[c.Source] = Frame{Pix: r.data(c), Width: c.Width, Height: c.Height}
		}
	}
	return &r
}

// resizeOnly is a Processor that only resizes, so its output levels can be
// compared with 8-bit references.
func resizeOnly(t testing.TB, w, h int, r Resample) *Processor {
	t.Helper()
	p, err := New(Config{Type: "test", DoResize: true, Width: w, Height: h, Resample: r}, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// levels runs p on f and returns the output back in HWC bytes.
func levels(t testing.TB, p *Processor, f Frame) []byte {
	t.Helper()
	out := make([]float32, p.FrameLen())
	if err := p.Batch(context.Background(), []Frame{f}, out); err != nil {
		t.Fatal(err)
	}
	h, w := p.OutputSize()
	b := make([]byte, 3*h*w)
	for c := 0; c < 3; c++ {
		for i := 0; i < h*w; i++ {
			v := out[c*h*w+i]
			if v != float32(byte(v)) {
				t.Fatalf("level %v is not an integer in 0..255", v)
			}
			b[3*i+c] = byte(v)
		}
	}
	return b
}

func maxDiff(a, b []byte) (d int, at int) {
	for i := range a {
		if x := int(a[i]) - int(b[i]); x > d || -x > d {
			d, at = max(x, -x), i
		}
	}
	return d, at
}

// TestPillowReference: every resize equals Pillow's byte for byte, and each
// whole pipeline equals the Python (PIL + numpy float32) steps of
// transformers' slow processors bit for bit.
func TestPillowReference(t *testing.T) {
	t.Parallel()
	ref := loadReference(t)
	n := 0
	for _, c := range ref.Cases {
		var tolerance int
		var filter Resample
		switch c.Op {
		case "pil":
			filter, tolerance = Resample(c.Resample), 0
		case "cv2_area":
			// INTER_AREA at an integer factor is the mean of each block: PIL's
			// box filter. Both round fixed-point sums, so allow one level.
			filter, tolerance = Box, 1
		case "cv2_linear":
			// INTER_LINEAR when enlarging is PIL's triangle filter (no
			// antialiasing, same pixel-centre convention, clamped borders).
			filter, tolerance = Bilinear, 1
		case "pipeline":
			n++
			t.Run(c.Name, func(t *testing.T) { checkPipeline(t, ref, c) })
			continue
		default:
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			got := levels(t, resizeOnly(t, c.Width, c.Height, filter), ref.frames[c.Source])
			if d, at := maxDiff(got, ref.data(c)); d > tolerance {
				t.Errorf("differs by %d levels at pixel %d channel %d (tolerance %d)", d, at/3, at%3, tolerance)
			}
		})
	}
	if n < 30 {
		t.Fatalf("only %d reference cases; testdata/reference.json is incomplete", n)
	}
}

func checkPipeline(t *testing.T, ref *reference, c refCase) {
	cfg, err := ParseConfig(c.Config, c.Name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(*cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := ref.data(c)
	if len(want) != 4*p.FrameLen() {
		t.Fatalf("reference has %d bytes, processor writes %d float32", len(want), p.FrameLen())
	}
	out := make([]float32, p.FrameLen())
	if err := p.Batch(context.Background(), []Frame{ref.frames[c.Source]}, out); err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		w := math.Float32frombits(binary.LittleEndian.Uint32(want[4*i:]))
		if v != w {
			t.Fatalf("value %d (channel %d) = %v, Python gives %v", i, i/(p.h*p.w), v, w)
		}
	}
}

// refResize is a direct float64 computation of the same separable filter:
// weights from the kernel without fixed point, horizontal pass, rounding to
// 8 bits, vertical pass, rounding.
func refResize(src []byte, w, h, ow, oh int, r Resample) []byte {
	f := filterFor(r)
	axis := func(in, out int) (starts []int, ws [][]float64) {
		scale := float64(in) / float64(out)
		fs := math.Max(scale, 1)
		sup := f.support * fs
		for i := 0; i < out; i++ {
			c := (float64(i) + 0.5) * scale
			lo := max(0, int(c-sup+0.5))
			hi := min(in, int(c+sup+0.5))
			var row []float64
			sum := 0.0
			for x := lo; x < hi; x++ {
				v := f.at((float64(x) + 0.5 - c) / fs)
				row = append(row, v)
				sum += v
			}
			for k := range row {
				row[k] /= sum
			}
			starts, ws = append(starts, lo), append(ws, row)
		}
		return
	}
	round8 := func(v float64) byte { return byte(math.Min(255, math.Max(0, math.Floor(v+0.5)))) }
	tmp := src
	if ow != w {
		xs, xw := axis(w, ow)
		tmp = make([]byte, 3*ow*h)
		for y := 0; y < h; y++ {
			for x := 0; x < ow; x++ {
				for c := 0; c < 3; c++ {
					s := 0.0
					for k, wt := range xw[x] {
						s += wt * float64(src[3*(y*w+xs[x]+k)+c])
					}
					tmp[3*(y*ow+x)+c] = round8(s)
				}
			}
		}
	}
	if oh == h {
		return tmp
	}
	ys, yw := axis(h, oh)
	out := make([]byte, 3*ow*oh)
	for y := 0; y < oh; y++ {
		for x := 0; x < ow; x++ {
			for c := 0; c < 3; c++ {
				s := 0.0
				for k, wt := range yw[y] {
					s += wt * float64(tmp[3*((ys[y]+k)*ow+x)+c])
				}
				out[3*(y*ow+x)+c] = round8(s)
			}
		}
	}
	return out
}

// floatTolerance bounds, in levels, how far the 8-bit resize may be from the
// float64 one. The float64 weights are not exact either (1-|x| divided by
// their sum lands a hair off a tie that the 22-bit weights hit exactly), so
// one pass may round a pixel the other way: one level. With both passes, an
// intermediate pixel one level off moves the second pass's sum by up to one
// level (more where negative lobes add up), and that sum can itself fall on
// a tie: two levels. The exact check is the Pillow one above.
func floatTolerance(r Resample, twoPasses bool) int {
	if twoPasses {
		return 2
	}
	return 1
}

// TestFloat64Reference: the fixed-point resize is within floatTolerance of
// the float64 filter for every filter and many shapes, shrinking and
// enlarging.
func TestFloat64Reference(t *testing.T) {
	t.Parallel()
	ref := loadReference(t)
	src := ref.frames["a"]
	sizes := [][2]int{{1, 1}, {7, 5}, {48, 30}, {96, 61}, {97, 60}, {98, 62}, {200, 3}, {3, 200}, {291, 183}}
	for _, r := range []Resample{Bicubic, Bilinear, Box, Hamming, Lanczos} {
		for _, s := range sizes {
			name := fmt.Sprintf("%v %dx%d", r, s[0], s[1])
			got := levels(t, resizeOnly(t, s[0], s[1], r), src)
			want := refResize(src.Pix, src.Width, src.Height, s[0], s[1], r)
			tol := floatTolerance(r, s[0] != src.Width && s[1] != src.Height)
			if d, at := maxDiff(got, want); d > tol {
				t.Errorf("%s: differs from the float64 filter by %d levels at pixel %d (tolerance %d)", name, d, at/3, tol)
			}
		}
	}
}
