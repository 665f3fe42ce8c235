package ring

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
