//go:build !unix

package tests

// processCPUSeconds is unknown here; the benchmark then skips its cores metric.
func processCPUSeconds() float64 { return 0 }
