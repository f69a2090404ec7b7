package decode

// NVDEC pictures kept on the device: the GPU frame path (models'
// DeviceFrames) reads a CUDA frame's NV12 planes where NVDEC (or
// scale_cuda) left them, so av_hwframe_transfer_data never runs. This
// file only describes such a frame as an nv12.Frame, which kernels/cuda's
// prep_nv12 reads; the pictures must be in the device's primary context,
// which NewGPU and NewSharedGPU ask FFmpeg for (nvdec_ctx.go).

//#cgo pkg-config: libavutil
//#include <libavutil/frame.h>
//#include <libavutil/hwcontext.h>
//#include <libavutil/pixfmt.h>
//#include <stdint.h>
//
// // vs_cuda_nv12 reads the planes of a CUDA frame whose surfaces are NV12;
// // it answers 1 for a frame that is not on CUDA, 2 for another format.
//static int vs_cuda_nv12(AVFrame *f, uintptr_t *luma, uintptr_t *chroma, int *lp, int *cp, int *cs, int *full) {
//	if (f->format != AV_PIX_FMT_CUDA || !f->hw_frames_ctx) return 1;
//	AVHWFramesContext *fc = (AVHWFramesContext *)f->hw_frames_ctx->data;
//	if (fc->sw_format != AV_PIX_FMT_NV12) return 2;
//	*luma = (uintptr_t)f->data[0];
//	*chroma = (uintptr_t)f->data[1];
//	*lp = f->linesize[0];
//	*cp = f->linesize[1];
//	*cs = f->colorspace;
//	*full = f->color_range == AVCOL_RANGE_JPEG;
//	return 0;
//}
import "C"

import (
	"fmt"

	"github.com/asticode/go-astiav"

	"github.com/vidscreen/vidscreen/decode/nv12"
)

// NewSharedGPU is NewGPU on the device's primary context only
// (hwcontext_cuda's primary_ctx option), the context the GPU kernels and
// ONNX Runtime's CUDA provider use: where FFmpeg refuses it, Err says why
// rather than decoding in a context whose surfaces they may not read.
func NewSharedGPU(index int) *GPU { return openGPU(index, ffmpegCUDA, readyPrimary, false) }

// DeviceNV12 describes f, a decoded CUDA frame with NV12 surfaces (8-bit
// streams through NVDEC, or scale_cuda's output), for the preprocessing
// kernel: its planes' device addresses and pitches, size and colour
// matrix (the frame's colour space and range, unknown ones as BT.601 as
// the CPU path converts them). f keeps the memory: the caller holds its
// reference until the kernel's work is synchronised.
func DeviceNV12(f *astiav.Frame) (nv12.Frame, error) {
	var luma, chroma C.uintptr_t
	var lp, cp, cs, full C.int
	switch C.vs_cuda_nv12(cFrame(f), &luma, &chroma, &lp, &cp, &cs, &full) {
	case 1:
		return nv12.Frame{}, fmt.Errorf("a %s frame is not on the GPU (NVDEC did not decode it): %w", f.PixelFormat(), ErrNotOnDevice)
	case 2:
		return nv12.Frame{}, fmt.Errorf("the GPU frame's surfaces are not NV12 (a 10-bit or 4:4:4 stream); only NV12 is converted on the device: %w", ErrNotOnDevice)
	}
	return nv12.Frame{
		Luma: uintptr(luma), Chroma: uintptr(chroma),
		LumaPitch: int(lp), ChromaPitch: int(cp),
		Width: f.Width(), Height: f.Height(),
		Matrix: nv12.MatrixFor(int(cs), full != 0),
	}, nil
}
