//go:build !unix

package runtime

import "time"

// ProcessCPU is unknown without getrusage; Stats.CPUKnown stays false.
func ProcessCPU() (time.Duration, bool) { return 0, false }
