package nv12

import "math"

// Matrix is a YUV to RGB conversion in 16.16 fixed point:
// R = CY(Y-OY) + CRV V', G = CY(Y-OY) - CGU U' - CGV V', B = CY(Y-OY) + CBU U',
// with U' = U-128 and V' = V-128, each rounded to nearest and clipped.
type Matrix struct {
	CY, OY, CRV, CGU, CGV, CBU int32
}

// The luma weights (Kr, Kb) of the matrices FFmpeg names (AVColorSpace):
// ITU-R BT.601 (also BT.470BG, SMPTE 170M, and swscale's default for an
// unspecified matrix), BT.709, BT.2020, FCC and SMPTE 240M.
var weights = map[int][2]float64{
	1:  {0.2126, 0.0722}, // BT.709
	4:  {0.30, 0.11},     // FCC
	5:  {0.299, 0.114},   // BT.470BG
	6:  {0.299, 0.114},   // SMPTE 170M
	7:  {0.212, 0.087},   // SMPTE 240M
	9:  {0.2627, 0.0593}, // BT.2020 non-constant luminance
	10: {0.2627, 0.0593}, // BT.2020 constant luminance, converted as NCL
}

// Weights returns the luma weights Kr and Kb of FFmpeg's colour space cs
// (AVColorSpace), and whether it is one of those MatrixFor knows; unknown
// ones get BT.601's, as decode's swscale path converts them.
func Weights(cs int) (kr, kb float64, known bool) {
	w, ok := weights[cs]
	if !ok {
		w = weights[5]
	}
	return w[0], w[1], ok
}

// MatrixFor returns the conversion for FFmpeg's colour space cs
// (AVColorSpace) and range: limited (16-235 luma, 16-240 chroma) or full.
// Unknown matrices convert as BT.601, as decode's swscale path does.
func MatrixFor(cs int, full bool) Matrix {
	kr, kb, _ := Weights(cs)
	kg := 1 - kr - kb
	cy, oy, cc := 1.0, 0.0, 1.0
	if !full {
		cy, oy, cc = 255.0/219, 16, 255.0/224
	}
	fix := func(v float64) int32 { return int32(math.Round(v * 65536)) }
	return Matrix{
		CY: fix(cy), OY: int32(oy),
		CRV: fix(2 * (1 - kr) * cc),
		CGU: fix(2 * kb * (1 - kb) / kg * cc),
		CGV: fix(2 * kr * (1 - kr) / kg * cc),
		CBU: fix(2 * (1 - kb) * cc),
	}
}

// clip is a 16.16 sum to a level, rounded to nearest.
func clip(s int32) byte {
	s += 1 << 15
	if s <= 0 {
		return 0
	}
	s >>= 16
	if s > 255 {
		return 255
	}
	return byte(s)
}

// RGB converts the pixel of luma level y and chroma levels u, v as
// prep_nv12's thread does on the device: the Go port that kernels/cuda's
// NV12ToRGB and the host tests hold to the formula.
func (m Matrix) RGB(y, u, v byte) (r, g, b byte) {
	l := (int32(y) - m.OY) * m.CY
	uu, vv := int32(u)-128, int32(v)-128
	return clip(l + m.CRV*vv), clip(l - m.CGU*uu - m.CGV*vv), clip(l + m.CBU*uu)
}
