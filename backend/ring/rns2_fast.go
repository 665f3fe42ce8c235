package ring

// Fast paths of RNS2.Decompose and RNS2.DotRows. Their results are
// identical bit for bit to decomposeRef and dotRowsRef (tested).

// decompose is Decompose after argument checks: one pass per coefficient
// that recombines the residues (Garner's CRT with a Shoup product), centres,
// rounds off the dropped bits and emits the signed digits as residues (8
// coefficients at a time in the AVX-512 kernel, rns2_amd64.s). All
// integer arithmetic stays in 64 bits (|x| < 2^59); nothing is allocated.
func (r *RNS2) decompose(in Poly2, logB, digits, drop int, out []Poly2) {
	n := r.decomposeVec(in, logB, digits, drop, out)
	if n < r.N {
		r.decomposeGo(in, n, logB, digits, drop, out)
	}
}

// decomposeGo is decompose's scalar loop over the coefficients n..N-1.
func (r *RNS2) decomposeGo(in Poly2, n, logB, digits, drop int, out []Poly2) {
	N := r.N
	in0, in1 := in[0][n:N], in[1][n:N]
	Q0, Q1 := r.Q0, r.Q1
	sub, c, cS := r.sub, r.q0Inv, r.q0InvShoup
	Q, halfQ := int64(r.q), int64(r.halfQ)
	var round int64
	if drop > 0 {
		round = 1 << (drop - 1)
	}
	sh, lb := uint(drop), uint(logB)
	halfB := int64(1) << (logB - 1)
	bmask := 2*halfB - 1
	// centre returns coefficient i rounded to units of 2^drop.
	centre := func(i int) int64 {
		r0 := in0[i]
		u := in1[i] + sub - r0 // (r1 - r0) mod Q1, plus a multiple of Q1, < 2^32
		q := uint32((uint64(u) * uint64(cS)) >> 32)
		t := u*c - q*Q1
		t = min(t, t-Q1)
		x := int64(r0) + int64(Q0)*int64(t) // [0, Q)
		x -= Q & ((halfQ - x) >> 63)        // x > (Q-1)/2 -> x - Q
		return (x + round) >> sh            // arithmetic shift floors: round to nearest
	}
	if halfB > int64(min(Q0, Q1)) {
		// Digits wider than a prime: reduce each one (rare: logB > 27 or a
		// small test prime).
		m0, m1 := r.NTT[0].Modulus32, r.NTT[1].Modulus32
		off0 := int64(Q0) * ((halfB + int64(Q0) - 1) / int64(Q0))
		off1 := int64(Q1) * ((halfB + int64(Q1) - 1) / int64(Q1))
		for i := range in0 {
			v := centre(i)
			for j := 0; j < digits; j++ {
				d := ((v + halfB) & bmask) - halfB
				v = (v - d) >> lb
				out[j][0][n+i] = m0.Reduce(uint64(d + off0))
				out[j][1][n+i] = m1.Reduce(uint64(d + off1))
			}
		}
		return
	}
	q0, q1 := int64(Q0), int64(Q1)
	// res returns the residues of a digit d in [-B/2, B/2) with B/2 <= Qi.
	res := func(d int64) (uint32, uint32) {
		s := d >> 63
		return uint32(d + q0&s), uint32(d + q1&s)
	}
	if digits == 4 {
		// The external product's usual shape: straight-line, no
		// slice-of-slices indexing per coefficient.
		o00, o01 := out[0][0][n:N], out[0][1][n:N]
		o10, o11 := out[1][0][n:N], out[1][1][n:N]
		o20, o21 := out[2][0][n:N], out[2][1][n:N]
		o30, o31 := out[3][0][n:N], out[3][1][n:N]
		o00, o01, o10, o11 = o00[:len(in0)], o01[:len(in0)], o10[:len(in0)], o11[:len(in0)]
		o20, o21, o30, o31 = o20[:len(in0)], o21[:len(in0)], o30[:len(in0)], o31[:len(in0)]
		for i := range in0 {
			v := centre(i)
			d := ((v + halfB) & bmask) - halfB
			v = (v - d) >> lb
			o00[i], o01[i] = res(d)
			d = ((v + halfB) & bmask) - halfB
			v = (v - d) >> lb
			o10[i], o11[i] = res(d)
			d = ((v + halfB) & bmask) - halfB
			v = (v - d) >> lb
			o20[i], o21[i] = res(d)
			d = ((v + halfB) & bmask) - halfB
			o30[i], o31[i] = res(d)
		}
		return
	}
	for i := range in0 {
		v := centre(i)
		for j := 0; j < digits; j++ {
			d := ((v + halfB) & bmask) - halfB
			v = (v - d) >> lb
			out[j][0][n+i], out[j][1][n+i] = res(d)
		}
	}
}

// dotChunk is how many slots DotRows accumulates at a time: two uint64
// accumulators of this size live on the stack (8 KiB) and stay in L1.
const dotChunk = 512

// dotRows is DotRows with lazy accumulation: the products (each < Q_i^2)
// are summed in uint64 and reduced only when the sum could overflow (for
// 27-bit primes: once, up to 1023 digits), in the fused vector kernel
// (rns2_amd64.s) when it applies.
func (r *RNS2) dotRows(digits []Poly2, rowsB, rowsA []Poly2, outB, outA Poly2) {
	if !r.dotRowsVec(digits, rowsB, rowsA, outB, outA) {
		r.dotRowsChunked(digits, rowsB, rowsA, outB, outA)
	}
}

// maxFusedDigits bounds the digit count of the fused vector DotRows kernel
// (its pointer table lives on the stack).
const maxFusedDigits = 16

// dotRowsChunked is dotRows without the fused kernel: per prime and chunk
// of slots, the products are summed in uint64 by MulCoeffsAddLazy (vector
// kernel where available) and reduced once per MaxLazyTerms-1 digits.
func (r *RNS2) dotRowsChunked(digits []Poly2, rowsB, rowsA []Poly2, outB, outA Poly2) {
	var accB, accA [dotChunk]uint64
	N := r.N
	rowsB, rowsA = rowsB[:len(digits)], rowsA[:len(digits)]
	for i, nt := range r.NTT {
		m := nt.Modulus32
		// The accumulator starts either at zero or at a reduced partial
		// sum (< Q), so a group may add MaxLazyTerms-1 products.
		group := m.MaxLazyTerms() - 1
		ob, oa := outB[i][:N], outA[i][:N]
		for lo := 0; lo < N; lo += dotChunk {
			hi := min(lo+dotChunk, N)
			ab, aa := accB[:hi-lo], accA[:hi-lo]
			clear(ab)
			clear(aa)
			j0 := 0
			if !hasAVX512 && len(digits) < group {
				// Scalar code: four digits per pass keep their products in
				// registers (the accumulator is loaded and stored once per
				// four digits, not per digit).
				for ; j0+4 <= len(digits); j0 += 4 {
					dot4Add(digits[j0:j0+4], rowsB[j0:j0+4], rowsA[j0:j0+4], i, lo, hi, ab, aa)
				}
			}
			for j := j0; j < len(digits); j++ {
				d := digits[j]
				if j > 0 && j%group == 0 {
					m.ReduceLazy(ab, ob[lo:hi])
					m.ReduceLazy(aa, oa[lo:hi])
					for k := range ab {
						ab[k], aa[k] = uint64(ob[lo+k]), uint64(oa[lo+k])
					}
				}
				dj := d[i][lo:hi]
				m.MulCoeffsAddLazy(dj, rowsB[j][i][lo:hi], ab)
				m.MulCoeffsAddLazy(dj, rowsA[j][i][lo:hi], aa)
			}
			m.ReduceLazy(ab, ob[lo:hi])
			m.ReduceLazy(aa, oa[lo:hi])
		}
	}
}

// dot4Add adds, for slots lo..hi-1 of residue i, the four products
// digits[t]∘rowsB[t] to accB and digits[t]∘rowsA[t] to accA (no
// reduction; the caller bounds the sum).
func dot4Add(digits, rowsB, rowsA []Poly2, i, lo, hi int, accB, accA []uint64) {
	n := hi - lo
	accB, accA = accB[:n], accA[:n]
	d0, d1, d2, d3 := digits[0][i][lo:hi], digits[1][i][lo:hi], digits[2][i][lo:hi], digits[3][i][lo:hi]
	b0, b1, b2, b3 := rowsB[0][i][lo:hi], rowsB[1][i][lo:hi], rowsB[2][i][lo:hi], rowsB[3][i][lo:hi]
	a0, a1, a2, a3 := rowsA[0][i][lo:hi], rowsA[1][i][lo:hi], rowsA[2][i][lo:hi], rowsA[3][i][lo:hi]
	d0, d1, d2, d3 = d0[:n], d1[:n], d2[:n], d3[:n]
	b0, b1, b2, b3 = b0[:n], b1[:n], b2[:n], b3[:n]
	a0, a1, a2, a3 = a0[:n], a1[:n], a2[:n], a3[:n]
	for k := range accB {
		x0, x1, x2, x3 := uint64(d0[k]), uint64(d1[k]), uint64(d2[k]), uint64(d3[k])
		accB[k] += x0*uint64(b0[k]) + x1*uint64(b1[k]) + x2*uint64(b2[k]) + x3*uint64(b3[k])
		accA[k] += x0*uint64(a0[k]) + x1*uint64(a1[k]) + x2*uint64(a2[k]) + x3*uint64(a3[k])
	}
}

// digits64 returns how many of Decompose's digits the vector kernel must
// extract in int64 lanes: those before the remainder v is known to satisfy
// |v| + B/2 < 2^31, after which every int32 step of the digit loop is exact.
// |v| <= (halfQ >> drop) + 1 after the rounding (x is centred, |x| <=
// halfQ, round < 2^drop), and each digit maps v to (v - d)/B with |d| <=
// B/2, so |v| <= (|v| + B/2)/B.
func digits64(halfQ, round uint64, drop, logB, digits int) int {
	v := halfQ>>drop + 1
	if round > 0 && drop < 64 {
		v = (halfQ+round)>>drop + 1
	}
	halfB := uint64(1) << (logB - 1)
	for j := 0; j < digits; j++ {
		if v+halfB < 1<<31 {
			return j
		}
		v = (v+halfB)>>logB + 1
	}
	return digits
}
