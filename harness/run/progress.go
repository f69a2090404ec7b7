package run

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// A meter shows the progress of one stage. With no writer (output is not a
// terminal) every method does nothing, so stages call it unconditionally.
type meter struct{ bar *progressbar.ProgressBar }

// newMeter starts a bar of total units on w, with count, rate and ETA.
func newMeter(w io.Writer, total int64, desc, unit string) meter {
	if w == nil || total <= 0 {
		return meter{}
	}
	return meter{progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { io.WriteString(w, "\n") }),
	)}
}

func (m meter) add(n int) {
	if m.bar != nil {
		m.bar.Add(n)
	}
}

func (m meter) finish() {
	if m.bar != nil {
		m.bar.Finish()
	}
}

// exit stops the bar where it is (on error or cancellation).
func (m meter) exit() {
	if m.bar != nil {
		m.bar.Exit()
	}
}
