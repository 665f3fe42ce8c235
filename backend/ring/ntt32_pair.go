package ring

import "unsafe"

// Paired pure-Go NTT32 kernels: two neighbouring coefficients a[j], a[j+1]
// travel in one uint64 (a[j] in the low, a[j+1] in the high 32 bits). In
// every stage with butterfly distance t >= 2 both lanes meet the same
// twiddle, so one 64-bit load, add, subtract and store do the work of two,
// and the Shoup product of both lanes by W costs four multiplications
// instead of six:
//
//	q̂ = floor(y_lo·W'/2^32) | floor(y_hi·W'/2^32)·2^32   (two multiplications)
//	T = Y·W - q̂·Q  (mod 2^64)                           (two multiplications)
//
// The last line is exact lane by lane: mod 2^64, Y·W - q̂·Q equals
// (y_lo·W - q̂_lo·Q) + (y_hi·W - q̂_hi·Q)·2^32, and both brackets are the
// scalar Shoup results in [0, 2Q), so neither borrows from nor carries into
// the other lane. The same holds for the butterflies' sums and differences
// as long as each lane's exact value lies in [0, 2^32), which is the bound
// the scalar kernels already keep. The paired kernels therefore produce
// the scalar kernels' outputs bit for bit (tested), with about 40 % fewer
// instructions in the pure-Go build, where they replace ct4NR32. The AVX-512
// path does not use them.

// aligned8 reports whether a starts at a multiple of 8 bytes, so that it may
// be read as uint64 pairs (allocations are; a sub-slice at an odd offset is
// not, and gets the scalar kernels).
func aligned8(a []uint32) bool {
	return len(a) > 0 && uintptr(unsafe.Pointer(&a[0]))%8 == 0
}

// shoupPair returns the Shoup products W·y mod Q in [0, 2Q) of both lanes
// of y (each lane any value below 2^32), ws = floor(W·2^32/Q).
func shoupPair(y, w, ws, q uint64) uint64 {
	ql := uint64(uint32(y)) * ws >> 32
	qh := (y >> 32) * ws >> 32 << 32
	return y*w - (ql|qh)*q
}

// ct4NRPair32 is ct4NR32 on pairs: the Cooley–Tukey stages (m, t) and
// (2m, t/2) in place, without Harvey's reduction of X (noXRed), for
// t >= 4 (so that both lanes of a pair lie in the same quarter of a block).
// Other t fall back to ct4NR32.
func ct4NRPair32(a []uint32, m, t int, psi, psiS []uint32, q uint32) {
	h := t / 2
	if m < 1 || h < 2 || h%2 != 0 || !aligned8(a) {
		ct4NR32(a, m, t, psi, psiS, q)
		return
	}
	Q := uint64(q)
	q2 := 2*Q | 2*Q<<32
	a = a[:2*m*t]
	psi, psiS = psi[:4*m], psiS[:4*m]
	hb := uintptr(h) * 4
	hb3 := 3 * hb
	pa, pas := psi[m:2*m], psiS[m:2*m]
	pb, pbs := psi[2*m:4*m], psiS[2*m:4*m]
	pbp, pbsp := unsafe.Pointer(&pb[0]), unsafe.Pointer(&pbs[0])
	blk := unsafe.Pointer(&a[0])
	tb := 2 * uintptr(t) * 4
	for i, w32 := range pa {
		w, ws := uint64(w32), uint64(pas[i])
		wb := (*[2]uint32)(unsafe.Add(pbp, uintptr(i)*8)) // &pb[2i], i < m
		wbs := (*[2]uint32)(unsafe.Add(pbsp, uintptr(i)*8))
		w1, w1s := uint64(wb[0]), uint64(wbs[0])
		w2, w2s := uint64(wb[1]), uint64(wbs[1])
		p := unsafe.Add(blk, uintptr(i)*tb)
		end := unsafe.Add(p, hb) // &a[2it+h], inside the block
		for ; p != end; p = unsafe.Add(p, 8) {
			a0 := *(*uint64)(p)
			a1 := *(*uint64)(unsafe.Add(p, hb))
			a2 := *(*uint64)(unsafe.Add(p, 2*hb))
			a3 := *(*uint64)(unsafe.Add(p, hb3))
			t2 := shoupPair(a2, w, ws, Q)
			t3 := shoupPair(a3, w, ws, Q)
			b0, b2 := a0+t2, a0+q2-t2
			b1, b3 := a1+t3, a1+q2-t3
			u1 := shoupPair(b1, w1, w1s, Q)
			u3 := shoupPair(b3, w2, w2s, Q)
			*(*uint64)(p) = b0 + u1
			*(*uint64)(unsafe.Add(p, hb)) = b0 + q2 - u1
			*(*uint64)(unsafe.Add(p, 2*hb)) = b2 + u3
			*(*uint64)(unsafe.Add(p, hb3)) = b2 + q2 - u3
		}
	}
}

// forwardMid is the pure-Go forward transform for moduli too large for the
// NR kernels over all stages ((2·log2(N) + 4)·Q > 2^32, e.g. 28-bit Q at
// N = 1024) but with 8Q <= 2^32: it runs the NR pair kernels (no reduction
// of X, entries growing by under 2Q per stage) and, whenever the next pass
// could leave 32 bits, brings every entry back to [0, 2Q) with one Barrett
// sweep. last selects the last pass: ct4LastRaw32 (raw, entries below 2^32
// congruent to the transform), else ct4LastNR32 with full or lazy output.
func (r *NTT32) forwardMid(in, out []uint32, raw, full bool) {
	N := r.N
	in, out = in[:N], out[:N]
	q := r.Q
	psi, psiS := r.psiRev[:N], r.psiRevShoup[:N]
	limit := uint64(1<<32) / uint64(q) // entries must stay below limit·Q
	b := uint64(4)                     // current bound: entries < b·Q
	m, t := 1, N/2
	if r.LogN%2 == 1 {
		ct2FirstNR32(in, out, psi[1], psiS[1], q)
		m, t, b = 2, N/4, b+2
	} else if &in[0] != &out[0] {
		copy(out, in)
	}
	for ; t >= 4; m, t = 4*m, t/4 {
		if b+4 > limit {
			barrettSweep(out, r.br, q)
			b = 2
		}
		ct4NRPair32(out, m, t, psi, psiS, q)
		b += 4
	}
	if b+4 > limit {
		barrettSweep(out, r.br, q)
	}
	if raw {
		ct4LastRaw32(out, psi[N/4:N/2], psiS[N/4:N/2], psi[N/2:N], psiS[N/2:N], q)
		return
	}
	ct4LastNR32(out, psi[N/4:N/2], psiS[N/4:N/2], psi[N/2:N], psiS[N/2:N], q, r.br, full)
}

// barrettSweep reduces every entry of a (each below 2^32) to [0, 2Q),
// br = floor(2^32/Q), on pairs where a is 8-byte aligned.
func barrettSweep(a []uint32, br, q uint32) {
	B, Q := uint64(br), uint64(q)
	n := len(a) &^ 1
	if aligned8(a) && n > 0 {
		p := unsafe.Pointer(&a[0])
		for off := uintptr(0); off < 4*uintptr(n); off += 8 {
			x := (*uint64)(unsafe.Add(p, off))
			*x = barrettPair(*x, B, Q)
		}
		a = a[n:]
	}
	for i, x := range a {
		a[i] = x - uint32((uint64(x)*B)>>32)*q
	}
}
