package main

import "testing"

// TestMemoryFHEW: run and eval on an FHEW gate set print the estimate
// before keygen and refuse a batch above the memory available (naming the
// figure, fewer instances per batch and --force) unless --force; a small
// run on this machine's real memory is not refused.
func TestMemoryFHEW(t *testing.T) {
	checkMemoryRefusal(t, "ToySigned", "live ciphertexts", []string{"memory: about", "instances' inputs and outputs"}, "")
}
