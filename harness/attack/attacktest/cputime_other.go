//go:build !unix

package attacktest

import "time"

// CPUTime returns 0 where the process's CPU time is not available.
func CPUTime() time.Duration { return 0 }
