package decode

import (
	"fmt"

	"github.com/asticode/go-astiav"
)

// SetLogLevel sets how much FFmpeg itself prints to standard error:
// "quiet", "error", "warning" (FFmpeg's default is "info"). FFmpeg's log
// level is one setting for the whole process, so only a program's main
// (or a test's TestMain) should call this. Per-video failures reach the
// caller as *VideoError either way.
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
	return nil
}
