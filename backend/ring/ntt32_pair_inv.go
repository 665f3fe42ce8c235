package ring

import "unsafe"

// Paired pure-Go inverse transform (see ntt32_pair.go for the pairing). Its
// passes keep entries in [0, 4Q) between passes instead of [0, 2Q), which
// the Gentleman–Sande butterfly tolerates as long as 16Q <= 2^32 (27- and
// 28-bit primes): a pass's sum of four inputs stays below 16Q and is brought
// back by one Barrett step, and every difference gets a large enough
// multiple of Q added to stay non-negative before its Shoup product (any
// input below 2^32). Conditional subtractions, which cannot be done on both
// lanes of a pair at once, are thereby avoided except in the first pass
// (whose first stage is not paired) and the final full reduction.

// pairInverseOK reports whether the paired inverse applies: 16Q <= 2^32,
// N >= 16 and 8-byte aligned slices.
func (r *NTT32) pairInverseOK(in, out []uint32) bool {
	return uint64(r.Q)*16 <= 1<<32 && r.N >= 16 && aligned8(in) && aligned8(out)
}

// barrettPair reduces both lanes of e (each below 2^32) to [0, 2Q) with
// br = floor(2^32/Q).
func barrettPair(e, br, q uint64) uint64 {
	ql := uint64(uint32(e)) * br >> 32
	qh := (e >> 32) * br >> 32 << 32
	return e - (ql|qh)*q
}

// inversePair is inverseGo on pairs: entries in [0, 2Q) in, [0, Q) out if
// full, else [0, 2Q).
func (r *NTT32) inversePair(in, out []uint32, full bool) {
	N := r.N
	in, out = in[:N], out[:N]
	q := r.Q
	psi, psiS := r.psiInvRev[:N], r.psiInvRevShoup[:N]
	var t int
	if r.LogN%2 == 1 {
		gs2First32(in, out, psi[N/2:N], psiS[N/2:N], q) // [0, 2Q) out
		t = 2
	} else {
		gs4FirstPair32(in, out, psi[N/2:N], psiS[N/2:N], psi[N/4:N/2], psiS[N/4:N/2], q)
		t = 4
	}
	for ; t < N/4; t *= 4 {
		gs4Pair32(out, N/(2*t), t, psi, psiS, q, r.br)
	}
	gs4FinalPair32(out, psi[2], psiS[2], psi[3], psiS[3], r.nInv, r.nInvShoup, r.nInvPsi, r.nInvPsiShoup, q, full)
}

// gs4FirstPair32 is gs4First32 with the second stage (t = 2) on pairs: per
// block of four, stage A on (a0,a1) and (a2,a3) as before, then stage B on
// the pairs (b0|b1) and (b2|b3), whose two butterflies share ψ_rev^-1[N/4+i].
// Inputs in [0, 2Q); outputs in [0, 4Q) (sums) and [0, 2Q) (products).
func gs4FirstPair32(in, out, pA, pAS, pB, pBS []uint32, q uint32) {
	n := len(pB)
	if n < 1 {
		return
	}
	Q := uint64(q)
	q2 := 2 * Q
	c := 2*Q | 2*Q<<32 // stage B's inputs are in [0, 2Q)
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
		X, Y := b0|b1<<32, b2|b3<<32
		*(*uint64)(y) = X + Y
		*(*uint64)(unsafe.Add(y, 8)) = shoupPair(X+c-Y, w, ws, Q)
		if i+1 < n { // never step a pointer past the end of its slice
			x, y = unsafe.Add(x, 16), unsafe.Add(y, 16)
			wa, was = unsafe.Add(wa, 8), unsafe.Add(was, 8)
		}
	}
}

// gs4Pair32 is gs4NR32 on pairs with entries in [0, 4Q) in and out:
// stage A (twiddles ψ_rev^-1[m+2i], ψ_rev^-1[m+2i+1]) on (a0,a1), (a2,a3),
// stage B (ψ_rev^-1[m/2+i]) on (s0,s1), (b1,b3). s0 + s1 < 16Q is reduced
// by Barrett, b1 + b3 < 4Q is left as it is. Needs t >= 2 (even).
func gs4Pair32(a []uint32, m, t int, psi, psiS []uint32, q, br uint32) {
	if m < 2 || t < 2 {
		return
	}
	Q, B := uint64(q), uint64(br)
	q4 := 4*Q | 4*Q<<32
	q8 := 8*Q | 8*Q<<32
	a = a[:2*m*t]
	psi, psiS = psi[:2*m], psiS[:2*m]
	tb := uintptr(t) * 4
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
		end := unsafe.Add(p, tb)
		for ; p != end; p = unsafe.Add(p, 8) {
			p2 := unsafe.Add(p, 2*tb)
			a0 := *(*uint64)(p)
			a1 := *(*uint64)(unsafe.Add(p, tb))
			a2 := *(*uint64)(p2)
			a3 := *(*uint64)(unsafe.Add(p2, tb))
			s0 := a0 + a1
			s1 := a2 + a3
			b1 := shoupPair(a0+q4-a1, w1, w1s, Q)
			b3 := shoupPair(a2+q4-a3, w2, w2s, Q)
			*(*uint64)(p) = barrettPair(s0+s1, B, Q)
			*(*uint64)(unsafe.Add(p, tb)) = b1 + b3
			*(*uint64)(p2) = shoupPair(s0+q8-s1, w, ws, Q)
			*(*uint64)(unsafe.Add(p2, tb)) = shoupPair(b1+q4-b3, w, ws, Q)
		}
	}
}

// gs4FinalPair32 is gs4Final32 on pairs with inputs in [0, 4Q): the last two
// stages with N^-1 folded in; outputs in [0, Q) if full, else [0, 2Q).
func gs4FinalPair32(a []uint32, w1, w1s, w2, w2s, ni, nis, np, nps, q uint32, full bool) {
	h := len(a) / 4
	if h < 2 {
		return
	}
	Q := uint64(q)
	q4 := 4*Q | 4*Q<<32
	q8 := 8*Q | 8*Q<<32
	W1, W1s, W2, W2s := uint64(w1), uint64(w1s), uint64(w2), uint64(w2s)
	a = a[:4*h]
	hb := uintptr(h) * 4
	p := unsafe.Pointer(&a[0])
	end := unsafe.Add(p, hb) // &a[h]
	for ; p != end; p = unsafe.Add(p, 8) {
		p2 := unsafe.Add(p, 2*hb)
		a0 := *(*uint64)(p)
		a1 := *(*uint64)(unsafe.Add(p, hb))
		a2 := *(*uint64)(p2)
		a3 := *(*uint64)(unsafe.Add(p2, hb))
		s0, s1 := a0+a1, a2+a3 // < 8Q
		b1 := shoupPair(a0+q4-a1, W1, W1s, Q)
		b3 := shoupPair(a2+q4-a3, W2, W2s, Q)
		*(*uint64)(p) = s0 + s1 // < 16Q, scaled below
		*(*uint64)(unsafe.Add(p, hb)) = b1 + b3
		*(*uint64)(p2) = s0 + q8 - s1
		*(*uint64)(unsafe.Add(p2, hb)) = b1 + q4 - b3
	}
	// The N^-1 scalings, in a second sweep over the same (cached) block: a
	// fused loop needed more registers than amd64 has and spilled.
	scalePair(a[:2*h], uint64(ni), uint64(nis), Q, full)
	scalePair(a[2*h:], uint64(np), uint64(nps), Q, full)
}

// scalePair sets a = a·W mod Q (Shoup, W' = ws) on pairs, entries below 2^32
// in, [0, Q) out if full, else [0, 2Q).
func scalePair(a []uint32, w, ws, q uint64, full bool) {
	n := len(a) / 2
	if n < 1 {
		return
	}
	a = a[:2*n]
	p := unsafe.Pointer(&a[0])
	size := 8 * uintptr(n)
	if !full {
		for off := uintptr(0); off < size; off += 8 {
			x := (*uint64)(unsafe.Add(p, off))
			*x = shoupPair(*x, w, ws, q)
		}
		return
	}
	// Both lanes are in [0, 2Q) with Q < 2^28: adding 2^31 - Q sets bit 31
	// of a lane exactly when it is >= Q, and that bit times Q is subtracted.
	const one = 1 | 1<<32
	bias := (1<<31 - q) * one
	for off := uintptr(0); off < size; off += 8 {
		x := (*uint64)(unsafe.Add(p, off))
		c := shoupPair(*x, w, ws, q)
		*x = c - ((c+bias)>>31&one)*q
	}
}
