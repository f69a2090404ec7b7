// Package progress tells the person running a long job how far each stage
// has got, in the form that survives where its output goes.
//
// A Reporter is made once per run for one writer (stderr). On a terminal
// the live stages form a board, one line each with its bar, count, rate and
// ETA, redrawn in place below the lines printed so far; a stage that ends
// leaves one line saying how, and the board is empty when the run ends
// (board.go). Anywhere else (a pipe, `tee`, `nohup`, a batch scheduler's log
// file) a bar is a wall of carriage returns that shows nothing until the
// end, so each stage writes log/slog records instead, as text or JSON: one
// when the stage starts, one every few seconds while it runs (stage,
// done/total, rate, ETA, even when nothing moved, so a stalled stage is
// visible), and one when it ends or stops; a total not known in advance is
// logged as "unknown". Warnings (Warn, Warnings) take the same form, so a
// JSON log is JSON on every line.
//
// A nil *Reporter and a nil *Meter do nothing, so stages report
// unconditionally and --quiet is a nil Reporter.
package progress
