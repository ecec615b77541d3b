//go:build unix

// Package cputime reads the CPU time the process has used, for benchmarks
// that report throughput per second of CPU time (less sensitive than the
// wall clock to the time a process waits for a core on a shared machine).
package cputime

import (
	"syscall"
	"time"
)

// Seconds returns the CPU time (user and system) the process used so far,
// or 0 where the system does not tell.
func Seconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
