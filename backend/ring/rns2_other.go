//go:build !amd64 || purego

package ring

// decomposeVec is the vector Decompose kernel's stub: without it the Go
// loop covers every coefficient.
func (r *RNS2) decomposeVec(in Poly2, logB, digits, drop int, out []Poly2) int { return 0 }

// dotRowsVec is the fused vector DotRows kernel's stub.
func (r *RNS2) dotRowsVec(digits []Poly2, rowsB, rowsA []Poly2, outB, outA Poly2) bool {
	return false
}
