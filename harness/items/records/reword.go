package records

// reworded is an error that matches its reason (errors.Is) but reads as
// its own message: harness.ErrSyntax reads "not a JSON object", which is
// wrong for a table or a workbook, yet callers (and the exit code) test
// for the reason.
type reworded struct {
	reason error
	msg    string
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.reason }

// Reword is reason, matched by errors.Is, whose text is msg alone.
func Reword(reason error, msg string) error { return &reworded{reason: reason, msg: msg} }
