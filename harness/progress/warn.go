package progress

import "fmt"

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
	r.mu.Lock()
	defer r.mu.Unlock()
	line := "warning: " + msg
	for i := 0; i+1 < len(args); i += 2 {
		line += fmt.Sprintf(" %v=%v", args[i], args[i+1])
	}
	fmt.Fprintln(r.w, line)
}
