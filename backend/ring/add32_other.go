//go:build !amd64 || purego

package ring

// addVec is the vector add kernel's stub: the Go loop covers every entry.
func addVec(q uint32, a, b, c, out []uint32) int { return 0 }
