package run

import (
	"runtime"

	"github.com/vidscreen/vidscreen/decode"
)

// processorDecoders is the most videos decoded at once at display size
// (resizeInProcessor).
const processorDecoders = 4

// The values of Spec.FrameResize (--frame-resize): what resizes the host
// frames the ONNX image roles (image_text, the captioner, the ONNX
// vlm_reader and screen_reader) read.
const (
	// FrameResizeProcessor decodes their frames at display size, and each
	// role's processor (models/imageprep, bit-equal to transformers'
	// processors on Pillow) resizes and crops them from the full frame,
	// as transformers does: the default.
	FrameResizeProcessor = "processor"
	// FrameResizeFFmpeg has FFmpeg's area filter scale the frames to the
	// largest input side of the roles that read them first, and the
	// processors resize from that: faster and a fraction of the memory,
	// but not the processor's pixels (docs/models.md, "The frame path").
	FrameResizeFFmpeg = "ffmpeg"
)

// frameResize is s.FrameResize, "" read as the default, processor.
func (s *Spec) frameResize() string {
	if s.FrameResize == "" {
		return FrameResizeProcessor
	}
	return s.FrameResize
}

// resizeInProcessor makes v's ONNX image roles read frames decoded at
// display size (FrameResizeProcessor): the image tower's and captioner's
// size, and the ONNX VLM readers'. A served VLM reader keeps its size
// (served.DecodeShort): the server resizes what it is sent, and the frames
// are shrunk to the size they are sent at anyway. Where one decode pass
// serves both, it decodes at display size (largestSize).
//
// A decoder holds all the frames of a video's plan (up to a few hundred)
// until the feature stage takes them, so full frames bound the decoders:
// at most processorDecoders videos at once (each with more of FFmpeg's
// threads) and one finished video waiting, where the scaled frames allow
// one per core and two waiting per decoder. Past the decoders the feature
// stage holds at most features.DefaultFrameBytes of frames. Neither
// changes an output.
func (v *VideoModels) resizeInProcessor() {
	full := false
	if len(v.ImageText) > 0 {
		v.Size, full = decode.Size{}, true
	}
	if v.VLM != nil && !v.servedVLM {
		v.VLMSize, full = decode.Size{}, true
	}
	if v.Screen != nil && !v.servedScreen {
		v.ScreenSize, full = decode.Size{}, true
	}
	for k := range v.ExtraVLMSizes {
		if k < len(v.servedExtra) && !v.servedExtra[k] {
			v.ExtraVLMSizes[k], full = decode.Size{}, true
		}
	}
	if !full {
		return // served readers alone: their frames stay small
	}
	workers := v.Decode.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	v.Decode.Workers, v.Decode.Queue = min(workers, processorDecoders), 1
}

// largestSize is the decode size that serves every role asking for one of
// sizes: display size (the zero Size) where any asks for it, else the
// largest short side, so that no role's frames are enlarged. With no size
// asked it is display size.
func largestSize(sizes ...decode.Size) decode.Size {
	var out decode.Size
	for k, s := range sizes {
		if s == (decode.Size{}) {
			return decode.Size{}
		}
		if k == 0 || s.Short > out.Short {
			out.Short = s.Short
		}
	}
	return out
}
