//go:build amd64 && !purego

package ring

import "math/bits"

//go:noescape
func rns2DotRowsMono2AVX512(ptrs *[5 * maxFusedDigits]*uint32, np int, n int, mono1, mono2, accB, accA *uint32, c *[11]uint64)

// dotRowsMono2Vec runs DotRowsMono2 in the fused vector kernel and reports
// whether it did: it needs AVX-512F, N >= 16, at most maxFusedDigits digits
// and primes whose sums the kernel's short reductions take
// (dotRowsMono2Group).
func (r *RNS2) dotRowsMono2Vec(digits []Poly2, rowsB1, rowsA1, rowsB2, rowsA2 []Poly2, mono1, mono2, accB, accA Poly2) bool {
	N := r.N
	nd := len(digits)
	if !hasAVX512 || N < 16 || nd == 0 || nd > maxFusedDigits {
		return false
	}
	for _, nt := range r.NTT {
		if dotRowsMono2Group(nt.Q) == 0 {
			return false
		}
	}
	rowsB1, rowsA1, rowsB2, rowsA2 = rowsB1[:nd], rowsA1[:nd], rowsB2[:nd], rowsA2[:nd]
	var ptrs [5 * maxFusedDigits]*uint32
	for i, nt := range r.NTT {
		for j, d := range digits {
			ptrs[5*j] = &d[i][:N][0]
			ptrs[5*j+1] = &rowsB1[j][i][:N][0]
			ptrs[5*j+2] = &rowsA1[j][i][:N][0]
			ptrs[5*j+3] = &rowsB2[j][i][:N][0]
			ptrs[5*j+4] = &rowsA2[j][i][:N][0]
		}
		var c [11]uint64
		copy(c[:6], nt.vecConst[:])
		b := uint(bits.Len32(nt.Q))
		c[6], c[7], c[8] = uint64(b-1), (1<<(b+31))/uint64(nt.Q), uint64(b-2)
		c[9] = uint64(5 * dotRowsMono2Group(nt.Q)) // pointers per group
		c[10] = uint64(montNegInv32(nt.Q))
		rns2DotRowsMono2AVX512(&ptrs, 5*nd, N, &mono1[i][:N][0], &mono2[i][:N][0],
			&accB[i][:N][0], &accA[i][:N][0], &c)
	}
	return true
}
