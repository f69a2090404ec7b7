package decode

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/asticode/go-astiav"
)

// SetLogLevel sets how much FFmpeg itself prints: "quiet", "error",
// "warning" (FFmpeg's default is "info"). Each line goes to standard error
// as "ffmpeg: VIDEO: LEVEL: message", VIDEO being the file whose demuxer or
// decoder wrote it, instead of FFmpeg's bare
// "[h264 @ 0x55d0...] ..." lines, which name no file when several videos
// are decoded at once. A line from a context FFmpeg made itself (a stream
// parser's) is named only while one video is open, and is "-" otherwise.
// FFmpeg's log level and callback are one setting for
// the whole process, so only a program's main (or a test's TestMain)
// should call this. Per-video failures reach the caller as *VideoError
// either way.
func SetLogLevel(level string) error {
	levels := map[string]astiav.LogLevel{
		"quiet": astiav.LogLevelQuiet, "panic": astiav.LogLevelPanic, "fatal": astiav.LogLevelFatal,
		"error": astiav.LogLevelError, "warning": astiav.LogLevelWarning, "info": astiav.LogLevelInfo,
		"verbose": astiav.LogLevelVerbose, "debug": astiav.LogLevelDebug,
	}
	l, ok := levels[level]
	if !ok {
		return fmt.Errorf("unknown FFmpeg log level %q (want quiet, error, warning, info, verbose or debug)", level)
	}
	astiav.SetLogLevel(l)
	installLogCallback()
	return nil
}

// logVideos names the videos whose FFmpeg contexts are open, by the id
// their contexts carry in their opaque field (fflog.go). It is package
// state because FFmpeg's log callback is: one for the process.
var logVideos = struct {
	sync.Mutex
	next  uintptr
	paths map[uintptr]string
	out   io.Writer
}{paths: map[uintptr]string{}, out: os.Stderr}

// registerLogVideo returns the id under which the FFmpeg contexts of path
// name it in log lines; unregisterLogVideo forgets it.
func registerLogVideo(path string) uintptr {
	logVideos.Lock()
	defer logVideos.Unlock()
	logVideos.next++
	logVideos.paths[logVideos.next] = path
	return logVideos.next
}

func unregisterLogVideo(id uintptr) {
	logVideos.Lock()
	defer logVideos.Unlock()
	delete(logVideos.paths, id)
}

// setLogOutput sends the log lines to w (tests) and returns the writer
// they went to before.
func setLogOutput(w io.Writer) io.Writer {
	logVideos.Lock()
	defer logVideos.Unlock()
	prev := logVideos.out
	logVideos.out = w
	return prev
}

// logLine writes one FFmpeg log line, named by the video of id (0: none).
func logLine(level int, id uintptr, line string) {
	line = strings.TrimRight(line, "\r\n")
	if strings.TrimSpace(line) == "" {
		return
	}
	logVideos.Lock()
	defer logVideos.Unlock()
	path := logVideos.paths[id]
	if id == 0 && len(logVideos.paths) == 1 {
		// A context FFmpeg made itself (a stream parser's, "[NULL @ ...]")
		// carries no id; with one video open it is that video's.
		for _, p := range logVideos.paths {
			path = p
		}
	}
	if path == "" {
		path = "-"
	}
	fmt.Fprintf(logVideos.out, "ffmpeg: %s: %s: %s\n", path, levelName(level), line)
}

// levelName is the word for an FFmpeg log level (libavutil/log.h).
func levelName(level int) string {
	switch l := astiav.LogLevel(level); {
	case l <= astiav.LogLevelPanic:
		return "panic"
	case l <= astiav.LogLevelFatal:
		return "fatal"
	case l <= astiav.LogLevelError:
		return "error"
	case l <= astiav.LogLevelWarning:
		return "warning"
	case l <= astiav.LogLevelInfo:
		return "info"
	case l <= astiav.LogLevelVerbose:
		return "verbose"
	}
	return "debug"
}
