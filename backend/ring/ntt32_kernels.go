package ring

import "unsafe"

// Radix-4 passes of NTT32. They are plain functions with every operand passed
// in, so that each loop is compiled on its own and keeps its values in
// registers. Slices are re-sliced to a common length (or converted to array
// pointers) before the loops so that the compiler removes the bounds checks
// (check with go build -gcflags=-d=ssa/check_bce). The Shoup product
// W·Y mod Q in [0, 2Q) is written out inline as
//
//	Y*W - uint32((uint64(Y)*uint64(W'))>>32)*Q
//
// with wrapping 32-bit arithmetic: the estimated quotient is off by at most
// one, so the exact remainder plus at most one Q fits in 32 bits.

// ct2First32 is the Cooley–Tukey stage m = 1, t = N/2, reading in and writing
// out (so Forward needs no copy when log2(N) is odd).
func ct2First32(in, out []uint32, w, ws, q uint32) {
	h := len(out) / 2
	q2 := 2 * q
	x, y := in[:h], in[h:2*h]
	ox, oy := out[:h], out[h:2*h]
	y, ox, oy = y[:len(x)], ox[:len(x)], oy[:len(x)]
	for j := range x {
		u := x[j]
		u = min(u, u-q2)
		v := y[j]
		t := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
		ox[j] = u + t
		oy[j] = u - t + q2
	}
}

// ct4_32 runs the Cooley–Tukey stages (m, t) and (2m, t/2) in place, t >= 4:
// for each group i of stage m and offset j < t/2 it loads a0..a3 at distance
// t/2, does (a0,a2), (a1,a3) with W = ψ_rev[m+i], then (a0,a1) with
// ψ_rev[2m+2i] and (a2,a3) with ψ_rev[2m+2i+1].
func ct4_32(a []uint32, m, t int, psi, psiS []uint32, q uint32) {
	h := t / 2
	q2 := 2 * q
	for i := 0; i < m; i++ {
		w, ws := psi[m+i], psiS[m+i]
		w1, w1s := psi[2*m+2*i], psiS[2*m+2*i]
		w2, w2s := psi[2*m+2*i+1], psiS[2*m+2*i+1]
		blk := a[2*i*t : 2*i*t+2*t]
		x0, x1, x2, x3 := blk[:h], blk[h:2*h], blk[2*h:3*h], blk[3*h:4*h]
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		for j := range x0 {
			a0, a1, a2, a3 := x0[j], x1[j], x2[j], x3[j]
			a0 = min(a0, a0-q2)
			a1 = min(a1, a1-q2)
			t2 := a2*w - uint32((uint64(a2)*uint64(ws))>>32)*q
			t3 := a3*w - uint32((uint64(a3)*uint64(ws))>>32)*q
			b0, b2 := a0+t2, a0-t2+q2
			b1, b3 := a1+t3, a1-t3+q2
			b0 = min(b0, b0-q2)
			b2 = min(b2, b2-q2)
			u1 := b1*w1 - uint32((uint64(b1)*uint64(w1s))>>32)*q
			u3 := b3*w2 - uint32((uint64(b3)*uint64(w2s))>>32)*q
			x0[j], x1[j] = b0+u1, b0-u1+q2
			x2[j], x3[j] = b2+u3, b2-u3+q2
		}
	}
}

// ct4Last32 runs the last two Cooley–Tukey stages (t = 2 and t = 1) on blocks
// of four and reduces fully to [0, Q). pA = ψ_rev[N/4..N/2-1] (one twiddle
// per block), pB = ψ_rev[N/2..N-1] (two per block).
func ct4Last32(a, pA, pAS, pB, pBS []uint32, q uint32) {
	q2 := 2 * q
	pAS = pAS[:len(pA)]
	for i, w := range pA {
		ws := pAS[i]
		wb := (*[2]uint32)(pB[2*i : 2*i+2])
		wbs := (*[2]uint32)(pBS[2*i : 2*i+2])
		x := (*[4]uint32)(a[4*i : 4*i+4])
		a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
		a0 = min(a0, a0-q2)
		a1 = min(a1, a1-q2)
		t2 := a2*w - uint32((uint64(a2)*uint64(ws))>>32)*q
		t3 := a3*w - uint32((uint64(a3)*uint64(ws))>>32)*q
		b0, b2 := a0+t2, a0-t2+q2
		b1, b3 := a1+t3, a1-t3+q2
		b0 = min(b0, b0-q2)
		b2 = min(b2, b2-q2)
		u1 := b1*wb[0] - uint32((uint64(b1)*uint64(wbs[0]))>>32)*q
		u3 := b3*wb[1] - uint32((uint64(b3)*uint64(wbs[1]))>>32)*q
		c0, c1 := b0+u1, b0-u1+q2
		c2, c3 := b2+u3, b2-u3+q2
		c0 = min(c0, c0-q2)
		c1 = min(c1, c1-q2)
		c2 = min(c2, c2-q2)
		c3 = min(c3, c3-q2)
		x[0] = min(c0, c0-q)
		x[1] = min(c1, c1-q)
		x[2] = min(c2, c2-q)
		x[3] = min(c3, c3-q)
	}
}

// ct4LastLazy32 is ct4Last32 with outputs in [0, 2Q).
func ct4LastLazy32(a, pA, pAS, pB, pBS []uint32, q uint32) {
	q2 := 2 * q
	pAS = pAS[:len(pA)]
	for i, w := range pA {
		ws := pAS[i]
		wb := (*[2]uint32)(pB[2*i : 2*i+2])
		wbs := (*[2]uint32)(pBS[2*i : 2*i+2])
		x := (*[4]uint32)(a[4*i : 4*i+4])
		a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
		a0 = min(a0, a0-q2)
		a1 = min(a1, a1-q2)
		t2 := a2*w - uint32((uint64(a2)*uint64(ws))>>32)*q
		t3 := a3*w - uint32((uint64(a3)*uint64(ws))>>32)*q
		b0, b2 := a0+t2, a0-t2+q2
		b1, b3 := a1+t3, a1-t3+q2
		b0 = min(b0, b0-q2)
		b2 = min(b2, b2-q2)
		u1 := b1*wb[0] - uint32((uint64(b1)*uint64(wbs[0]))>>32)*q
		u3 := b3*wb[1] - uint32((uint64(b3)*uint64(wbs[1]))>>32)*q
		c0, c1 := b0+u1, b0-u1+q2
		c2, c3 := b2+u3, b2-u3+q2
		x[0] = min(c0, c0-q2)
		x[1] = min(c1, c1-q2)
		x[2] = min(c2, c2-q2)
		x[3] = min(c3, c3-q2)
	}
}

// The ...NR kernels are the forward passes without Harvey's reduction of
// the upper butterfly input, used when (2·log2(N) + 4)·Q <= 2^32 (e.g. the
// 27-bit FHEW primes up to N = 2048): then every entry, starting in [0, 4Q)
// and growing by less than 2Q per stage (X+T and X-T+2Q with T in [0, 2Q)),
// stays below 2^32 through all stages, so those conditional subtractions
// (a quarter of the pass's instructions) can go. The last pass reduces
// with a Barrett step (x - floor(x·floor(2^32/Q)/2^32)·Q is in [0, 2Q)).

// ct2FirstNR32 is ct2First32 without the reduction of X.
func ct2FirstNR32(in, out []uint32, w, ws, q uint32) {
	h := len(out) / 2
	q2 := 2 * q
	x, y := in[:h], in[h:2*h]
	ox, oy := out[:h], out[h:2*h]
	y, ox, oy = y[:len(x)], ox[:len(x)], oy[:len(x)]
	for j := range x {
		u, v := x[j], y[j]
		t := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
		ox[j] = u + t
		oy[j] = u - t + q2
	}
}

// ct4NR32 is ct4_32 without the reductions of X. Its inner loop walks one
// pointer through x0 and reaches x1..x3 at fixed byte offsets: with four
// slice bases, an index, six twiddles and Q the loop needed more registers
// than amd64 has, and the compiler spilled and reloaded the slice bases in
// every iteration. The bounds are checked once per pass instead.
func ct4NR32(a []uint32, m, t int, psi, psiS []uint32, q uint32) {
	h := t / 2
	if m < 1 || h < 1 {
		return
	}
	Q := uint64(q)
	q2 := 2 * Q
	a = a[:2*m*t]
	psi, psiS = psi[:4*m], psiS[:4*m]
	hb := uintptr(h) * 4
	hb3 := 3 * hb
	// Stage A's twiddles are psi[m..2m-1], stage B's psi[2m..4m-1] in pairs:
	// re-sliced once, so that the group loop needs no bounds checks.
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
		for ; p != end; p = unsafe.Add(p, 4) {
			a0 := uint64(*(*uint32)(p))
			a1 := uint64(*(*uint32)(unsafe.Add(p, hb)))
			a2 := uint64(*(*uint32)(unsafe.Add(p, 2*hb)))
			a3 := uint64(*(*uint32)(unsafe.Add(p, hb3)))
			t2 := a2*w - (a2*ws>>32)*Q
			t3 := a3*w - (a3*ws>>32)*Q
			b0, b2 := a0+t2, a0-t2+q2
			b1, b3 := a1+t3, a1-t3+q2
			u1 := b1*w1 - (b1*w1s>>32)*Q
			u3 := b3*w2 - (b3*w2s>>32)*Q
			*(*uint32)(p) = uint32(b0 + u1)
			*(*uint32)(unsafe.Add(p, hb)) = uint32(b0 - u1 + q2)
			*(*uint32)(unsafe.Add(p, 2*hb)) = uint32(b2 + u3)
			*(*uint32)(unsafe.Add(p, hb3)) = uint32(b2 - u3 + q2)
		}
	}
}

// ct4LastNR32 is ct4Last32 without the reductions of X; the outputs are
// brought to [0, 2Q) by Barrett (br = floor(2^32/Q)) and, if full, to [0, Q).
func ct4LastNR32(a, pA, pAS, pB, pBS []uint32, q, br uint32, full bool) {
	q2 := 2 * q
	qf := q
	if !full {
		qf = ^uint32(0) // min(x, x-qf) is then a no-op
	}
	pAS = pAS[:len(pA)]
	for i, w := range pA {
		ws := pAS[i]
		wb := (*[2]uint32)(pB[2*i : 2*i+2])
		wbs := (*[2]uint32)(pBS[2*i : 2*i+2])
		x := (*[4]uint32)(a[4*i : 4*i+4])
		a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
		t2 := a2*w - uint32((uint64(a2)*uint64(ws))>>32)*q
		t3 := a3*w - uint32((uint64(a3)*uint64(ws))>>32)*q
		b0, b2 := a0+t2, a0-t2+q2
		b1, b3 := a1+t3, a1-t3+q2
		u1 := b1*wb[0] - uint32((uint64(b1)*uint64(wbs[0]))>>32)*q
		u3 := b3*wb[1] - uint32((uint64(b3)*uint64(wbs[1]))>>32)*q
		c0, c1 := b0+u1, b0-u1+q2
		c2, c3 := b2+u3, b2-u3+q2
		c0 -= uint32((uint64(c0)*uint64(br))>>32) * q
		c1 -= uint32((uint64(c1)*uint64(br))>>32) * q
		c2 -= uint32((uint64(c2)*uint64(br))>>32) * q
		c3 -= uint32((uint64(c3)*uint64(br))>>32) * q
		x[0] = min(c0, c0-qf)
		x[1] = min(c1, c1-qf)
		x[2] = min(c2, c2-qf)
		x[3] = min(c3, c3-qf)
	}
}

// ct4LastRaw32 is ct4LastNR32 without any final reduction: the outputs are
// the stage values themselves, below 2^32 by the noXRed bound but not
// reduced to [0, 2Q) (ForwardUnreduced). It computes in uint64 like
// ct4NR32.
func ct4LastRaw32(a, pA, pAS, pB, pBS []uint32, q uint32) {
	n := len(pA)
	if n < 1 {
		return
	}
	Q := uint64(q)
	q2 := 2 * Q
	pAS, pB, pBS, a = pAS[:n], pB[:2*n], pBS[:2*n], a[:4*n]
	// Pointers walk a (4 per block) and pB, pBS (2 per block): the slice
	// conversions cost three bounds checks per block.
	x, wb, wbs := unsafe.Pointer(&a[0]), unsafe.Pointer(&pB[0]), unsafe.Pointer(&pBS[0])
	for i, w32 := range pA {
		w, ws := uint64(w32), uint64(pAS[i])
		a0, a1 := uint64(*(*uint32)(x)), uint64(*(*uint32)(unsafe.Add(x, 4)))
		a2, a3 := uint64(*(*uint32)(unsafe.Add(x, 8))), uint64(*(*uint32)(unsafe.Add(x, 12)))
		t2 := a2*w - (a2*ws>>32)*Q
		t3 := a3*w - (a3*ws>>32)*Q
		b0, b2 := a0+t2, a0-t2+q2
		b1, b3 := a1+t3, a1-t3+q2
		v1, v1s := uint64(*(*uint32)(wb)), uint64(*(*uint32)(wbs))
		v3, v3s := uint64(*(*uint32)(unsafe.Add(wb, 4))), uint64(*(*uint32)(unsafe.Add(wbs, 4)))
		u1 := b1*v1 - (b1*v1s>>32)*Q
		u3 := b3*v3 - (b3*v3s>>32)*Q
		*(*uint32)(x), *(*uint32)(unsafe.Add(x, 4)) = uint32(b0+u1), uint32(b0-u1+q2)
		*(*uint32)(unsafe.Add(x, 8)), *(*uint32)(unsafe.Add(x, 12)) = uint32(b2+u3), uint32(b2-u3+q2)
		if i+1 < n { // never step a pointer past the end of its slice
			x, wb, wbs = unsafe.Add(x, 16), unsafe.Add(wb, 8), unsafe.Add(wbs, 8)
		}
	}
}

// gs2First32 is the Gentleman–Sande stage t = 1 (pairs (2i, 2i+1), twiddle
// ψ_rev^-1[N/2+i] = p[i]), reading in and writing out.
func gs2First32(in, out, p, pS []uint32, q uint32) {
	q2 := 2 * q
	pS = pS[:len(p)]
	for i, w := range p {
		ws := pS[i]
		x := (*[2]uint32)(in[2*i : 2*i+2])
		y := (*[2]uint32)(out[2*i : 2*i+2])
		u, v := x[0], x[1]
		s, d := u+v, u-v+q2
		y[0] = min(s, s-q2)
		y[1] = d*w - uint32((uint64(d)*uint64(ws))>>32)*q
	}
}

// gs4First32 runs the Gentleman–Sande stages t = 1 and t = 2 on blocks of
// four, reading in and writing out (which may be the same slice; this saves
// inverse's copy): pA = ψ_rev^-1[N/2..N-1] (two per block),
// pB = ψ_rev^-1[N/4..N/2-1] (one per block). Each block does stage A on
// (a0,a1) and (a2,a3), then stage B on (a0,a2) and (a1,a3); inputs and
// outputs in [0, 2Q). Pointers walk the blocks and pA, pAS as in
// ct4LastRaw32.
func gs4First32(in, out, pA, pAS, pB, pBS []uint32, q uint32) {
	n := len(pB)
	if n < 1 {
		return
	}
	Q := uint64(q)
	q2 := 2 * Q
	pBS, pA, pAS, in, out = pBS[:n], pA[:2*n], pAS[:2*n], in[:4*n], out[:4*n]
	x, y := unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0])
	wa, was := unsafe.Pointer(&pA[0]), unsafe.Pointer(&pAS[0])
	for i, w32 := range pB {
		w, ws := uint64(w32), uint64(pBS[i])
		a0, a1 := uint64(*(*uint32)(x)), uint64(*(*uint32)(unsafe.Add(x, 4)))
		a2, a3 := uint64(*(*uint32)(unsafe.Add(x, 8))), uint64(*(*uint32)(unsafe.Add(x, 12)))
		v1, v1s := uint64(*(*uint32)(wa)), uint64(*(*uint32)(was))
		v3, v3s := uint64(*(*uint32)(unsafe.Add(wa, 4))), uint64(*(*uint32)(unsafe.Add(was, 4)))
		s0, d0 := a0+a1, a0-a1+q2
		s1, d1 := a2+a3, a2-a3+q2
		b0 := min(s0, s0-q2)
		b1 := d0*v1 - (d0*v1s>>32)*Q
		b2 := min(s1, s1-q2)
		b3 := d1*v3 - (d1*v3s>>32)*Q
		e0, f0 := b0+b2, b0-b2+q2
		e1, f1 := b1+b3, b1-b3+q2
		*(*uint32)(y), *(*uint32)(unsafe.Add(y, 4)) = uint32(min(e0, e0-q2)), uint32(min(e1, e1-q2))
		*(*uint32)(unsafe.Add(y, 8)) = uint32(f0*w - (f0*ws>>32)*Q)
		*(*uint32)(unsafe.Add(y, 12)) = uint32(f1*w - (f1*ws>>32)*Q)
		if i+1 < n { // never step a pointer past the end of its slice
			x, y = unsafe.Add(x, 16), unsafe.Add(y, 16)
			wa, was = unsafe.Add(wa, 8), unsafe.Add(was, 8)
		}
	}
}

// gs4_32 runs the Gentleman–Sande stages (m, t) and (m/2, 2t) in place, for
// 2 <= t: block i of size 4t holds groups 2i, 2i+1 of stage A (twiddles
// ψ_rev^-1[m+2i], ψ_rev^-1[m+2i+1]) and group i of stage B (ψ_rev^-1[m/2+i]).
func gs4_32(a []uint32, m, t int, psi, psiS []uint32, q uint32) {
	q2 := 2 * q
	for i := 0; i < m/2; i++ {
		w1, w1s := psi[m+2*i], psiS[m+2*i]
		w2, w2s := psi[m+2*i+1], psiS[m+2*i+1]
		w, ws := psi[m/2+i], psiS[m/2+i]
		blk := a[4*i*t : 4*i*t+4*t]
		x0, x1, x2, x3 := blk[:t], blk[t:2*t], blk[2*t:3*t], blk[3*t:4*t]
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		for j := range x0 {
			a0, a1, a2, a3 := x0[j], x1[j], x2[j], x3[j]
			s0, d0 := a0+a1, a0-a1+q2
			s1, d1 := a2+a3, a2-a3+q2
			b0 := min(s0, s0-q2)
			b1 := d0*w1 - uint32((uint64(d0)*uint64(w1s))>>32)*q
			b2 := min(s1, s1-q2)
			b3 := d1*w2 - uint32((uint64(d1)*uint64(w2s))>>32)*q
			e0, f0 := b0+b2, b0-b2+q2
			e1, f1 := b1+b3, b1-b3+q2
			x0[j], x1[j] = min(e0, e0-q2), min(e1, e1-q2)
			x2[j] = f0*w - uint32((uint64(f0)*uint64(ws))>>32)*q
			x3[j] = f1*w - uint32((uint64(f1)*uint64(ws))>>32)*q
		}
	}
}

// gs4NR32 is gs4_32 for Q <= 2^29, with fewer reductions: stage A's sums
// are left in [0, 4Q), so stage B's sum of sums is in [0, 8Q) and is
// brought back to [0, 2Q) by one Barrett step (br = floor(2^32/Q)) instead
// of three conditional subtractions; its difference gets 4Q added to stay
// non-negative, which the Shoup product accepts (any input < 2^32). Like
// ct4NR32 it walks one pointer with fixed offsets (fewer registers), and it
// computes in uint64: every intermediate is an exact value below 2^32 (or a
// product below 2^62), so no zero-extensions are needed between steps.
func gs4NR32(a []uint32, m, t int, psi, psiS []uint32, q, br uint32) {
	if m < 2 || t < 1 {
		return
	}
	Q, B := uint64(q), uint64(br)
	q2, q4 := 2*Q, 4*Q
	a = a[:2*m*t]
	psi, psiS = psi[:2*m], psiS[:2*m]
	tb := uintptr(t) * 4
	tb3 := 3 * tb
	// Stage B's twiddles are psi[m/2..m-1], stage A's psi[m..2m-1] in
	// pairs: re-sliced once, so that the group loop needs no bounds checks.
	pb, pbs := psi[m/2:m], psiS[m/2:m]
	pa, pas := psi[m:2*m], psiS[m:2*m]
	pap, pasp := unsafe.Pointer(&pa[0]), unsafe.Pointer(&pas[0])
	blk := unsafe.Pointer(&a[0])
	bb := 4 * uintptr(t) * 4
	pbs = pbs[:len(pb)]
	for i, w32 := range pb {
		w, ws := uint64(w32), uint64(pbs[i])
		wa := (*[2]uint32)(unsafe.Add(pap, uintptr(i)*8)) // &pa[2i], i < m/2
		was := (*[2]uint32)(unsafe.Add(pasp, uintptr(i)*8))
		w1, w1s := uint64(wa[0]), uint64(was[0])
		w2, w2s := uint64(wa[1]), uint64(was[1])
		p := unsafe.Add(blk, uintptr(i)*bb)
		end := unsafe.Add(p, tb) // &a[4it+t], inside the block
		for ; p != end; p = unsafe.Add(p, 4) {
			a0 := uint64(*(*uint32)(p))
			a1 := uint64(*(*uint32)(unsafe.Add(p, tb)))
			a2 := uint64(*(*uint32)(unsafe.Add(p, 2*tb)))
			a3 := uint64(*(*uint32)(unsafe.Add(p, tb3)))
			s0, d0 := a0+a1, a0-a1+q2
			s1, d1 := a2+a3, a2-a3+q2
			b1 := d0*w1 - (d0*w1s>>32)*Q
			b3 := d1*w2 - (d1*w2s>>32)*Q
			e0, f0 := s0+s1, s0-s1+q4
			e1, f1 := b1+b3, b1-b3+q2
			*(*uint32)(p) = uint32(e0 - (e0*B>>32)*Q)
			*(*uint32)(unsafe.Add(p, tb)) = uint32(min(e1, e1-q2))
			*(*uint32)(unsafe.Add(p, 2*tb)) = uint32(f0*w - (f0*ws>>32)*Q)
			*(*uint32)(unsafe.Add(p, tb3)) = uint32(f1*w - (f1*ws>>32)*Q)
		}
	}
}

// gs4Final32 runs the last two Gentleman–Sande stages (t = N/4 with
// ψ_rev^-1[2], ψ_rev^-1[3]; t = N/2) with N^-1 folded into the last one:
// its sum is multiplied by ni = N^-1 and its difference by
// np = N^-1·ψ_rev^-1[1]. Outputs in [0, Q) if full, else [0, 2Q).
func gs4Final32(a []uint32, w1, w1s, w2, w2s, ni, nis, np, nps, q uint32, full bool) {
	h := len(a) / 4
	if h < 1 {
		return
	}
	Q := uint64(q)
	q2 := 2 * Q
	qf := Q
	if !full {
		qf = ^uint64(0) // makes the final min(x, x-qf) a no-op: x - qf wraps above x
	}
	W1, W1s, W2, W2s := uint64(w1), uint64(w1s), uint64(w2), uint64(w2s)
	Ni, Nis, Np, Nps := uint64(ni), uint64(nis), uint64(np), uint64(nps)
	a = a[:4*h]
	hb := uintptr(h) * 4
	hb3 := 3 * hb
	p := unsafe.Pointer(&a[0])
	end := unsafe.Add(p, hb) // &a[h]
	for ; p != end; p = unsafe.Add(p, 4) {
		a0 := uint64(*(*uint32)(p))
		a1 := uint64(*(*uint32)(unsafe.Add(p, hb)))
		a2 := uint64(*(*uint32)(unsafe.Add(p, 2*hb)))
		a3 := uint64(*(*uint32)(unsafe.Add(p, hb3)))
		s0, d0 := a0+a1, a0-a1+q2
		s1, d1 := a2+a3, a2-a3+q2
		b0 := min(s0, s0-q2)
		b1 := d0*W1 - (d0*W1s>>32)*Q
		b2 := min(s1, s1-q2)
		b3 := d1*W2 - (d1*W2s>>32)*Q
		e0, f0 := b0+b2, b0-b2+q2
		e1, f1 := b1+b3, b1-b3+q2
		c0 := e0*Ni - (e0*Nis>>32)*Q
		c1 := e1*Ni - (e1*Nis>>32)*Q
		c2 := f0*Np - (f0*Nps>>32)*Q
		c3 := f1*Np - (f1*Nps>>32)*Q
		*(*uint32)(p) = uint32(min(c0, c0-qf))
		*(*uint32)(unsafe.Add(p, hb)) = uint32(min(c1, c1-qf))
		*(*uint32)(unsafe.Add(p, 2*hb)) = uint32(min(c2, c2-qf))
		*(*uint32)(unsafe.Add(p, hb3)) = uint32(min(c3, c3-qf))
	}
}
