//go:build unix

package hcc

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has received
// so far (as the runtime's Stats.CPU; a wide plan runs outside the runtime).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
