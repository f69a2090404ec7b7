package gpuprep

import (
	"fmt"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// A DevicePrep is a Prep whose output tensor stays in the GPU's memory
// for a consumer there (the image tower on ONNX Runtime's CUDA provider,
// bound through an IoBinding: models.BoundTower.EmbedDevice), so the
// tensor is never copied back to the host. The GPU's Preps are
// DevicePreps (gpu_cuda.go); Host's are not.
type DevicePrep interface {
	Prep
	// DeviceOutput returns the output tensor's device address and size in
	// bytes: valid until Close, holding Run's result once Sync returns.
	DeviceOutput() (ptr uintptr, bytes int64)
	// LoadNV12 is Load for pictures already on the device (NVDEC's):
	// converted to RGB on the device into batch slots slot, slot+1, ...
	// A picture may be released (its surface reused by the decoder) once
	// Sync returns; the Run that reads the slots can come later.
	LoadNV12(slot int, frames []nv12.Frame) error
}

// NV12ToRGB converts an NV12 picture in host memory (planes luma and
// chroma at their pitches) to packed RGB24 in dst (3*w*h bytes) exactly as
// prep_nv12 does on the device: for tests, and for an NV12 frame that
// came back to the host.
func NV12ToRGB(dst, luma, chroma []byte, lumaPitch, chromaPitch, w, h int, m nv12.Matrix) error {
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
			dst[d], dst[d+1], dst[d+2] = m.RGB(luma[y*lumaPitch+x], chroma[c], chroma[c+1])
		}
	}
	return nil
}

// checkNV12 is LoadNV12's check: slots inside the batch, the plan's size,
// pitches that hold a row, non-nil planes.
func checkNV12(plan *imageprep.Plan, batch, slot int, frames []nv12.Frame) error {
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
			return fmt.Errorf("preprocess: NV12 frame %d has no colour matrix (nv12.MatrixFor)", i)
		}
	}
	return nil
}
