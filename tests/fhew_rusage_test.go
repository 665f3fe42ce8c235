//go:build unix

package tests

import "syscall"

// processCPUSeconds is the CPU time (user + system) the test process has
// used so far: a benchmark on a shared machine divides it by wall time to
// see how many cores it actually got.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
