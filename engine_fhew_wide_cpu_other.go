//go:build !unix

package hcc

import "time"

// processCPU is unknown without getrusage; Stats.CPUKnown stays false.
func processCPU() (time.Duration, bool) { return 0, false }
