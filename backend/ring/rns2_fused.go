package ring

import (
	"fmt"
	"math/bits"
)

// DotRowsMono2 is the whole pointwise part of one GINX blind-rotation step
// (NTT domain, slot-wise, mod Q): for monomials μ1, μ2 given in Montgomery
// form, mono1 = μ1·2^32 and mono2 = μ2·2^32 mod Q_i (MontgomeryForm),
//
//	accB += μ1∘Σ_j digits[j]∘rowsB1[j] + μ2∘Σ_j digits[j]∘rowsB2[j]
//	accA += μ1∘Σ_j digits[j]∘rowsA1[j] + μ2∘Σ_j digits[j]∘rowsA2[j]
//
// It equals, bit for bit, DotRows(digits, rowsB1, rowsA1, pB, pA),
// DotRows(digits, rowsB2, rowsA2, mB, mA) followed by MulCoeffsAdd(μ1,
// pB, accB), MulCoeffsAdd(μ1, pA, accA), MulCoeffsAdd(μ2, mB, accB),
// MulCoeffsAdd(μ2, mA, accA), but makes one pass over the slots: each
// digit is loaded once for all four rows and the four sums never leave the
// registers (AVX-512 kernel, rns2_fused_amd64.s; its digit sums are reduced
// by Montgomery's REDC, whose factor 2^-32 the monomials' 2^32 cancels:
// one op fewer per sum than a Barrett step). The digits' entries are
// below 4Q_i (as Forward4Q leaves them; the result is the same for any
// representatives), all other inputs are fully reduced (< Q_i) and the
// output is; the rows hold at least len(digits) entries; accB and
// accA must not alias each other nor any digit, row or monomial (it panics
// on too few rows: a caller bug). Nothing is allocated.
func (r *RNS2) DotRowsMono2(digits []Poly2, rowsB1, rowsA1, rowsB2, rowsA2 []Poly2, mono1, mono2, accB, accA Poly2) {
	nd := len(digits)
	if len(rowsB1) < nd || len(rowsA1) < nd || len(rowsB2) < nd || len(rowsA2) < nd {
		panic(fmt.Sprintf("ring: RNS2.DotRowsMono2: %d digits, rows %d, %d, %d, %d",
			nd, len(rowsB1), len(rowsA1), len(rowsB2), len(rowsA2)))
	}
	if nd == 0 {
		return
	}
	if !r.dotRowsMono2Vec(digits, rowsB1, rowsA1, rowsB2, rowsA2, mono1, mono2, accB, accA) {
		r.dotRowsMono2Go(digits, rowsB1, rowsA1, rowsB2, rowsA2, mono1, mono2, accB, accA)
	}
}

// MontgomeryForm sets out = a·2^32 mod Q_i slot-wise: the form in which
// DotRowsMono2 and DotRowsMono2Pair take their monomials. a and out may
// alias.
func (r *RNS2) MontgomeryForm(a, out Poly2) { r.MulScalar(a, 1<<32, out) }

// montNegInv32 returns -q^-1 mod 2^32 (q odd): the REDC constant.
func montNegInv32(q uint32) uint32 {
	x := q // q·q = 1 mod 8: 3 bits; each Newton step doubles them
	for range 4 {
		x *= 2 - q*x
	}
	return -x
}

// montRInv returns 2^-32 mod q (q odd): with q·m = k·2^32 - 1 for
// m = montNegInv32(q), k = (1 + q·m)/2^32 < q and k·2^32 = 1 mod q.
func montRInv(q uint32) uint64 {
	return (1 + uint64(q)*uint64(montNegInv32(q))) >> 32
}

// dotRowsMono2Go is DotRowsMono2 in Go: per prime and chunk of dotChunk
// slots, the four sums are accumulated lazily in uint64 on the stack
// (reduced to [0, Q) once per group of digits whose products, below
// (4Q-1)(Q-1) each, keep the sum below 2^64: at least 3 for Q < 2^30),
// then reduced and combined with the monomials (u = mono1·sum1 +
// mono2·sum2 mod Q, 2(Q-1)^2 < 2^64) and, after the monomials' factor 2^32
// is taken off, the accumulator (acc + u·2^-32 mod Q).
func (r *RNS2) dotRowsMono2Go(digits []Poly2, rowsB1, rowsA1, rowsB2, rowsA2 []Poly2, mono1, mono2, accB, accA Poly2) {
	var s [4][dotChunk]uint64
	N := r.N
	nd := len(digits)
	rows := [4][]Poly2{rowsB1[:nd], rowsA1[:nd], rowsB2[:nd], rowsA2[:nd]}
	for i, nt := range r.NTT {
		m := nt.Modulus32
		sq := uint64(m.Q - 1)
		group := int((^uint64(0) - sq) / ((4*sq + 3) * sq))
		rInv := montRInv(m.Q)
		for lo := 0; lo < N; lo += dotChunk {
			hi := min(lo+dotChunk, N)
			for t := range rows {
				st := s[t][:hi-lo]
				clear(st)
				for j, d := range digits {
					if j > 0 && j%group == 0 {
						for k, v := range st {
							st[k] = uint64(m.Reduce(v))
						}
					}
					m.MulCoeffsAddLazy(d[i][lo:hi], rows[t][j][i][lo:hi], st)
				}
			}
			n := hi - lo
			m1, m2 := mono1[i][lo:hi], mono2[i][lo:hi]
			ab, aa := accB[i][lo:hi], accA[i][lo:hi]
			m1, m2, ab, aa = m1[:n], m2[:n], ab[:n], aa[:n]
			sB1, sA1, sB2, sA2 := s[0][:n], s[1][:n], s[2][:n], s[3][:n]
			for k := range ab {
				x1, x2 := uint64(m1[k]), uint64(m2[k])
				pB, pA := uint64(m.Reduce(sB1[k])), uint64(m.Reduce(sA1[k]))
				qB, qA := uint64(m.Reduce(sB2[k])), uint64(m.Reduce(sA2[k]))
				uB, uA := uint64(m.Reduce(x1*pB+x2*qB)), uint64(m.Reduce(x1*pA+x2*qA))
				ab[k] = m.Reduce(uint64(ab[k]) + uB*rInv)
				aa[k] = m.Reduce(uint64(aa[k]) + uA*rInv)
			}
		}
	}
}

// dotRowsMono2Group returns how many digits the vector DotRowsMono2 kernels
// sum before a lazy reduction mod q (Q < 2^b), at most maxFusedDigits, or 0
// where their reductions do not fit. A digit is below 4Q, so a product is
// at most (4Q-1)(Q-1); LAZYBAR takes sums below 2^(31+b) to [0, 3Q) (its
// quotient misses by at most 2), so g digits added to a reduced sum stay
// in its range while (3Q-1) + g·(4Q-1)(Q-1) < 2^(31+b) (which also keeps
// the last group below 2^32·Q, where the final REDC gives [0, 2Q)); and
// acc + mono1·sum1 + mono2·sum2, at most (Q-1) + 2(Q-1)(3Q-1), must be
// below 2^(30+b) for BARRETT1 (its quotient misses by at most 1). The CBS
// primes (just below 2^27) give 4: the blind rotation's 4 digits need no
// intermediate reduction. 28-bit primes fit only below about 2^27.7 and
// 29-bit ones not at all (then the Go loop runs).
func dotRowsMono2Group(q uint32) int {
	b := uint(bits.Len32(q))
	if b > 29 {
		return 0 // 6(Q-1)^2 >= 2^(30+b) for every Q >= 2^29
	}
	s := uint64(q - 1)
	if s+2*s*(3*s+2) >= 1<<(30+b) {
		return 0
	}
	g := (1<<(31+b) - 1 - (3*s + 2)) / ((4*s + 3) * s)
	return int(min(g, maxFusedDigits))
}
