package decode

// Thin cgo for the audio paths: go-astiav v0.16.0 reads and writes frame
// planes of images only, so the samples of an audio frame are copied here,
// as ffmpeg.go and encode.go do for pictures.

//#cgo pkg-config: libavutil
//#include <libavutil/frame.h>
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/asticode/go-astiav"
)

// appendFloats appends the samples of f, which must be packed float32 mono
// (AV_SAMPLE_FMT_FLT, one channel, what the resampling graph delivers).
func appendFloats(dst []float32, f *astiav.Frame) ([]float32, error) {
	cf := cFrame(f)
	n := int(cf.nb_samples)
	if n == 0 {
		return dst, nil
	}
	if f.SampleFormat() != astiav.SampleFormatFlt || cf.data[0] == nil {
		return dst, fmt.Errorf("audio frame in format %v, want packed float", f.SampleFormat())
	}
	return append(dst, unsafe.Slice((*float32)(unsafe.Pointer(cf.data[0])), n)...), nil
}

// setPlanarMono writes samples into the first plane of f (planar or packed
// float mono, as the AAC encoder takes), zero-filling the rest of the frame.
func setPlanarMono(f *astiav.Frame, samples []float32) error {
	cf := cFrame(f)
	if C.av_frame_make_writable(cf) < 0 {
		return fmt.Errorf("audio frame not writable")
	}
	n := int(cf.nb_samples)
	dst := unsafe.Slice((*float32)(unsafe.Pointer(cf.data[0])), n)
	k := copy(dst, samples)
	clear(dst[k:])
	return nil
}
