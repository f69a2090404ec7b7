package progress

import (
	"io"
	"os"

	"golang.org/x/term"
)

// ForWriter returns the Reporter a command gives a run whose progress goes
// to w: the board of live stages when w is a terminal (as wide as it is),
// log lines in format otherwise (a pipe, a batch log), and nil when quiet,
// on which every method does nothing. It fails only on an unknown format.
func ForWriter(w io.Writer, format string, quiet bool) (*Reporter, error) {
	if _, err := ParseFormat(format); err != nil {
		return nil, err
	}
	if quiet {
		return nil, nil
	}
	f, ok := w.(*os.File)
	isTerm := ok && term.IsTerminal(int(f.Fd()))
	width := 0
	if isTerm {
		width, _, _ = term.GetSize(int(f.Fd()))
	}
	return New(w, Options{Terminal: isTerm, Width: width, Format: format})
}
