package decode

// This file is the only place in the package that reaches below go-astiav's
// API, for the few FFmpeg 5.1 calls that go-astiav v0.16.0 does not wrap:
// flushing a decoder after a seek, reading a stream's seek index, discarding
// streams at the demuxer, and scaling straight into a Go-owned buffer.

//#cgo pkg-config: libavcodec libavformat libavutil libswscale
//#include <libavcodec/avcodec.h>
//#include <libavformat/avformat.h>
//#include <libavutil/frame.h>
//#include <libswscale/swscale.h>
//
//static int vs_index_count(AVStream *st) { return avformat_index_get_entries_count(st); }
//static int vs_index_entry(AVStream *st, int i, int64_t *ts, int *key, int64_t *pos, int *size) {
//	const AVIndexEntry *e = avformat_index_get_entry(st, i);
//	if (!e) return -1;
//	*ts = e->timestamp;
//	*key = (e->flags & AVINDEX_KEYFRAME) != 0;
//	*pos = e->pos;
//	*size = e->size;
//	return 0;
//}
//static void vs_discard_all(AVStream *st) { st->discard = AVDISCARD_ALL; }
//static int vs_attached_pic(AVStream *st) { return (st->disposition & AV_DISPOSITION_ATTACHED_PIC) != 0; }
//static void vs_set_pkt_timebase(AVCodecContext *cc, AVStream *st) { cc->pkt_timebase = st->time_base; }
//static int vs_interrupt_cb(void *p) { return __atomic_load_n((int *)p, __ATOMIC_RELAXED); }
//static int *vs_interrupt_new(AVFormatContext *fc) {
//	int *p = av_mallocz(sizeof(int));
//	if (!p) return NULL;
//	fc->interrupt_callback.callback = vs_interrupt_cb;
//	fc->interrupt_callback.opaque = p;
//	return p;
//}
//static void vs_interrupt_set(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
//static void vs_interrupt_free(int *p) { av_free(p); }
//static void vs_skip_nonref(AVCodecContext *cc, int on) { cc->skip_frame = on ? AVDISCARD_NONREF : AVDISCARD_DEFAULT; }
// // vs_h264_nonref reports whether pkt holds one H.264 picture that no other
// // picture refers to: every VCL NAL unit (types 1-5) has nal_ref_idc 0
// // (ITU-T H.264 7.4.1), and no parameter set rides along. Only for avcC
// // packets (extradata[0] == 1, ISO/IEC 14496-15 5.2.4.1: NAL units behind
// // big-endian lengths of (extradata[4] & 3) + 1 bytes); anything else says 0.
//static int vs_h264_nonref(AVCodecContext *cc, AVPacket *pkt) {
//	if (cc->codec_id != AV_CODEC_ID_H264 || cc->extradata_size < 7 || cc->extradata[0] != 1 || !pkt->data) return 0;
//	int n = (cc->extradata[4] & 3) + 1, vcl = 0;
//	const uint8_t *p = pkt->data, *end = pkt->data + pkt->size;
//	while (end - p > n) {
//		uint32_t len = 0;
//		for (int i = 0; i < n; i++) len = len << 8 | p[i];
//		p += n;
//		if (len == 0 || len > (uint32_t)(end - p)) return 0;
//		int type = p[0] & 0x1f, ref = (p[0] >> 5) & 3;
//		if (type >= 1 && type <= 5) {
//			if (ref != 0 || type == 5) return 0;
//			vcl++;
//		} else if (type == 7 || type == 8 || type == 13 || type == 15) {
//			return 0;
//		}
//		p += len;
//	}
//	return p == end && vcl > 0;
//}
//static int64_t vs_frame_duration(AVFrame *f) { return f->pkt_duration; }
//static int64_t vs_frame_best_pts(AVFrame *f) { return f->best_effort_timestamp; }
//
// // vs_scaler is one swscale context and what it was made for. The
// // parameters are kept here rather than asked of sws_getCachedContext:
// // swscale rewrites a context's flags while setting it up (an odd output
// // width adds SWS_FULL_CHR_H_INT), so sws_getCachedContext would free and
// // remake it on every call, and the new context, often at the freed one's
// // address, would look unchanged and keep swscale's default BT.601 colours.
//typedef struct {
//	struct SwsContext *ctx;
//	int sw, sh, sfmt, dw, dh, flags;
//	int cs_key; // colour space * 2 + full range, as last set; -1: none
//} vs_scaler;
//
// // vs_scale converts src into a packed RGB24 image of dw x dh at dst (stride
// // dstride), reusing s's context while the frame's size and format and the
// // output's still match, and setting the colour space and range only when
// // they change, since sws_setColorspaceDetails rebuilds swscale's tables.
//static int vs_scale(vs_scaler *s, AVFrame *src, uint8_t *dst, int dw, int dh, int dstride, int flags) {
//	if (!s->ctx || s->sw != src->width || s->sh != src->height || s->sfmt != src->format ||
//	    s->dw != dw || s->dh != dh || s->flags != flags) {
//		sws_freeContext(s->ctx);
//		s->ctx = sws_getContext(src->width, src->height, src->format, dw, dh, AV_PIX_FMT_RGB24, flags, NULL, NULL, NULL);
//		if (!s->ctx) return AVERROR(EINVAL);
//		s->sw = src->width; s->sh = src->height; s->sfmt = src->format;
//		s->dw = dw; s->dh = dh; s->flags = flags;
//		s->cs_key = -1;
//	}
//	int cs = src->colorspace;
//	if (cs == AVCOL_SPC_UNSPECIFIED || cs == AVCOL_SPC_RGB || cs == AVCOL_SPC_RESERVED) cs = SWS_CS_DEFAULT;
//	int full = src->color_range == AVCOL_RANGE_JPEG;
//	if (src->format == AV_PIX_FMT_YUVJ420P || src->format == AV_PIX_FMT_YUVJ422P || src->format == AV_PIX_FMT_YUVJ444P) full = 1;
//	int key = cs * 2 + full;
//	if (s->cs_key != key) {
//		sws_setColorspaceDetails(s->ctx, sws_getCoefficients(cs), full, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
//		s->cs_key = key;
//	}
//	uint8_t *d[4] = {dst, NULL, NULL, NULL};
//	int ds[4] = {dstride, 0, 0, 0};
//	int h = sws_scale(s->ctx, (const uint8_t *const *)src->data, src->linesize, 0, src->height, d, ds);
//	return h == dh ? 0 : AVERROR(EINVAL);
//}
//static void vs_free_scale(vs_scaler *s) { sws_freeContext(s->ctx); s->ctx = NULL; }
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/asticode/go-astiav"
)

// go-astiav v0.16.0 keeps each FFmpeg object as the first (and for these
// types only) pointer field of its wrapper struct, unexported. The helpers
// below read that field; checkCodecContextLayout guards the assumption at
// run time so that a different go-astiav version fails loudly, not silently.

func cCodecContext(cc *astiav.CodecContext) *C.AVCodecContext {
	return *(**C.AVCodecContext)(unsafe.Pointer(cc))
}

func cFormatContext(fc *astiav.FormatContext) *C.AVFormatContext {
	return *(**C.AVFormatContext)(unsafe.Pointer(fc))
}

func cStream(s *astiav.Stream) *C.AVStream {
	return *(**C.AVStream)(unsafe.Pointer(s))
}

func cPacket(p *astiav.Packet) *C.AVPacket {
	return *(**C.AVPacket)(unsafe.Pointer(p))
}

func cFrame(f *astiav.Frame) *C.AVFrame {
	return (*C.AVFrame)(f.UnsafePointer())
}

// checkCodecContextLayout reports an error if the pointer read from cc does
// not point at the AVCodecContext that go-astiav's own getters read.
func checkCodecContextLayout(cc *astiav.CodecContext) error {
	c := cCodecContext(cc)
	if c == nil || int(c.width) != cc.Width() || int(c.height) != cc.Height() || astiav.CodecID(c.codec_id) != cc.CodecID() {
		return fmt.Errorf("go-astiav CodecContext layout is not the one this package was written for (v0.16.0)")
	}
	return nil
}

// flushDecoder drops every frame and reference the decoder holds, as needed
// after a seek (avcodec_flush_buffers; go-astiav v0.16.0 does not wrap it).
func flushDecoder(cc *astiav.CodecContext) {
	C.avcodec_flush_buffers(cCodecContext(cc))
}

// setPacketTimeBase tells the decoder the time base of the packets it gets,
// as the ffmpeg command does, so best_effort_timestamp is computed right.
func setPacketTimeBase(cc *astiav.CodecContext, s *astiav.Stream) {
	C.vs_set_pkt_timebase(cCodecContext(cc), cStream(s))
}

// skipNonReference tells the decoder whether to skip the frames it is
// about to get that no other frame refers to (AVCodecContext.skip_frame =
// AVDISCARD_NONREF). Decoders read the setting per packet, frame threads
// included, so it can change between packets.
func skipNonReference(cc *astiav.CodecContext, on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.vs_skip_nonref(cCodecContext(cc), v)
}

// isH264NonReference reports whether pkt holds one H.264 picture that no
// other picture refers to, read from its NAL headers. Such packets can be
// dropped before the decoder instead of being skipped inside it: with frame
// threads a skipped packet still takes its turn on a thread, which would
// serialise the reference frames around it.
func isH264NonReference(cc *astiav.CodecContext, pkt *astiav.Packet) bool {
	return C.vs_h264_nonref(cCodecContext(cc), cPacket(pkt)) != 0
}

// ioInterrupt is the flag FFmpeg's blocking I/O on one format context
// polls (AVIOInterruptCB); set from any goroutine, it makes reads fail with
// AVERROR_EXIT. go-astiav's own interrupter writes a plain int, which is a
// data race when a context's cancellation sets it; this one is atomic.
type ioInterrupt struct{ p *C.int }

// newIOInterrupt installs a flag on fc, which must not be opened yet.
func newIOInterrupt(fc *astiav.FormatContext) (ioInterrupt, error) {
	p := C.vs_interrupt_new(cFormatContext(fc))
	if p == nil {
		return ioInterrupt{}, fmt.Errorf("cannot allocate an interrupt flag")
	}
	return ioInterrupt{p}, nil
}

func (i ioInterrupt) set(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.vs_interrupt_set(i.p, v)
}

// free releases the flag; call it only after the format context is closed.
func (i ioInterrupt) free() { C.vs_interrupt_free(i.p) }

// indexEntry is one entry of the demuxer's seek index for a stream.
type indexEntry struct {
	ts  int64 // in the stream's time base; decode order timestamps for MP4
	key bool
	pos int64 // byte offset of the sample in the file
	n   int   // bytes of the sample
}

// streamIndex returns the seek index the demuxer holds for s (for MP4 every
// sample, for Matroska the cue points), or nil when it has none.
func streamIndex(s *astiav.Stream) []indexEntry {
	st := cStream(s)
	n := int(C.vs_index_count(st))
	if n <= 0 {
		return nil
	}
	out := make([]indexEntry, 0, n)
	for i := 0; i < n; i++ {
		var ts, pos C.int64_t
		var key, size C.int
		if C.vs_index_entry(st, C.int(i), &ts, &key, &pos, &size) != 0 {
			break
		}
		out = append(out, indexEntry{ts: int64(ts), key: key != 0, pos: int64(pos), n: int(size)})
	}
	return out
}

// discardStream tells the demuxer to drop the packets of s without reading
// them into packets (audio and data streams we never decode).
func discardStream(s *astiav.Stream) { C.vs_discard_all(cStream(s)) }

// isAttachedPicture reports cover art: a picture stored as a one-frame
// video stream (AV_DISPOSITION_ATTACHED_PIC), which is not the video.
func isAttachedPicture(s *astiav.Stream) bool { return C.vs_attached_pic(cStream(s)) != 0 }

// frameDuration is the duration of f in its stream's time base as the
// demuxer reported it (0 when unknown).
func frameDuration(f *astiav.Frame) int64 { return int64(C.vs_frame_duration(cFrame(f))) }

// frameTimestamp is the decoder's best estimate of f's presentation time
// (best_effort_timestamp: the pts, or a guess from the dts when pts is missing).
func frameTimestamp(f *astiav.Frame) int64 { return int64(C.vs_frame_best_pts(cFrame(f))) }

// rgbScaler converts decoded frames to packed RGB24 through swscale.
type rgbScaler struct {
	c     C.vs_scaler
	flags int // swscale's algorithm; 0 means swsArea
}

// swsArea is FFmpeg's SWS_AREA, the default: frames are mostly shrunk
// (1080p to a 224 short side), where averaging the source pixels each output
// pixel covers avoids aliasing, as OpenCV's INTER_AREA does. On 2 cores it
// converted a 1080p frame to 398x224 RGB in 1.7 ms, against 2.6 ms for
// SWS_BILINEAR and 3.8 ms for SWS_BICUBIC (BenchmarkScaleRGB).
const swsArea = C.SWS_AREA

// Other swscale algorithms, compared in BenchmarkScaleRGB.
const (
	swsBilinear = C.SWS_BILINEAR
	swsBicubic  = C.SWS_BICUBIC
)

// scale writes f, resized to w x h, into dst (len >= 3*w*h).
func (s *rgbScaler) scale(f *astiav.Frame, dst []byte, w, h int) error {
	if len(dst) < 3*w*h {
		return fmt.Errorf("scale: buffer holds %d bytes, need %d", len(dst), 3*w*h)
	}
	flags := s.flags
	if flags == 0 {
		flags = swsArea
	}
	ret := C.vs_scale(&s.c, cFrame(f), (*C.uint8_t)(unsafe.Pointer(&dst[0])), C.int(w), C.int(h), C.int(3*w), C.int(flags))
	if ret < 0 {
		return fmt.Errorf("scale %dx%d %s to %dx%d rgb24: %w", f.Width(), f.Height(), f.PixelFormat(), w, h, astiav.Error(ret))
	}
	return nil
}

func (s *rgbScaler) free() { C.vs_free_scale(&s.c) }
