package cuda

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// TestMatrixForMatchesSwscale holds the limited-range matrices to
// swscale's table (sws_getCoefficients: crv, cbu, cgu, cgv in 16.16, as
// libswscale 6 gives them), which decode's CPU path converts with.
func TestMatrixForMatchesSwscale(t *testing.T) {
	for _, tc := range []struct {
		name               string
		cs                 int
		crv, cbu, cgu, cgv int32
	}{
		{"bt709", 1, 117489, 138438, 13975, 34925},
		{"fcc", 4, 104448, 132798, 24759, 53109},
		{"bt470bg", 5, 104597, 132201, 25675, 53279},
		{"smpte170m", 6, 104597, 132201, 25675, 53279},
		{"smpte240m", 7, 117579, 136230, 16907, 35559},
		{"bt2020", 9, 110013, 140363, 12277, 42626},
		{"unspecified is bt601", 2, 104597, 132201, 25675, 53279},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := MatrixFor(tc.cs, false)
			got := [4]int32{m.CRV, m.CBU, m.CGU, m.CGV}
			want := [4]int32{tc.crv, tc.cbu, tc.cgu, tc.cgv}
			for i := range got {
				// Equal but for BT.2020's crv, which swscale's table
				// has one below the rounded value.
				if d := math.Abs(float64(got[i] - want[i])); d > 1 {
					t.Fatalf("coefficients %v, swscale's %v", got, want)
				}
			}
			if m.CY != 76309 || m.OY != 16 {
				t.Fatalf("luma scale %d offset %d; want 76309 (255/219) and 16", m.CY, m.OY)
			}
		})
	}
}

// TestNV12ToRGBMatchesFormula converts random NV12 pictures (odd sizes,
// padded pitches) with every matrix and range, and holds each pixel to the
// conversion in float64: within one level (the 16.16 rounding).
func TestNV12ToRGBMatchesFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for _, size := range [][2]int{{1, 1}, {2, 2}, {5, 3}, {64, 36}, {397, 223}} {
		for cs := range nv12Weights {
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
				m := MatrixFor(cs, full)
				if err := NV12ToRGB(dst, luma, chroma, lp, cp, w, h, m); err != nil {
					t.Fatal(err)
				}
				kr, kb := nv12Weights[cs][0], nv12Weights[cs][1]
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

// TestNV12ToRGBLevels pins black, white and grey of both ranges exactly.
func TestNV12ToRGBLevels(t *testing.T) {
	for _, tc := range []struct {
		name    string
		full    bool
		y, want byte
	}{
		{"limited black", false, 16, 0},
		{"limited white", false, 235, 255},
		{"limited below black", false, 0, 0},
		{"limited above white", false, 255, 255},
		{"full black", true, 0, 0},
		{"full white", true, 255, 255},
		{"full grey", true, 128, 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for cs := range nv12Weights {
				r, g, b := MatrixFor(cs, tc.full).nv12Pixel(tc.y, 128, 128)
				if r != tc.want || g != tc.want || b != tc.want {
					t.Fatalf("cs %d: Y %d gives %d,%d,%d; want %d", cs, tc.y, r, g, b, tc.want)
				}
			}
		})
	}
}

func TestCheckNV12(t *testing.T) {
	plan := &imageprep.Plan{SrcW: 64, SrcH: 36}
	good := NV12Frame{Luma: 0x1000, Chroma: 0x9000, LumaPitch: 64, ChromaPitch: 64, Width: 64, Height: 36, Matrix: MatrixFor(1, false)}
	for _, tc := range []struct {
		name   string
		edit   func(*NV12Frame)
		slot   int
		frames int
		want   string
	}{
		{"good", func(*NV12Frame) {}, 0, 1, ""},
		{"last slot", func(*NV12Frame) {}, 1, 1, ""},
		{"wrong size", func(f *NV12Frame) { f.Width = 32 }, 0, 1, "is 32x36"},
		{"short pitch", func(f *NV12Frame) { f.ChromaPitch = 60 }, 0, 1, "pitches"},
		{"nil plane", func(f *NV12Frame) { f.Chroma = 0 }, 0, 1, "planes"},
		{"no matrix", func(f *NV12Frame) { f.Matrix = NV12Matrix{} }, 0, 1, "no colour matrix"},
		{"too many", func(*NV12Frame) {}, 0, 3, "3 frames from slot 0 for a batch of 2"},
		{"past the batch", func(*NV12Frame) {}, 2, 1, "from slot 2"},
		{"negative slot", func(*NV12Frame) {}, -1, 1, "from slot -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := good
			tc.edit(&f)
			frames := make([]NV12Frame, tc.frames)
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
