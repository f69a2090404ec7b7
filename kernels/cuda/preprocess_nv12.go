package cuda

import (
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// A DevicePrep is a Prep whose output tensor stays in the GPU's memory
// for a consumer there (the image tower on ONNX Runtime's CUDA provider,
// bound through an IoBinding: models.BoundTower.EmbedDevice), so the
// tensor is never copied back to the host. The GPU's Preps are
// DevicePreps (preprocess_cuda.go); Host's are not.
type DevicePrep interface {
	Prep
	// DeviceOutput returns the output tensor's device address and size in
	// bytes: valid until Close, holding Run's result once Sync returns.
	DeviceOutput() (ptr uintptr, bytes int64)
	// LoadNV12 is Load for pictures already on the device (NVDEC's):
	// converted to RGB on the device into batch slots slot, slot+1, ...
	// A picture may be released (its surface reused by the decoder) once
	// Sync returns; the Run that reads the slots can come later.
	LoadNV12(slot int, frames []NV12Frame) error
}

// An NV12Frame is a decoded picture in GPU memory as NVDEC leaves it (and
// FFmpeg's scale_cuda): a luma plane of Height rows and an interleaved
// U,V plane of (Height+1)/2 rows, each at its own pitch. The planes must
// be in the device's primary context (decode.NewSharedGPU opens FFmpeg's
// CUDA device there) and stay unchanged until the Prep's Sync returns.
type NV12Frame struct {
	Luma, Chroma           uintptr // device addresses
	LumaPitch, ChromaPitch int     // bytes per row
	Width, Height          int
	Matrix                 NV12Matrix
}

// NV12Matrix is a YUV to RGB conversion in 16.16 fixed point:
// R = CY(Y-OY) + CRV V', G = CY(Y-OY) - CGU U' - CGV V', B = CY(Y-OY) + CBU U',
// with U' = U-128 and V' = V-128, each rounded to nearest and clipped.
type NV12Matrix struct {
	CY, OY, CRV, CGU, CGV, CBU int32
}

// The luma weights (Kr, Kb) of the matrices FFmpeg names (AVColorSpace):
// ITU-R BT.601 (also BT.470BG, SMPTE 170M, and swscale's default for an
// unspecified matrix), BT.709, BT.2020, FCC and SMPTE 240M.
var nv12Weights = map[int][2]float64{
	1:  {0.2126, 0.0722}, // BT.709
	4:  {0.30, 0.11},     // FCC
	5:  {0.299, 0.114},   // BT.470BG
	6:  {0.299, 0.114},   // SMPTE 170M
	7:  {0.212, 0.087},   // SMPTE 240M
	9:  {0.2627, 0.0593}, // BT.2020 non-constant luminance
	10: {0.2627, 0.0593}, // BT.2020 constant luminance, converted as NCL
}

// MatrixFor returns the conversion for FFmpeg's colour space cs
// (AVColorSpace) and range: limited (16-235 luma, 16-240 chroma) or full.
// Unknown matrices convert as BT.601, as decode's swscale path does.
func MatrixFor(cs int, full bool) NV12Matrix {
	w, ok := nv12Weights[cs]
	if !ok {
		w = nv12Weights[5]
	}
	kr, kb := w[0], w[1]
	kg := 1 - kr - kb
	cy, oy, cc := 1.0, 0.0, 1.0
	if !full {
		cy, oy, cc = 255.0/219, 16, 255.0/224
	}
	fix := func(v float64) int32 { return int32(math.Round(v * 65536)) }
	return NV12Matrix{
		CY: fix(cy), OY: int32(oy),
		CRV: fix(2 * (1 - kr) * cc),
		CGU: fix(2 * kb * (1 - kb) / kg * cc),
		CGV: fix(2 * kr * (1 - kr) / kg * cc),
		CBU: fix(2 * (1 - kb) * cc),
	}
}

// nv12Clip is the kernel's nv12Clip: a 16.16 sum to a level.
func nv12Clip(s int32) byte {
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

// nv12Pixel is prep_nv12's thread for the pixel of luma level y and
// chroma levels u, v: the Go port the host tests hold to the formula.
func (m NV12Matrix) nv12Pixel(y, u, v byte) (r, g, b byte) {
	l := (int32(y) - m.OY) * m.CY
	uu, vv := int32(u)-128, int32(v)-128
	return nv12Clip(l + m.CRV*vv), nv12Clip(l - m.CGU*uu - m.CGV*vv), nv12Clip(l + m.CBU*uu)
}

// NV12ToRGB converts an NV12 picture in host memory (planes luma and
// chroma at their pitches) to packed RGB24 in dst (3*w*h bytes) exactly as
// prep_nv12 does on the device: for tests, and for an NV12 frame that
// came back to the host.
func NV12ToRGB(dst, luma, chroma []byte, lumaPitch, chromaPitch, w, h int, m NV12Matrix) error {
	if w <= 0 || h <= 0 || lumaPitch < w || chromaPitch < w+w%2 {
		return fmt.Errorf("nv12: %dx%d with pitches %d and %d", w, h, lumaPitch, chromaPitch)
	}
	if len(dst) < 3*w*h || len(luma) < (h-1)*lumaPitch+w || len(chroma) < ((h+1)/2-1)*chromaPitch+w+w%2 {
		return fmt.Errorf("nv12: buffers too small for %dx%d", w, h)
	}
	for y := range h {
		for x := range w {
			c := (y>>1)*chromaPitch + x&^1
			d := 3 * (y*w + x)
			dst[d], dst[d+1], dst[d+2] = m.nv12Pixel(luma[y*lumaPitch+x], chroma[c], chroma[c+1])
		}
	}
	return nil
}

// checkNV12 is LoadNV12's check: slots inside the batch, the plan's size,
// pitches that hold a row, non-nil planes.
func checkNV12(plan *imageprep.Plan, batch, slot int, frames []NV12Frame) error {
	if slot < 0 || slot+len(frames) > batch {
		return fmt.Errorf("preprocess: %d frames from slot %d for a batch of %d", len(frames), slot, batch)
	}
	if plan.SrcH > 65535 {
		return fmt.Errorf("preprocess: NV12 pictures of %d rows; at most 65535 (a grid dimension)", plan.SrcH)
	}
	for i, f := range frames {
		if f.Width != plan.SrcW || f.Height != plan.SrcH {
			return fmt.Errorf("preprocess: NV12 frame %d is %dx%d, the plan is for %dx%d", i, f.Width, f.Height, plan.SrcW, plan.SrcH)
		}
		if f.Luma == 0 || f.Chroma == 0 || f.LumaPitch < f.Width || f.ChromaPitch < f.Width+f.Width%2 {
			return fmt.Errorf("preprocess: NV12 frame %d: planes %#x, %#x with pitches %d, %d for width %d", i, f.Luma, f.Chroma, f.LumaPitch, f.ChromaPitch, f.Width)
		}
		if f.Matrix.CY == 0 {
			return fmt.Errorf("preprocess: NV12 frame %d has no colour matrix (cuda.MatrixFor)", i)
		}
	}
	return nil
}
