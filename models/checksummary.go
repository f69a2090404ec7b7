package models

import (
	"fmt"
	"strings"
)

// Summary is err, the error CheckRoles returned with r, followed by each
// failing role's first problem (and how many more it has), one a line: a
// run that refuses its models names every role to fix at once.
func (r *CheckReport) Summary(err error) string {
	var b strings.Builder
	b.WriteString(err.Error())
	for _, rr := range r.Roles {
		if len(rr.Problems) > 0 {
			fmt.Fprintf(&b, "\n  %s: %s", rr.Role, rr.Problems[0])
			if n := len(rr.Problems) - 1; n > 0 {
				fmt.Fprintf(&b, " (and %d more)", n)
			}
		}
	}
	return b.String()
}
