//go:build !amd64 || purego

package ring

// dotRowsMono2Vec is the fused vector DotRowsMono2 kernel's stub.
func (r *RNS2) dotRowsMono2Vec(digits []Poly2, rowsB1, rowsA1, rowsB2, rowsA2 []Poly2, mono1, mono2, accB, accA Poly2) bool {
	return false
}

// dotRowsMono2PairVec is the pair kernel's stub.
func (r *RNS2) dotRowsMono2PairVec(rowsB1, rowsA1, rowsB2, rowsA2 []Poly2, x, y *Mono2Acc) bool {
	return false
}
