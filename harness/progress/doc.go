// Package progress tells the person running a long job how far each stage
// has got, in the form that survives where its output goes.
//
// A Reporter is made once per run for one writer (stderr). On a terminal
// each stage is a bar (github.com/schollz/progressbar/v3) with count, rate
// and ETA. Anywhere else (a pipe, `tee`, `nohup`, a batch scheduler's log
// file) a bar is a wall of carriage returns that shows nothing until the
// end, so each stage writes log/slog records instead, as text or JSON: one
// when the stage starts, one every few seconds while it runs (stage,
// done/total, rate, ETA, even when nothing moved, so a stalled stage is
// visible), and one when it ends or stops.
//
// A nil *Reporter and a nil *Meter do nothing, so stages report
// unconditionally and --quiet is a nil Reporter.
package progress
