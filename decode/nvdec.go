package decode

// NVDEC: decoding on NVIDIA GPUs through FFmpeg's cuda hwaccel, resizing on
// the GPU with the scale_cuda filter, and downloading only the small
// frames that are returned. go-astiav v0.16.0 cannot give a filter graph
// its hardware frames context, so the graph lives in the C below.

//#cgo pkg-config: libavcodec libavfilter libavutil
//#include <stdio.h>
//#include <libavcodec/avcodec.h>
//#include <libavfilter/avfilter.h>
//#include <libavfilter/buffersrc.h>
//#include <libavfilter/buffersink.h>
//#include <libavutil/hwcontext.h>
//
//typedef struct {
//	AVFilterGraph *g;
//	AVFilterContext *src, *sink;
//	AVFrame *small;
//} vs_cuda_scale;
//
//static void vs_cuda_scale_free(vs_cuda_scale *s) {
//	avfilter_graph_free(&s->g);
//	av_frame_free(&s->small);
//	s->src = s->sink = NULL;
//}
//
// // vs_cuda_scale_init builds buffer -> scale_cuda=w:h -> buffersink for
// // frames like in (CUDA surfaces from NVDEC).
//static int vs_cuda_scale_init(vs_cuda_scale *s, AVFrame *in, int ow, int oh) {
//	char args[256];
//	AVFilterContext *sc = NULL;
//	int ret;
//	vs_cuda_scale_free(s);
//	if (!in->hw_frames_ctx) return AVERROR(EINVAL);
//	s->g = avfilter_graph_alloc();
//	s->small = av_frame_alloc();
//	if (!s->g || !s->small) return AVERROR(ENOMEM);
//	snprintf(args, sizeof args, "video_size=%dx%d:pix_fmt=%d:time_base=1/90000:pixel_aspect=1/1", in->width, in->height, in->format);
//	if ((ret = avfilter_graph_create_filter(&s->src, avfilter_get_by_name("buffer"), "in", args, NULL, s->g)) < 0) return ret;
//	AVBufferSrcParameters *par = av_buffersrc_parameters_alloc();
//	if (!par) return AVERROR(ENOMEM);
//	par->hw_frames_ctx = in->hw_frames_ctx;
//	ret = av_buffersrc_parameters_set(s->src, par);
//	av_free(par);
//	if (ret < 0) return ret;
//	const AVFilter *f = avfilter_get_by_name("scale_cuda");
//	if (!f) return AVERROR_FILTER_NOT_FOUND;
//	snprintf(args, sizeof args, "w=%d:h=%d", ow, oh);
//	if ((ret = avfilter_graph_create_filter(&sc, f, "scale", args, NULL, s->g)) < 0) return ret;
//	if ((ret = avfilter_graph_create_filter(&s->sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, s->g)) < 0) return ret;
//	if ((ret = avfilter_link(s->src, 0, sc, 0)) < 0) return ret;
//	if ((ret = avfilter_link(sc, 0, s->sink, 0)) < 0) return ret;
//	return avfilter_graph_config(s->g, NULL);
//}
//
// // vs_cuda_scale_run resizes in on the GPU and downloads the result to out.
//static int vs_cuda_scale_run(vs_cuda_scale *s, AVFrame *in, AVFrame *out) {
//	int ret = av_buffersrc_add_frame_flags(s->src, in, AV_BUFFERSRC_FLAG_KEEP_REF);
//	if (ret < 0) return ret;
//	if ((ret = av_buffersink_get_frame(s->sink, s->small)) < 0) return ret;
//	av_frame_unref(out);
//	ret = av_hwframe_transfer_data(out, s->small, 0);
//	av_frame_unref(s->small);
//	return ret;
//}
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/asticode/go-astiav"
)

// A GPU is one CUDA device's FFmpeg context, shared by every decoder that
// runs on it (one decoder set per GPU).
type GPU struct {
	Index  int
	hdc    *astiav.HardwareDeviceContext
	err    error
	shared error // why FFmpeg is not on the primary context (nvdec_ctx.go)
}

// NewGPU opens CUDA device index for NVDEC, on the device's primary
// context where hwcontext_cuda grants it (so the frame path on the device
// can read the pictures) and on a context of FFmpeg's own where it does
// not (SharedErr says why). Without a driver or device it still returns a
// GPU whose Err says why, so decoders fall back to the CPU with that
// reason.
func NewGPU(index int) *GPU { return openGPU(index, ffmpegCUDA, readyPrimary, true) }

// Err is nil when the device opened.
func (g *GPU) Err() error { return g.err }

// Close drops the GPU's own reference to the device; decoders still open
// on it keep theirs.
func (g *GPU) Close() {
	if g.hdc != nil {
		ref := (**C.AVBufferRef)(unsafe.Pointer(g.hdc))
		C.av_buffer_unref(ref)
		g.hdc = nil
	}
}

// newRef returns a wrapper holding a new reference to the device. Each
// codec context needs its own: go-astiav v0.16.0's CodecContext.Free
// unreferences the wrapper it was given, so sharing one wrapper would free
// the device under the other decoders.
func (g *GPU) newRef() *astiav.HardwareDeviceContext {
	h := &astiav.HardwareDeviceContext{}
	shared := *(**C.AVBufferRef)(unsafe.Pointer(g.hdc))
	*(**C.AVBufferRef)(unsafe.Pointer(h)) = C.av_buffer_ref(shared)
	return h
}

// hwDecoder is the NVDEC side of a Decoder.
type hwDecoder struct {
	graph   C.vs_cuda_scale
	in      struct{ w, h, ow, oh, format int }
	sw      *astiav.Frame // the downloaded frame
	noGraph error         // why resizing on the GPU failed once; then download full frames
	shared  error         // the GPU's SharedErr: why its pictures are not in the primary context
}

// openNVDEC opens st's decoder on the GPU, or returns why it cannot.
func openNVDEC(g *GPU, st *astiav.Stream) (*hwDecoder, *astiav.CodecContext, string) {
	if g == nil {
		g = NewGPU(0)
		defer g.Close()
	}
	if g.err != nil {
		return nil, nil, g.err.Error()
	}
	cp := st.CodecParameters()
	codec := astiav.FindDecoder(cp.CodecID())
	if codec == nil {
		return nil, nil, fmt.Sprintf("no decoder for codec %q", cp.CodecID().Name())
	}
	hasCUDA := false
	for _, c := range codec.HardwareConfigs() {
		if c.HardwareDeviceType() == astiav.HardwareDeviceTypeCUDA && c.MethodFlags().Has(astiav.CodecHardwareConfigMethodFlagHwDeviceCtx) {
			hasCUDA = true
		}
	}
	if !hasCUDA {
		return nil, nil, fmt.Sprintf("FFmpeg's %s decoder has no CUDA hwaccel", codec.Name())
	}
	cc := astiav.AllocCodecContext(codec)
	if cc == nil {
		return nil, nil, "cannot allocate a codec context"
	}
	if err := cp.ToCodecContext(cc); err != nil {
		cc.Free()
		return nil, nil, fmt.Sprintf("codec parameters: %v", err)
	}
	cc.SetHardwareDeviceContext(g.newRef())
	cc.SetPixelFormatCallback(func(pfs []astiav.PixelFormat) astiav.PixelFormat {
		for _, pf := range pfs {
			if pf == astiav.PixelFormatCuda {
				return pf
			}
		}
		return pfs[0] // the decoder's software format: NVDEC refused this stream
	})
	// Frames held as candidate and lookahead, beyond the decoder's own.
	cc.SetExtraHardwareFrames(4)
	cc.SetThreadCount(1) // NVDEC does the work; FFmpeg's threads only add latency
	if err := cc.Open(codec, nil); err != nil {
		cc.SetPixelFormatCallback(nil)
		cc.Free()
		return nil, nil, fmt.Sprintf("open %s with CUDA: %v", codec.Name(), err)
	}
	return &hwDecoder{sw: astiav.AllocFrame(), shared: g.shared}, cc, ""
}

// scale resizes f to w x h on the GPU, downloads it and converts it to RGB
// into dst. A software frame is converted by scaler directly.
func (h *hwDecoder) scale(f *astiav.Frame, scaler *rgbScaler, dst []byte, w, hh int) error {
	if f.PixelFormat() != astiav.PixelFormatCuda {
		return scaler.scale(f, dst, w, hh)
	}
	cf := cFrame(f)
	if h.noGraph == nil {
		key := struct{ w, h, ow, oh, format int }{f.Width(), f.Height(), w, hh, int(cf.format)}
		if h.graph.g == nil || h.in != key {
			if ret := C.vs_cuda_scale_init(&h.graph, cf, C.int(w), C.int(hh)); ret < 0 {
				h.noGraph = fmt.Errorf("scale_cuda: %w", astiav.Error(ret))
				C.vs_cuda_scale_free(&h.graph)
			} else {
				h.in = key
			}
		}
	}
	if h.noGraph == nil {
		if ret := C.vs_cuda_scale_run(&h.graph, cf, cFrame(h.sw)); ret < 0 {
			return fmt.Errorf("resize on GPU: %w", astiav.Error(ret))
		}
	} else {
		h.sw.Unref()
		if err := f.TransferHardwareData(h.sw); err != nil {
			return fmt.Errorf("download frame from GPU: %w", err)
		}
	}
	return scaler.scale(h.sw, dst, w, hh)
}

func (h *hwDecoder) free() {
	C.vs_cuda_scale_free(&h.graph)
	if h.sw != nil {
		h.sw.Free()
	}
}

// fallbackNotice says each distinct reason for falling back to the CPU
// once, however many videos hit it.
type fallbackNotice struct {
	mu   sync.Mutex
	seen map[string]bool
}

// first reports whether reason has not been said before.
func (n *fallbackNotice) first(reason string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	if n.seen[reason] {
		return false
	}
	n.seen[reason] = true
	return true
}
