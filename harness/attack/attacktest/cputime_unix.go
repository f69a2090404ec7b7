//go:build unix

package attacktest

import (
	"syscall"
	"time"
)

// CPUTime returns the user plus system CPU time the process has used so far.
// Benchmarks report it beside wall time because the development machine is
// shared: wall time there depends on what else runs, CPU time much less.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
