package progress

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultEvery is how often a stage writes a log line while it runs: often
// enough that a `tail -f` of a batch log shows a live job, rarely enough
// that a day-long run writes a few thousand lines, not millions.
const DefaultEvery = 5 * time.Second

// Options configures a Reporter.
type Options struct {
	// Terminal selects the board of live stages (one line each, redrawn
	// in place); otherwise stages write log records.
	Terminal bool
	// Width is the terminal's width in columns (100 when 0): no line of
	// the board is longer, so none wraps.
	Width int
	// Format of the log records: "text" (the default) or "json".
	Format string
	// Every is the interval between a running stage's log records
	// (DefaultEvery when 0).
	Every time.Duration
}

// A Reporter reports the stages of one run on one writer. Its methods are
// safe for concurrent use; on a nil Reporter they do nothing.
type Reporter struct {
	w     io.Writer
	term  bool
	log   *slog.Logger
	every time.Duration
	now   func() time.Time

	mu   sync.Mutex
	open map[*Meter]bool // meters started and not yet ended, stopped by Close

	// The terminal's board (board.go), under mu but for lastDraw.
	width    int
	live     []*Meter // in the order they started
	drawn    int      // lines of the board on the screen
	lastDraw atomic.Int64
}

// ParseFormat checks a --log-format value.
func ParseFormat(s string) (string, error) {
	switch s {
	case "", "text":
		return "text", nil
	case "json":
		return "json", nil
	}
	return "", fmt.Errorf("log format %q: want text or json", s)
}

// New returns a Reporter writing to w. It fails only on an unknown Format.
func New(w io.Writer, opt Options) (*Reporter, error) {
	format, err := ParseFormat(opt.Format)
	if err != nil {
		return nil, err
	}
	r := &Reporter{w: w, term: opt.Terminal, every: opt.Every, now: time.Now, open: map[*Meter]bool{}, width: opt.Width}
	if r.width <= 0 {
		r.width = 100
	}
	if r.every <= 0 {
		r.every = DefaultEvery
	}
	hopt := &slog.HandlerOptions{Level: slog.LevelInfo}
	if format == "json" {
		r.log = slog.New(slog.NewJSONHandler(w, hopt))
	} else {
		r.log = slog.New(slog.NewTextHandler(w, hopt))
	}
	return r, nil
}

// Logger returns the logger of r's log records (nil for a nil Reporter), for
// messages that belong beside the stages' own.
func (r *Reporter) Logger() *slog.Logger {
	if r == nil {
		return nil
	}
	return r.log
}

// Note reports one event of the run (what a resumed run found stored, a
// cache hit): a log record, or on a terminal one plain line above the live
// stages.
func (r *Reporter) Note(msg string, args ...any) {
	if r == nil {
		return
	}
	if !r.term {
		r.log.Info(msg, args...)
		return
	}
	r.printAbove(plainLine(msg, args))
}

func plainLine(msg string, args []any) string {
	line := msg
	for i := 0; i+1 < len(args); i += 2 {
		line += fmt.Sprintf(" %v=%v", args[i], args[i+1])
	}
	return line
}

// Close ends every stage still open (as stopped) so that no ticker
// outlives the run. The Reporter may not be used afterwards.
func (r *Reporter) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	var open []*Meter
	for m := range r.open {
		open = append(open, m)
	}
	r.mu.Unlock()
	for _, m := range open {
		m.Exit()
	}
}
