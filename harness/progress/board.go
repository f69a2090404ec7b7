package progress

import (
	"fmt"
	"strings"
	"time"
)

// The terminal shows the run as a board: the lines printed so far (notes,
// warnings, one line per stage that ended) scroll as usual, and below them
// one line per live stage, in the order the stages started, redrawn in
// place. A stage that ends leaves one line saying how it ended and its line
// leaves the board; when the run ends the board is empty, so nothing is
// left behind for the summary to follow. The board is drawn with three
// ANSI sequences every terminal emulator knows: CSI n F (to the start of
// the line n lines up), CSI J (erase to the end of the screen) and CSI K
// (erase the rest of the line), and each line is cut to the terminal's
// width so that none wraps (a wrapped line would break the count of lines
// to move up).

// redrawEvery bounds how often counting redraws the board: a terminal
// shows ten frames a second fine, and thousands of Adds a second must not
// each write to it.
const redrawEvery = 100 * time.Millisecond

// terminalTick is how often a live stage redraws on a terminal whether or
// not it moved, so that its elapsed time runs and a stall shows.
const terminalTick = 500 * time.Millisecond

// barWidth is the width of a stage's bar between its brackets.
const barWidth = 20

// redraw draws the board now if force or redrawEvery has passed since the
// last draw.
func (r *Reporter) redraw(force bool) {
	now := time.Now().UnixNano()
	if !force && now-r.lastDraw.Load() < int64(redrawEvery) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drawLocked("")
}

// drawLocked erases the board, prints above (whole lines, "" for none) and
// draws the live stages again, in one write. r.mu is held.
func (r *Reporter) drawLocked(above string) {
	var b strings.Builder
	if r.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dF", r.drawn)
	}
	b.WriteString("\x1b[J")
	b.WriteString(above)
	now := r.now()
	for _, m := range r.live {
		b.WriteString(r.fit(m.line(now)))
		b.WriteString("\x1b[K\n")
	}
	r.drawn = len(r.live)
	r.lastDraw.Store(time.Now().UnixNano())
	r.w.Write([]byte(b.String()))
}

// fit cuts a line to one column less than the terminal's width (the last
// column would make some terminals wrap).
func (r *Reporter) fit(line string) string {
	if rs := []rune(line); len(rs) > r.width-1 {
		return string(rs[:max(r.width-2, 1)]) + "…"
	}
	return line
}

// printAbove prints a finished line above the board.
func (r *Reporter) printAbove(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drawLocked(r.fit(line) + "\n")
}

// addLive puts m on the board, at the bottom.
func (r *Reporter) addLive(m *Meter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live = append(r.live, m)
	r.drawLocked("")
}

// endLive takes m off the board and prints its last line above it.
func (r *Reporter) endLive(m *Meter, stopped bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, x := range r.live {
		if x == m {
			r.live = append(r.live[:i], r.live[i+1:]...)
			break
		}
	}
	r.drawLocked(r.fit(m.endLine(r.now(), stopped)) + "\n")
}

// line is m's live line: name, bar (or, with no known total, a spinner),
// count, rate, elapsed time and ETA.
func (m *Meter) line(now time.Time) string {
	done := m.done.Load()
	elapsed := now.Sub(m.start)
	rate := perSecond(done, elapsed)
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s ", m.stage)
	if m.total > 0 {
		filled := int(min(done, m.total) * barWidth / m.total)
		fmt.Fprintf(&b, "[%s%s] %d/%d %s", strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), done, m.total, m.unit)
	} else {
		spin := `|/-\`[int(elapsed/terminalTick)%4]
		fmt.Fprintf(&b, "%c %d %s (total unknown)", spin, done, m.unit)
	}
	fmt.Fprintf(&b, ", %s %s/s, %s", rateText(rate), m.unit, clockText(elapsed))
	if m.total > 0 && rate > 0 && done < m.total {
		fmt.Fprintf(&b, ", eta %s", clockText(time.Duration(float64(m.total-done)/rate*float64(time.Second))))
	}
	return b.String()
}

// endLine is the line a stage leaves when it ends.
func (m *Meter) endLine(now time.Time, stopped bool) string {
	done := m.done.Load()
	elapsed := now.Sub(m.start)
	if stopped {
		of := ""
		if m.total > 0 {
			of = fmt.Sprintf("/%d", m.total)
		}
		return fmt.Sprintf("%-10s stopped at %d%s %s after %s", m.stage, done, of, m.unit, clockText(elapsed))
	}
	return fmt.Sprintf("%-10s done: %d %s in %s, %s %s/s", m.stage, done, m.unit, clockText(elapsed), rateText(perSecond(done, elapsed)), m.unit)
}

func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// rateText keeps three significant figures or one decimal, whichever is
// shorter to read: 0.25, 4.2, 214, 12800.
func rateText(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	if x >= 0.1 || x == 0 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2g", x)
}

// clockText writes a duration as 9s, 4m05s or 2h03m.
func clockText(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}
