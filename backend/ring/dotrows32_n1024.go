package ring

import (
	"math/bits"
	"unsafe"
)

// DotRows' pure-Go loops specialised to N = 1024 (every STD128 parameter
// set), for digit polynomials stored back to back in one slab (as fhew's
// Scratch does). The four digit polynomials and the eight key rows are then
// reached from two base pointers at constant byte offsets (multiples of
// 4096), and both outputs from one when they are adjacent too, so the loop
// needs one index register instead of fourteen slice pointers: the general
// loop (dot4) spilled and reloaded pointers in every iteration.

const dotN = 1024

// contiguous reports whether the polynomials ps[0..k) of N = dotN entries
// follow each other in memory (ps[r] starts dotN entries after ps[r-1]).
func contiguous(ps [][]uint32) bool {
	if len(ps) == 0 || len(ps[0]) < dotN {
		return false
	}
	base := uintptr(unsafe.Pointer(&ps[0][0]))
	for r := 1; r < len(ps); r++ {
		if len(ps[r]) < dotN || uintptr(unsafe.Pointer(&ps[r][0])) != base+uintptr(r)*4*dotN {
			return false
		}
	}
	return true
}

// dot4N1024 is dot4 for N = dotN with contiguous digits.
func (m Modulus32) dot4N1024(digits [][]uint32, rows []uint32, outB, outA []uint32) {
	q, br := uint64(m.Q), m.barrett
	_ = rows[8*dotN-1]
	_, _ = outB[dotN-1], outA[dotN-1]
	d := unsafe.Pointer(&digits[0][0])
	k := unsafe.Pointer(&rows[0])
	ob, oa := unsafe.Pointer(&outB[0]), unsafe.Pointer(&outA[0])
	const s = 4 * dotN // bytes per polynomial
	for j := uintptr(0); j < s; j += 4 {
		x0 := uint64(*(*uint32)(unsafe.Add(d, j)))
		x1 := uint64(*(*uint32)(unsafe.Add(d, j+s)))
		x2 := uint64(*(*uint32)(unsafe.Add(d, j+2*s)))
		x3 := uint64(*(*uint32)(unsafe.Add(d, j+3*s)))
		kj := unsafe.Add(k, j)
		sb := x0*uint64(*(*uint32)(kj)) + x1*uint64(*(*uint32)(unsafe.Add(kj, 2*s))) +
			x2*uint64(*(*uint32)(unsafe.Add(kj, 4*s))) + x3*uint64(*(*uint32)(unsafe.Add(kj, 6*s)))
		sa := x0*uint64(*(*uint32)(unsafe.Add(kj, s))) + x1*uint64(*(*uint32)(unsafe.Add(kj, 3*s))) +
			x2*uint64(*(*uint32)(unsafe.Add(kj, 5*s))) + x3*uint64(*(*uint32)(unsafe.Add(kj, 7*s)))
		hb, _ := bits.Mul64(sb, br)
		ha, _ := bits.Mul64(sa, br)
		rb := uint32(sb - hb*q)
		ra := uint32(sa - ha*q)
		*(*uint32)(unsafe.Add(ob, j)) = min(rb, rb-uint32(q))
		*(*uint32)(unsafe.Add(oa, j)) = min(ra, ra-uint32(q))
	}
}

// dot2InitN1024 is dot2Init for N = dotN with contiguous digits.
func (m Modulus32) dot2InitN1024(digits [][]uint32, rows, init []uint32, outB, outA []uint32) {
	q, br := uint64(m.Q), m.barrett
	_ = rows[4*dotN-1]
	_, _, _ = init[dotN-1], outB[dotN-1], outA[dotN-1]
	d := unsafe.Pointer(&digits[0][0])
	k := unsafe.Pointer(&rows[0])
	in := unsafe.Pointer(&init[0])
	ob, oa := unsafe.Pointer(&outB[0]), unsafe.Pointer(&outA[0])
	const s = 4 * dotN
	for j := uintptr(0); j < s; j += 4 {
		x0 := uint64(*(*uint32)(unsafe.Add(d, j)))
		x1 := uint64(*(*uint32)(unsafe.Add(d, j+s)))
		kj := unsafe.Add(k, j)
		sb := uint64(*(*uint32)(unsafe.Add(in, j))) + x0*uint64(*(*uint32)(kj)) + x1*uint64(*(*uint32)(unsafe.Add(kj, 2*s)))
		sa := x0*uint64(*(*uint32)(unsafe.Add(kj, s))) + x1*uint64(*(*uint32)(unsafe.Add(kj, 3*s)))
		hb, _ := bits.Mul64(sb, br)
		ha, _ := bits.Mul64(sa, br)
		rb := uint32(sb - hb*q)
		ra := uint32(sa - ha*q)
		*(*uint32)(unsafe.Add(ob, j)) = min(rb, rb-uint32(q))
		*(*uint32)(unsafe.Add(oa, j)) = min(ra, ra-uint32(q))
	}
}

// dot6N1024 is DotRows for six contiguous digits (GINX's three per
// polynomial), no init, N = dotN: one sweep per output, so that the six
// digit values and one sum fit in registers.
func (m Modulus32) dot6N1024(digits [][]uint32, rows []uint32, outB, outA []uint32) {
	_ = rows[12*dotN-1]
	m.dot6One(unsafe.Pointer(&digits[0][0]), unsafe.Pointer(&rows[0]), outB[:dotN])
	m.dot6One(unsafe.Pointer(&digits[0][0]), unsafe.Pointer(&rows[dotN]), outA[:dotN])
}

// dot6One sets out[j] = Σ_r d_r[j]·k[2r·N + j] mod Q for the six digit
// polynomials from d and the rows 0, 2, .., 10 (B) or, with k one row on,
// 1, 3, .., 11 (A).
func (m Modulus32) dot6One(d, k unsafe.Pointer, out []uint32) {
	q, br := uint64(m.Q), m.barrett
	o := unsafe.Pointer(&out[0])
	const s = 4 * dotN
	for j := uintptr(0); j < s; j += 4 {
		kj, dj := unsafe.Add(k, j), unsafe.Add(d, j)
		sum := uint64(*(*uint32)(dj))*uint64(*(*uint32)(kj)) +
			uint64(*(*uint32)(unsafe.Add(dj, s)))*uint64(*(*uint32)(unsafe.Add(kj, 2*s))) +
			uint64(*(*uint32)(unsafe.Add(dj, 2*s)))*uint64(*(*uint32)(unsafe.Add(kj, 4*s))) +
			uint64(*(*uint32)(unsafe.Add(dj, 3*s)))*uint64(*(*uint32)(unsafe.Add(kj, 6*s))) +
			uint64(*(*uint32)(unsafe.Add(dj, 4*s)))*uint64(*(*uint32)(unsafe.Add(kj, 8*s))) +
			uint64(*(*uint32)(unsafe.Add(dj, 5*s)))*uint64(*(*uint32)(unsafe.Add(kj, 10*s)))
		h, _ := bits.Mul64(sum, br)
		r := uint32(sum - h*q)
		*(*uint32)(unsafe.Add(o, j)) = min(r, r-uint32(q))
	}
}
