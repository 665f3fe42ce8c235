//go:build !unix

package runtime

import "time"

// processCPU is unknown without getrusage; Stats.CPUKnown stays false.
func processCPU() (time.Duration, bool) { return 0, false }
