package decode

// This file routes FFmpeg's log through a callback of its own instead of
// go-astiav's SetLogCallback, whose C side formats each message with
// vsprintf into a 1,024-byte stack buffer (a long message, such as one
// quoting a file name, would overflow it) and cannot tell which video a
// decoder thread's copy of a codec context belongs to. Here the message is
// formatted by av_log_format_line2, bounded, and the video is found from
// the opaque field of the AVCodecContext or AVFormatContext that logs,
// which FFmpeg copies into the frame threads' contexts.

//#cgo pkg-config: libavcodec libavformat libavutil
//#include <stdarg.h>
//#include <stdint.h>
//#include <string.h>
//#include <libavcodec/avcodec.h>
//#include <libavformat/avformat.h>
//#include <libavutil/log.h>
//
//extern void vsGoLogLine(int level, uintptr_t video, char *line);
//
//static void vs_log_cb(void *ptr, int level, const char *fmt, va_list vl) {
//	if (level > av_log_get_level()) return;
//	uintptr_t video = 0;
//	if (ptr) {
//		const AVClass *c = *(const AVClass **)ptr;
//		if (c && c->class_name) {
//			if (!strcmp(c->class_name, "AVCodecContext")) video = (uintptr_t)((AVCodecContext *)ptr)->opaque;
//			else if (!strcmp(c->class_name, "AVFormatContext")) video = (uintptr_t)((AVFormatContext *)ptr)->opaque;
//		}
//	}
//	char line[2048];
//	int prefix = 1;
//	av_log_format_line2(ptr, level, fmt, vl, line, sizeof line, &prefix);
//	vsGoLogLine(level, video, line);
//}
//static void vs_set_log_cb(void) { av_log_set_callback(vs_log_cb); }
//static void vs_codec_log_id(AVCodecContext *cc, uintptr_t id) { cc->opaque = (void *)id; }
//static void vs_format_log_id(AVFormatContext *fc, uintptr_t id) { fc->opaque = (void *)id; }
import "C"

import (
	"sync"

	"github.com/asticode/go-astiav"
)

var logCallbackOnce sync.Once

// installLogCallback makes FFmpeg's log lines go through logLine.
func installLogCallback() {
	logCallbackOnce.Do(func() { C.vs_set_log_cb() })
}

//export vsGoLogLine
func vsGoLogLine(level C.int, video C.uintptr_t, line *C.char) {
	logLine(int(level), uintptr(video), C.GoString(line))
}

// setFormatLogID and setCodecLogID mark an FFmpeg context as video id's,
// for the log lines it writes (registerLogVideo). A codec context must be
// marked before it is opened: its frame threads copy the field then.
func setFormatLogID(fc *astiav.FormatContext, id uintptr) {
	C.vs_format_log_id(cFormatContext(fc), C.uintptr_t(id))
}

func setCodecLogID(cc *astiav.CodecContext, id uintptr) {
	C.vs_codec_log_id(cCodecContext(cc), C.uintptr_t(id))
}
