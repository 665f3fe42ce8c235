//go:build !amd64 || purego

package fhew

// prefetchKey is a no-op without the assembly hint (see prefetch_amd64.go).
func prefetchKey(key []uint32) {}
