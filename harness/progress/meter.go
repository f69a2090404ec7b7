package progress

import (
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Meter follows one stage of a run: total units of work (items, texts,
// files), counted as they complete. Its methods are safe for concurrent
// use; on a nil Meter they do nothing.
type Meter struct {
	r     *Reporter
	stage string
	unit  string
	total int64
	start time.Time
	done  atomic.Int64

	end  sync.Once
	stop chan struct{} // closed when the stage ends; stops the ticker
	tick sync.WaitGroup
}

// Stage starts a stage of total units (the number unknown when total <= 0)
// and reports its start.
func (r *Reporter) Stage(name string, total int64, unit string) *Meter {
	if r == nil {
		return nil
	}
	name = strings.TrimSpace(name)
	m := &Meter{r: r, stage: name, unit: unit, total: total, start: r.now(), stop: make(chan struct{})}
	r.mu.Lock()
	r.open[m] = true
	r.mu.Unlock()
	m.tick.Add(1)
	if r.term {
		r.addLive(m)
		go m.ticker(terminalTick)
		return m
	}
	r.log.Info("stage start", "stage", name, "total", totalAttr(total), "unit", unit)
	go m.ticker(r.every)
	return m
}

// totalAttr is a stage's total as its log records give it: the number, or
// "unknown" (a stage that counts what it finds, as decode counts frames).
func totalAttr(total int64) any {
	if total <= 0 {
		return "unknown"
	}
	return total
}

// ticker reports the stage every interval until it ends, moved or not: a
// silent log cannot tell a slow stage from a hung one, and on a terminal
// the elapsed time runs. On a terminal it redraws the board; elsewhere it
// writes a progress record.
func (m *Meter) ticker(every time.Duration) {
	defer m.tick.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			if m.r.term {
				m.r.redraw(true)
			} else {
				m.r.log.Info("stage progress", m.attrs(m.done.Load())...)
			}
		}
	}
}

// attrs describes the stage after done units: done, total, unit, rate,
// elapsed and (when the total is known and something moved) the ETA.
func (m *Meter) attrs(done int64) []any {
	elapsed := m.r.now().Sub(m.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed
	}
	a := []any{"stage", m.stage, "done", done, "total", totalAttr(m.total), "unit", m.unit,
		"rate", round(rate), "elapsed_s", round(elapsed)}
	if m.total > 0 && rate > 0 && done < m.total {
		a = append(a, "eta_s", round(float64(m.total-done)/rate))
	}
	return a
}

// round keeps one decimal: log lines are read by people and by scripts, and
// neither wants 17 digits.
func round(x float64) float64 { return math.Round(x*10) / 10 }

// Add counts n more units done.
func (m *Meter) Add(n int64) {
	if m == nil || n == 0 {
		return
	}
	m.done.Add(n)
	if m.r.term {
		m.r.redraw(false)
	}
}

// Done returns the units counted so far.
func (m *Meter) Done() int64 {
	if m == nil {
		return 0
	}
	return m.done.Load()
}

// Finish ends the stage as complete and reports its end. Calls after the
// first end do nothing.
func (m *Meter) Finish() { m.close(false) }

// Exit ends the stage where it is (on error or cancellation) and reports
// that it stopped. Calls after the first end do nothing.
func (m *Meter) Exit() { m.close(true) }

func (m *Meter) close(stopped bool) {
	if m == nil {
		return
	}
	m.end.Do(func() {
		close(m.stop)
		m.tick.Wait()
		m.r.mu.Lock()
		delete(m.r.open, m)
		m.r.mu.Unlock()
		switch {
		case m.r.term:
			m.r.endLive(m, stopped)
		case stopped:
			m.r.log.Warn("stage stopped", m.attrs(m.done.Load())...)
		default:
			m.r.log.Log(nil, slog.LevelInfo, "stage done", m.attrs(m.done.Load())...)
		}
	})
}
