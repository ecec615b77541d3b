//go:build !unix

package sessions

// cpuSeconds returns 0: the process's CPU time is not measured here.
func cpuSeconds() float64 { return 0 }
