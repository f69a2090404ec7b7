package nv12

import (
	"math"
	"testing"
)

// TestMatrixForMatchesSwscale holds the limited-range matrices to
// swscale's table (sws_getCoefficients: crv, cbu, cgu, cgv in 16.16, as
// libswscale 6 gives them), which decode's CPU path converts with.
func TestMatrixForMatchesSwscale(t *testing.T) {
	t.Parallel()
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

// TestRGBLevels pins black, white and grey of both ranges exactly.
func TestRGBLevels(t *testing.T) {
	t.Parallel()
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
			for cs := range weights {
				r, g, b := MatrixFor(cs, tc.full).RGB(tc.y, 128, 128)
				if r != tc.want || g != tc.want || b != tc.want {
					t.Fatalf("cs %d: Y %d gives %d,%d,%d; want %d", cs, tc.y, r, g, b, tc.want)
				}
			}
		})
	}
}
