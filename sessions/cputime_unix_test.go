//go:build unix

package sessions

import (
	"syscall"
	"time"
)

// cpuSeconds returns the CPU time (user and system) the test process used
// so far, or 0 where the system does not tell: benchmarks report
// throughput per CPU second, which a loaded machine disturbs less than the
// wall clock.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
