package harness

import "errors"

// ErrBadInput marks an error caused by what the user gave (a file, a
// model folder, a flag's value) rather than by the run: the command line
// exits with status 2 for it. Wrap it with where and what:
// fmt.Errorf("%w: items.jsonl:3: field answer: out of range", ErrBadInput).
var ErrBadInput = errors.New("bad input")
