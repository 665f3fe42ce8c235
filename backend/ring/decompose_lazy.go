package ring

import "unsafe"

// DecomposeSignedLazy is DecomposeSigned with the digits stored lazily:
// each digit d in [-B/2, B/2] is written as d + Q (in [Q - B/2, Q + B/2],
// below 2Q) instead of d mod Q, which saves the sign test per digit. It is
// meant for digits that go straight into Forward, ForwardLazy or
// ForwardUnreduced (inputs below 4Q are accepted), where the transforms are
// congruent mod Q. With the vector kernels, or for digit counts other than
// 2 and 3, it is DecomposeSigned (digits in [0, Q)).
func (m Modulus32) DecomposeSignedLazy(in []uint32, logB, dropped int, out [][]uint32) {
	dg := len(out)
	if hasAVX512 || (dg != 2 && dg != 3) || logB < 1 || dropped < 0 || logB*(dropped+dg) >= 32 {
		m.DecomposeSigned(in, logB, dropped, out)
		return
	}
	c := decompConst(m.Q, logB, dropped)
	Q := int32(m.Q)
	halfQ, round, shift := int32(c[1]), int32(c[2]), c[3]
	halfB, bmask, lb := int32(c[4]), int32(c[5]), c[6]
	if dg == 2 {
		o0, o1 := out[0][:len(in)], out[1][:len(in)]
		n := 0
		if dropped == 1 {
			n = decomposePair2(in, o0, o1, m.Q, uint(logB))
		}
		in, o0, o1 = in[n:], o0[n:], o1[n:]
		for j, x := range in {
			v := int32(x)
			v -= Q & ((halfQ - v) >> 31) // centre: x > Q/2 -> x - Q
			v = (v + round) >> shift     // arithmetic shift floors, so this rounds
			d0 := ((v + halfB) & bmask) - halfB
			v = (v - d0) >> lb
			o0[j] = uint32(d0 + Q)
			o1[j] = uint32(v + Q)
		}
		return
	}
	o0, o1, o2 := out[0][:len(in)], out[1][:len(in)], out[2][:len(in)]
	n := 0
	if dropped == 1 {
		n = decomposePair3(in, o0, o1, o2, m.Q, uint(logB))
	}
	in, o0, o1, o2 = in[n:], o0[n:], o1[n:], o2[n:]
	for j, x := range in {
		v := int32(x)
		v -= Q & ((halfQ - v) >> 31)
		v = (v + round) >> shift
		d0 := ((v + halfB) & bmask) - halfB
		v = (v - d0) >> lb
		d1 := ((v + halfB) & bmask) - halfB
		v = (v - d1) >> lb
		o0[j] = uint32(d0 + Q)
		o1[j] = uint32(d1 + Q)
		o2[j] = uint32(v + Q)
	}
}

// decomposePair2 is DecomposeSignedLazy's loop for two digits with one
// dropped digit (s = logB), two coefficients per uint64 (see ntt32_pair.go).
// It works on the offset value z = c + 2^(s-1) + C·2^s with c the centred
// coefficient and C = B/2 + B·K, which is non-negative, so that the
// arithmetic shifts and the signed digit extraction become unsigned shifts
// and masks that cannot carry across lanes:
//
//	V  = z >> s = v + C                (v = round(c / 2^s))
//	d0 = (V mod B) - B/2               (because C ≡ B/2 mod B)
//	d1 = (v - d0)/B = (V >> logB) - K
//
// and the outputs d0 + Q, d1 + Q are formed by adding constants. It handles
// the longest even prefix of in when in and the outputs are 8-byte aligned
// and returns its length (0 otherwise). Needs Q < 2^30 and logB <= 15.
func decomposePair2(in, o0, o1 []uint32, q uint32, logB uint) int {
	n := len(in) &^ 1
	if n == 0 || logB > 15 || q >= 1<<30 || !aligned8(in) || !aligned8(o0) || !aligned8(o1) {
		return 0
	}
	const one = 1 | 1<<32
	Q := uint64(q)
	B := uint64(1) << logB
	halfQ := Q / 2
	// |v| <= (Q/2 + 2^(s-1)) / 2^s; K·B must exceed it.
	K := (halfQ+B/2)/B/B + 2
	C := B/2 + B*K
	cmpC := (1<<31 - 1 - halfQ) * one         // bit 31 of a lane set iff x > Q/2
	offC := (B/2 + C*B) * one                 // 2^(s-1) + C·2^s
	maskV := (uint64(1)<<(32-logB) - 1) * one // clears bits shifted in from the upper lane
	maskB := (B - 1) * one
	add0 := (Q - B/2) * one
	add1 := (Q - K) * one
	in, o0, o1 = in[:n], o0[:n], o1[:n]
	p, p0, p1 := unsafe.Pointer(&in[0]), unsafe.Pointer(&o0[0]), unsafe.Pointer(&o1[0])
	for off := uintptr(0); off < 4*uintptr(n); off += 8 {
		x := *(*uint64)(unsafe.Add(p, off))
		m := ((x + cmpC) >> 31) & one
		z := x + offC - m*Q
		V := (z >> logB) & maskV
		*(*uint64)(unsafe.Add(p0, off)) = (V & maskB) + add0
		*(*uint64)(unsafe.Add(p1, off)) = ((V >> logB) & maskV) + add1
	}
	return n
}

// decomposePair3 is decomposePair2 for three digits: C = B/2 + B·B/2 +
// B²·K, so that V = v + C gives d0 = (V mod B) - B/2, then
// V1 = V >> logB = v1 + B/2 + B·K gives d1 = (V1 mod B) - B/2, and
// d2 = (V1 >> logB) - K. Needs Q < 2^30 and logB <= 10.
func decomposePair3(in, o0, o1, o2 []uint32, q uint32, logB uint) int {
	n := len(in) &^ 1
	if n == 0 || logB > 10 || q >= 1<<30 || !aligned8(in) || !aligned8(o0) || !aligned8(o1) || !aligned8(o2) {
		return 0
	}
	const one = 1 | 1<<32
	Q := uint64(q)
	B := uint64(1) << logB
	halfQ := Q / 2
	K := (halfQ+B/2)/B/(B*B) + 2
	C := B/2 + B*(B/2) + B*B*K
	cmpC := (1<<31 - 1 - halfQ) * one
	offC := (B/2 + C*B) * one
	maskV := (uint64(1)<<(32-logB) - 1) * one
	maskB := (B - 1) * one
	add0 := (Q - B/2) * one
	add2 := (Q - K) * one
	in, o0, o1, o2 = in[:n], o0[:n], o1[:n], o2[:n]
	p, p0, p1, p2 := unsafe.Pointer(&in[0]), unsafe.Pointer(&o0[0]), unsafe.Pointer(&o1[0]), unsafe.Pointer(&o2[0])
	for off := uintptr(0); off < 4*uintptr(n); off += 8 {
		x := *(*uint64)(unsafe.Add(p, off))
		m := ((x + cmpC) >> 31) & one
		z := x + offC - m*Q
		V := (z >> logB) & maskV
		V1 := (V >> logB) & maskV
		*(*uint64)(unsafe.Add(p0, off)) = (V & maskB) + add0
		*(*uint64)(unsafe.Add(p1, off)) = (V1 & maskB) + add0
		*(*uint64)(unsafe.Add(p2, off)) = ((V1 >> logB) & maskV) + add2
	}
	return n
}
