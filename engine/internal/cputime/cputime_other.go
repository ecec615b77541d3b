//go:build !unix

// Package cputime reads the CPU time the process has used, for benchmarks
// that report throughput per second of CPU time.
package cputime

// Seconds returns 0: the process's CPU time is not measured here.
func Seconds() float64 { return 0 }
