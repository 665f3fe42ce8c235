//go:build amd64 && !purego

package ring

import "math/bits"

//go:noescape
func rns2DecomposeAVX512(in0, in1 *uint32, n int, outs *[2 * MaxDigits]*uint32, dg int, c *[13]uint64)

// decomposeVec runs the vector Decompose kernel on the largest multiple of
// 16 coefficients and returns how many it covered (0 without AVX-512F, for
// more than MaxDigits digits, for digits wider than a prime, or where the
// rounding constant round + (B/2 << drop) would not leave the centred
// coefficient plus it below 2^62: drop + logB > 61).
func (r *RNS2) decomposeVec(in Poly2, logB, digits, drop int, out []Poly2) int {
	n := r.N &^ 15
	halfB := uint64(1) << (logB - 1)
	if !hasAVX512 || n == 0 || digits > MaxDigits || halfB > uint64(min(r.Q0, r.Q1)) || drop+logB > 61 {
		return 0
	}
	var ptrs [2 * MaxDigits]*uint32
	for j, o := range out[:digits] {
		ptrs[2*j], ptrs[2*j+1] = &o[0][:n][0], &o[1][:n][0]
	}
	var round uint64
	if drop > 0 {
		round = 1 << (drop - 1)
	}
	c := [13]uint64{uint64(r.sub), uint64(r.q0InvShoup), uint64(r.q0Inv), uint64(r.Q1), uint64(r.Q0),
		r.halfQ, r.q, round + halfB<<drop, uint64(drop), halfB, 2*halfB - 1, uint64(logB), uint64(digits64(r.halfQ, round, drop, logB, digits))}
	rns2DecomposeAVX512(&in[0][:n][0], &in[1][:n][0], n, &ptrs, 2*digits, &c)
	return n
}

//go:noescape
func rns2DotRowsAVX512(ptrs *[3 * maxFusedDigits]*uint32, np int, n int, outB, outA *uint32, c *[9]uint64)

// dotRowsVec runs DotRows in the fused vector kernel, both sums of 16 slots
// held in registers across all digits, and reports whether it did: it needs
// AVX-512F, N >= 16, at most maxFusedDigits digits and no more than
// MaxLazyTerms of either prime (the sum is reduced only at the end).
func (r *RNS2) dotRowsVec(digits []Poly2, rowsB, rowsA []Poly2, outB, outA Poly2) bool {
	N := r.N
	nd := len(digits)
	if !hasAVX512 || N < 16 || nd == 0 || nd > maxFusedDigits ||
		nd > r.NTT[0].MaxLazyTerms() || nd > r.NTT[1].MaxLazyTerms() {
		return false
	}
	rowsB, rowsA = rowsB[:nd], rowsA[:nd]
	var ptrs [3 * maxFusedDigits]*uint32
	for i, nt := range r.NTT {
		for j, d := range digits {
			ptrs[3*j] = &d[i][:N][0]
			ptrs[3*j+1] = &rowsB[j][i][:N][0]
			ptrs[3*j+2] = &rowsA[j][i][:N][0]
		}
		var c [9]uint64
		copy(c[:6], nt.vecConst[:])
		// The short Barrett reduction applies when every sum stays below
		// 2^(31+b), Q < 2^b: up to 16 digits of 27-bit primes.
		b := uint(bits.Len32(nt.Q))
		if s := uint64(nt.Q - 1); uint64(nd)*s*s < 1<<(31+b) {
			c[6], c[7], c[8] = uint64(b-1), (1<<(b+31))/uint64(nt.Q), 1
		}
		rns2DotRowsAVX512(&ptrs, 3*nd, N, &outB[i][:N][0], &outA[i][:N][0], &c)
	}
	return true
}
