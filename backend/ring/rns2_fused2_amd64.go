//go:build amd64 && !purego

package ring

import "math/bits"

//go:noescape
func rns2DotRowsMono2x2AVX512(ptrs *[6 * maxFusedDigits]*uint32, np int, n int, monos, accs *[4]*uint32, c *[11]uint64)

// dotRowsMono2PairVec runs DotRowsMono2Pair in the pair kernel and reports
// whether it did, under dotRowsMono2Vec's conditions (x and y have as many
// digits: the caller checked). Too few rows are left to DotRowsMono2's
// panic.
func (r *RNS2) dotRowsMono2PairVec(rowsB1, rowsA1, rowsB2, rowsA2 []Poly2, x, y *Mono2Acc) bool {
	N := r.N
	nd := len(x.Digits)
	if !hasAVX512 || N < 16 || nd == 0 || nd > maxFusedDigits ||
		len(rowsB1) < nd || len(rowsA1) < nd || len(rowsB2) < nd || len(rowsA2) < nd {
		return false
	}
	for _, nt := range r.NTT {
		if dotRowsMono2Group(nt.Q) == 0 {
			return false
		}
	}
	var ptrs [6 * maxFusedDigits]*uint32
	for i, nt := range r.NTT {
		for j := range nd {
			ptrs[6*j] = &x.Digits[j][i][:N][0]
			ptrs[6*j+1] = &y.Digits[j][i][:N][0]
			ptrs[6*j+2] = &rowsB1[j][i][:N][0]
			ptrs[6*j+3] = &rowsA1[j][i][:N][0]
			ptrs[6*j+4] = &rowsB2[j][i][:N][0]
			ptrs[6*j+5] = &rowsA2[j][i][:N][0]
		}
		monos := [4]*uint32{&x.Mono1[i][:N][0], &x.Mono2[i][:N][0], &y.Mono1[i][:N][0], &y.Mono2[i][:N][0]}
		accs := [4]*uint32{&x.AccB[i][:N][0], &x.AccA[i][:N][0], &y.AccB[i][:N][0], &y.AccA[i][:N][0]}
		var c [11]uint64
		copy(c[:6], nt.vecConst[:])
		b := uint(bits.Len32(nt.Q))
		c[6], c[7], c[8] = uint64(b-1), (1<<(b+31))/uint64(nt.Q), uint64(b-2)
		c[9] = uint64(6 * dotRowsMono2Group(nt.Q)) // pointers per group
		c[10] = uint64(montNegInv32(nt.Q))
		rns2DotRowsMono2x2AVX512(&ptrs, 6*nd, N, &monos, &accs, &c)
	}
	return true
}
