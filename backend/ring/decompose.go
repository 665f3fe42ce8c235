package ring

import "fmt"

// MaxDigits bounds the number of digits DecomposeSigned writes.
const MaxDigits = 8

// DecomposeSigned writes the balanced (signed) base-2^logB digits of the
// coefficient-domain polynomial in (entries in [0, Q)) into out[0..dg),
// dg = len(out), each digit stored mod Q: the gadget decomposition of the
// external product and of key switching.
//
// Per coefficient, c is the centred representative of x in
// [-(Q-1)/2, (Q-1)/2]; the dropped lowest digits are rounded off,
// c = floor((c + 2^(s-1)) / 2^s) with s = logB·dropped (OpenFHE's
// approximate decomposition; dropped = 0 keeps c); then for r < dg-1
// d_r = ((c + B/2) mod B) - B/2 in [-B/2, B/2) and c = (c - d_r)/B, and the
// last digit is the remaining c. Hence Σ_r d_r·B^(r+dropped) equals x
// centred and rounded to a multiple of B^dropped, exactly. Needs
// 1 <= logB, logB·(dropped+dg) < 32 and 1 <= dg <= MaxDigits; every out[r]
// must hold at least len(in) entries (it writes the first len(in)) and must
// not alias in. Invalid arguments are caller bugs and panic.
func (m Modulus32) DecomposeSigned(in []uint32, logB, dropped int, out [][]uint32) {
	dg := len(out)
	if logB < 1 || dropped < 0 || dg < 1 || dg > MaxDigits || logB*(dropped+dg) >= 32 {
		panic(fmt.Sprintf("ring: DecomposeSigned with logB=%d, dropped=%d, %d digits", logB, dropped, dg))
	}
	for r, o := range out {
		if len(o) < len(in) {
			panic(fmt.Sprintf("ring: DecomposeSigned digit %d has %d entries, want %d", r, len(o), len(in)))
		}
	}
	c := decompConst(m.Q, logB, dropped)
	n := decomposeVec(in, out, &c)
	Q := int32(m.Q)
	halfQ, round, shift := int32(c[1]), int32(c[2]), c[3]
	halfB, bmask, lb := int32(c[4]), int32(c[5]), c[6]
	in = in[n:]
	// Straight-line loops for the common digit counts: no slice-of-slices
	// indexing per coefficient.
	switch dg {
	case 2:
		o0, o1 := out[0][n:n+len(in)], out[1][n:n+len(in)]
		for j, x := range in {
			v := int32(x)
			v -= Q & ((halfQ - v) >> 31) // centre: x > Q/2 -> x - Q
			v = (v + round) >> shift     // arithmetic shift floors, so this rounds
			d0 := ((v + halfB) & bmask) - halfB
			v = (v - d0) >> lb
			o0[j] = uint32(d0 + (Q & (d0 >> 31)))
			o1[j] = uint32(v + (Q & (v >> 31)))
		}
	case 3:
		o0, o1, o2 := out[0][n:n+len(in)], out[1][n:n+len(in)], out[2][n:n+len(in)]
		for j, x := range in {
			v := int32(x)
			v -= Q & ((halfQ - v) >> 31)
			v = (v + round) >> shift
			d0 := ((v + halfB) & bmask) - halfB
			v = (v - d0) >> lb
			d1 := ((v + halfB) & bmask) - halfB
			v = (v - d1) >> lb
			o0[j] = uint32(d0 + (Q & (d0 >> 31)))
			o1[j] = uint32(d1 + (Q & (d1 >> 31)))
			o2[j] = uint32(v + (Q & (v >> 31)))
		}
	default:
		for j, x := range in {
			v := int32(x)
			v -= Q & ((halfQ - v) >> 31)
			v = (v + round) >> shift
			for r := 0; r < dg-1; r++ {
				d := ((v + halfB) & bmask) - halfB
				v = (v - d) >> lb
				out[r][n+j] = uint32(d + (Q & (d >> 31)))
			}
			out[dg-1][n+j] = uint32(v + (Q & (v >> 31)))
		}
	}
}

// decompConst returns the constants of DecomposeSigned's kernels:
// Q, Q/2, rounding addend, shift, B/2, B-1, logB.
func decompConst(q uint32, logB, dropped int) [8]uint32 {
	shift := uint32(logB * dropped)
	var round uint32
	if shift > 0 {
		round = 1 << (shift - 1)
	}
	return [8]uint32{q, q / 2, round, shift, 1 << (logB - 1), 1<<logB - 1, uint32(logB)}
}
