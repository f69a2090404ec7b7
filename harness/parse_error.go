package harness

import (
	"errors"
	"fmt"
)

// The reasons an item is refused. A ParseError wraps one of them, so that a
// caller can tell them apart with errors.Is.
var (
	ErrMissingField    = errors.New("missing field")
	ErrFieldType       = errors.New("wrong type")
	ErrEmptyField      = errors.New("empty value")
	ErrAnswerRange     = errors.New("answer out of range")
	ErrTooFewOptions   = errors.New("fewer than two options")
	ErrTooManyOptions  = errors.New("more than 16 options")
	ErrDuplicateID     = errors.New("duplicate id")
	ErrInvalidUTF8     = errors.New("invalid UTF-8")
	ErrVideoPathEscape = errors.New("video_path escapes the video root")
	ErrBadValue        = errors.New("invalid value")
	ErrSyntax          = errors.New("not a JSON object")
	ErrParquet         = errors.New("not a readable Parquet file")
	ErrTooLarge        = errors.New("over the size limit")
	ErrNotAFile        = errors.New("not an items file")
	ErrUnknownItem     = errors.New("no such item")
	ErrNoItems         = errors.New("no items")
)

// A ParseError is returned for an item (or reference answer) that cannot be
// used. It says where: the file, the line of a JSONL file or the row of a
// Parquet file (both 1-based; 0 when the problem is the file as a whole), and
// the field. Like encoding/csv's ParseError, it keeps the cause in Err.
type ParseError struct {
	File  string // name of the file as given on the command line
	Line  int    // 1-based line of a JSONL file; 0 if not applicable
	Row   int    // 1-based row of a Parquet file; 0 if not applicable
	Field string // JSON key or Parquet column; "" when the whole record is bad
	Err   error  // the reason, wrapping one of the Err* values above
}

func (e *ParseError) Error() string {
	where := e.File
	switch {
	case e.Line > 0:
		where = fmt.Sprintf("%s:%d", e.File, e.Line)
	case e.Row > 0:
		where = fmt.Sprintf("%s: row %d", e.File, e.Row)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s: %v", where, e.Err)
	}
	return fmt.Sprintf("%s: field %s: %v", where, e.Field, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// fieldError builds the Err of a ParseError: the reason with detail.
func fieldError(reason error, format string, args ...any) error {
	if format == "" {
		return reason
	}
	return fmt.Errorf("%w: %s", reason, fmt.Sprintf(format, args...))
}
