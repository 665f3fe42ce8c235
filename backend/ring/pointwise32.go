package ring

import "math/bits"

// MulCoeffsAdd2 sets out = out + a1·b1 + a2·b2 mod Q slot-wise: GINX's
// step acc += (Y^α - 1)·(acc ⊛ RGSW(s = 1)) + (Y^-α - 1)·(acc ⊛ RGSW(s = -1))
// in the NTT domain. out must be below 2^32 and a1, b1, a2, b2 in [0, 2Q)
// (so the sum stays below 2^64); out ends in [0, Q). Without the vector
// kernels it is one pass with one reduction per slot instead of two
// MulCoeffsAdd passes.
func (m Modulus32) MulCoeffsAdd2(a1, b1, a2, b2, out []uint32) {
	if hasAVX512 {
		m.MulCoeffsAdd(a1, b1, out)
		m.MulCoeffsAdd(a2, b2, out)
		return
	}
	q, br := uint64(m.Q), m.barrett
	a1, b1, a2, b2 = a1[:len(out)], b1[:len(out)], a2[:len(out)], b2[:len(out)]
	for i, o := range out {
		x := uint64(a1[i])*uint64(b1[i]) + uint64(a2[i])*uint64(b2[i]) + uint64(o)
		hi, _ := bits.Mul64(x, br)
		r := uint32(x - hi*q)
		out[i] = min(r, r-uint32(q))
	}
}
