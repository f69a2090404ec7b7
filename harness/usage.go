package harness

import "fmt"

// A UsageError is a request that asks for something impossible (an audit's
// Spec, select's or vidomni's options), named by the flag of the field at
// fault: "--frames must be from 1 to 1024, got 0". The command line exits
// with status 2 for it and points at the command's help; a Go program
// reads it as its own mistake, not a failure of the run.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError of the formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}
