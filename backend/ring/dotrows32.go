package ring

import "math/bits"

// DotRows sets, slot-wise in the NTT domain,
//
//	outB = init + Σ_r digits[r] ⊙ rows_r.b  mod Q
//	outA =        Σ_r digits[r] ⊙ rows_r.a  mod Q
//
// where rows_r = rows[2rN : 2(r+1)N] holds an RLWE row, b then a, and
// N = len(outB) = len(outA). This is the multiply-accumulate of the external
// product and of key switching: digits are the transformed gadget digits,
// rows the key. init may be nil (zero). Any digit and row entries < 2^32 are
// accepted as long as the exact sum stays below 2^64 (for ForwardLazy digits
// in [0, 2Q) and rows in [0, Q): 2·len(digits)·Q^2 + Q < 2^64; see
// MaxLazyTerms). Outputs are fully reduced in [0, Q). outB may alias init;
// neither output may alias digits or rows. accB and accA are uint64 scratch
// of N entries each, used when the sum is accumulated in memory (vector
// kernels, or digit counts without a fused loop below); their contents are
// overwritten.
//
// Without the vector kernels the common digit counts run as one fused loop
// that keeps both sums in registers: the lazy path's accumulator loads and
// stores, its clearing and its separate reduction pass cost about as much as
// the multiplications themselves in scalar code.
func (m Modulus32) DotRows(digits [][]uint32, rows []uint32, init []uint32, accB, accA []uint64, outB, outA []uint32) {
	N := len(outB)
	outA = outA[:N]
	if !hasAVX512 || N < 8 {
		switch {
		case len(digits) == 4 && init == nil:
			if N == dotN && contiguous(digits) {
				m.dot4N1024(digits, rows, outB, outA)
			} else {
				m.dot4(digits, rows, outB, outA)
			}
			return
		case len(digits) == 6 && init == nil && N == dotN && contiguous(digits):
			m.dot6N1024(digits, rows, outB, outA)
			return
		case len(digits) == 2 && init != nil:
			if N == dotN && contiguous(digits) {
				m.dot2InitN1024(digits, rows, init, outB, outA)
			} else {
				m.dot2Init(digits, rows, init, outB, outA)
			}
			return
		}
	}
	accB, accA = accB[:N], accA[:N]
	if init != nil {
		for i, x := range init[:N] {
			accB[i] = uint64(x)
		}
	} else {
		clear(accB)
	}
	clear(accA)
	for r, d := range digits {
		row := rows[2*r*N : 2*(r+1)*N]
		m.MulCoeffsAddLazy(d, row[:N], accB)
		m.MulCoeffsAddLazy(d, row[N:], accA)
	}
	m.ReduceLazy(accB, outB)
	m.ReduceLazy(accA, outA)
}

// dot4 is DotRows for four digits and no init, in one pass.
func (m Modulus32) dot4(digits [][]uint32, rows []uint32, outB, outA []uint32) {
	N := len(outB)
	q, br := uint64(m.Q), m.barrett
	rows = rows[:8*N]
	d0, d1, d2, d3 := digits[0][:N], digits[1][:N], digits[2][:N], digits[3][:N]
	b0, a0 := rows[0:N], rows[N:2*N]
	b1, a1 := rows[2*N:3*N], rows[3*N:4*N]
	b2, a2 := rows[4*N:5*N], rows[5*N:6*N]
	b3, a3 := rows[6*N:7*N], rows[7*N:8*N]
	outA, a0, a1, a2, a3 = outA[:N], a0[:N], a1[:N], a2[:N], a3[:N]
	for i := range outB {
		x0, x1, x2, x3 := uint64(d0[i]), uint64(d1[i]), uint64(d2[i]), uint64(d3[i])
		sb := x0*uint64(b0[i]) + x1*uint64(b1[i]) + x2*uint64(b2[i]) + x3*uint64(b3[i])
		sa := x0*uint64(a0[i]) + x1*uint64(a1[i]) + x2*uint64(a2[i]) + x3*uint64(a3[i])
		hb, _ := bits.Mul64(sb, br)
		ha, _ := bits.Mul64(sa, br)
		rb := uint32(sb - hb*q)
		ra := uint32(sa - ha*q)
		outB[i] = min(rb, rb-uint32(q))
		outA[i] = min(ra, ra-uint32(q))
	}
}

// dot2Init is DotRows for two digits with init, in one pass.
func (m Modulus32) dot2Init(digits [][]uint32, rows, init []uint32, outB, outA []uint32) {
	N := len(outB)
	q, br := uint64(m.Q), m.barrett
	rows = rows[:4*N]
	init = init[:N]
	d0, d1 := digits[0][:N], digits[1][:N]
	b0, a0 := rows[0:N], rows[N:2*N]
	b1, a1 := rows[2*N:3*N], rows[3*N:4*N]
	outA, a0, a1 = outA[:N], a0[:N], a1[:N]
	for i := range outB {
		x0, x1 := uint64(d0[i]), uint64(d1[i])
		sb := uint64(init[i]) + x0*uint64(b0[i]) + x1*uint64(b1[i])
		sa := x0*uint64(a0[i]) + x1*uint64(a1[i])
		hb, _ := bits.Mul64(sb, br)
		ha, _ := bits.Mul64(sa, br)
		rb := uint32(sb - hb*q)
		ra := uint32(sa - ha*q)
		outB[i] = min(rb, rb-uint32(q))
		outA[i] = min(ra, ra-uint32(q))
	}
}
