package ring

// Mono2Acc is one accumulator of DotRowsMono2Pair: its digits, its two
// NTT-domain monomials (in Montgomery form, MontgomeryForm) and its two
// accumulator polynomials (the B and A parts), as in DotRowsMono2.
type Mono2Acc struct {
	Digits       []Poly2
	Mono1, Mono2 Poly2
	AccB, AccA   Poly2
}

// DotRowsMono2Pair is DotRowsMono2 for two accumulators over the same rows
// (two blind rotations in lockstep: same key, own digits, monomials and
// accumulators): it equals, bit for bit,
//
//	r.DotRowsMono2(x.Digits, rowsB1, rowsA1, rowsB2, rowsA2, x.Mono1, x.Mono2, x.AccB, x.AccA)
//	r.DotRowsMono2(y.Digits, rowsB1, rowsA1, rowsB2, rowsA2, y.Mono1, y.Mono2, y.AccB, y.AccA)
//
// but, when both have as many digits, the AVX-512 kernel loads (and
// prefetches) each block of the rows once for both. The four accumulator
// polynomials must not alias each other nor any digit, row or monomial.
// It panics on too few rows, like DotRowsMono2. Nothing is allocated.
func (r *RNS2) DotRowsMono2Pair(rowsB1, rowsA1, rowsB2, rowsA2 []Poly2, x, y *Mono2Acc) {
	if len(x.Digits) == len(y.Digits) && r.dotRowsMono2PairVec(rowsB1, rowsA1, rowsB2, rowsA2, x, y) {
		return
	}
	r.DotRowsMono2(x.Digits, rowsB1, rowsA1, rowsB2, rowsA2, x.Mono1, x.Mono2, x.AccB, x.AccA)
	r.DotRowsMono2(y.Digits, rowsB1, rowsA1, rowsB2, rowsA2, y.Mono1, y.Mono2, y.AccB, y.AccA)
}
