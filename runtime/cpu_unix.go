//go:build unix

package runtime

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time (user + system) the process has received
// so far, over all its threads. The difference of two readings is what a
// run got, which on a loaded machine is less than its workers' busy time.
func ProcessCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
