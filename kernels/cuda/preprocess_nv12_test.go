package cuda

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// TestNV12ToRGBMatchesFormula converts random NV12 pictures (odd sizes,
// padded pitches) with every matrix and range, and holds each pixel to the
// conversion in float64: within one level (the 16.16 rounding).
func TestNV12ToRGBMatchesFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for _, size := range [][2]int{{1, 1}, {2, 2}, {5, 3}, {64, 36}, {397, 223}} {
		for _, cs := range []int{1, 2, 4, 5, 6, 7, 9, 10} {
			for _, full := range []bool{false, true} {
				w, h := size[0], size[1]
				lp, cp := w+r.IntN(5), w+w%2+2*r.IntN(3)
				luma := make([]byte, h*lp)
				chroma := make([]byte, (h+1)/2*cp)
				for i := range luma {
					luma[i] = byte(r.IntN(256))
				}
				for i := range chroma {
					chroma[i] = byte(r.IntN(256))
				}
				dst := make([]byte, 3*w*h)
				m := nv12.MatrixFor(cs, full)
				if err := NV12ToRGB(dst, luma, chroma, lp, cp, w, h, m); err != nil {
					t.Fatal(err)
				}
				kr, kb, _ := nv12.Weights(cs)
				kg := 1 - kr - kb
				for y := range h {
					for x := range w {
						Y := float64(luma[y*lp+x])
						c := (y/2)*cp + x/2*2
						U, V := float64(chroma[c])-128, float64(chroma[c+1])-128
						if !full {
							Y, U, V = (Y-16)*255/219, U*255/224, V*255/224
						}
						want := [3]float64{Y + 2*(1-kr)*V, Y - 2*kb*(1-kb)/kg*U - 2*kr*(1-kr)/kg*V, Y + 2*(1-kb)*U}
						for k, f := range want {
							f = math.Min(255, math.Max(0, math.Round(f)))
							if got := float64(dst[3*(y*w+x)+k]); math.Abs(got-f) > 1 {
								t.Fatalf("%dx%d cs %d full %v: pixel (%d,%d) channel %d is %v, the formula %v", w, h, cs, full, x, y, k, got, f)
							}
						}
					}
				}
			}
		}
	}
}

func TestCheckNV12(t *testing.T) {
	plan := &imageprep.Plan{SrcW: 64, SrcH: 36}
	good := nv12.Frame{Luma: 0x1000, Chroma: 0x9000, LumaPitch: 64, ChromaPitch: 64, Width: 64, Height: 36, Matrix: nv12.MatrixFor(1, false)}
	for _, tc := range []struct {
		name   string
		edit   func(*nv12.Frame)
		slot   int
		frames int
		want   string
	}{
		{"good", func(*nv12.Frame) {}, 0, 1, ""},
		{"last slot", func(*nv12.Frame) {}, 1, 1, ""},
		{"wrong size", func(f *nv12.Frame) { f.Width = 32 }, 0, 1, "is 32x36"},
		{"short pitch", func(f *nv12.Frame) { f.ChromaPitch = 60 }, 0, 1, "pitches"},
		{"nil plane", func(f *nv12.Frame) { f.Chroma = 0 }, 0, 1, "planes"},
		{"no matrix", func(f *nv12.Frame) { f.Matrix = nv12.Matrix{} }, 0, 1, "no colour matrix"},
		{"too many", func(*nv12.Frame) {}, 0, 3, "3 frames from slot 0 for a batch of 2"},
		{"past the batch", func(*nv12.Frame) {}, 2, 1, "from slot 2"},
		{"negative slot", func(*nv12.Frame) {}, -1, 1, "from slot -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := good
			tc.edit(&f)
			frames := make([]nv12.Frame, tc.frames)
			for i := range frames {
				frames[i] = f
			}
			err := checkNV12(plan, 2, tc.slot, frames)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want %q", err, tc.want)
			}
		})
	}
}
