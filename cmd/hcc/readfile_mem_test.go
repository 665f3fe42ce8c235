package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestReadLimitedAllocatesOnce: a regular file is read into one buffer of
// its size (hcc submit reads a 96 MB evaluation key; growing a buffer by
// doubling allocated twice that and peaked at 1.5 times).
func TestReadLimitedAllocatesOnce(t *testing.T) {
	const size = 8 << 20
	path := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	data, err := readLimited(path, "test file", 1<<30, true)
	runtime.ReadMemStats(&m1)
	if err != nil || len(data) != size {
		t.Fatalf("read %d bytes, %v", len(data), err)
	}
	if got := m1.TotalAlloc - m0.TotalAlloc; got > size+size/4 {
		t.Errorf("reading a %d-byte file allocated %d bytes, want about its size", size, got)
	}
}
