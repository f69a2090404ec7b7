package progress

import (
	"io"
	"strings"
	"sync"
)

// Warn reports something wrong that does not stop the run but that a user
// must not miss (captions that came out empty): a log record at level
// WARN, or on a terminal one line starting "warning:".
func (r *Reporter) Warn(msg string, args ...any) {
	if r == nil {
		return
	}
	if !r.term {
		r.log.Warn(msg, args...)
		return
	}
	r.printAbove("warning: " + plainLine(msg, args))
}

// Warnings returns a writer that reports each line written to it with Warn,
// less prefix when the line starts with it: for code that writes its
// warnings to an io.Writer (stderr) and would otherwise put a plain line
// among JSON records. A partial last line waits for its newline.
func (r *Reporter) Warnings(prefix string) io.Writer {
	return &warnWriter{r: r, prefix: prefix}
}

type warnWriter struct {
	r      *Reporter
	prefix string
	mu     sync.Mutex
	buf    []byte
}

func (w *warnWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := strings.TrimPrefix(strings.TrimRight(string(w.buf[:i]), "\r"), w.prefix)
		w.buf = w.buf[i+1:]
		if line != "" {
			w.r.Warn(line)
		}
	}
}
