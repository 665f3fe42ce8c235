package ring

// Radix-4 passes of NTT64, derived from ntt32_kernels.go (the same
// algorithms with uint64 entries): the Shoup product W·Y mod Q in [0, 2Q) is
// mulShoupLazy64, and the Barrett step of the ...NR kernels is
// x - barrettQuo64(x, floor((2^64-1)/Q))·Q. Keep the two files in step.

// ct2First64 is the Cooley–Tukey stage m = 1, t = N/2, reading in and writing
// out (so Forward needs no copy when log2(N) is odd).
func ct2First64(in, out []uint64, w, ws, q uint64) {
	h := len(out) / 2
	q2 := 2 * q
	x, y := in[:h], in[h:2*h]
	ox, oy := out[:h], out[h:2*h]
	y, ox, oy = y[:len(x)], ox[:len(x)], oy[:len(x)]
	for j := range x {
		u := x[j]
		u = min(u, u-q2)
		v := y[j]
		t := MulShoupLazy64(v, w, ws, q)
		ox[j] = u + t
		oy[j] = u - t + q2
	}
}

// ct4_64 runs the Cooley–Tukey stages (m, t) and (2m, t/2) in place, t >= 4:
// for each group i of stage m and offset j < t/2 it loads a0..a3 at distance
// t/2, does (a0,a2), (a1,a3) with W = ψ_rev[m+i], then (a0,a1) with
// ψ_rev[2m+2i] and (a2,a3) with ψ_rev[2m+2i+1].
func ct4_64(a []uint64, m, t int, psi, psiS []uint64, q uint64) {
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
			t2 := MulShoupLazy64(a2, w, ws, q)
			t3 := MulShoupLazy64(a3, w, ws, q)
			b0, b2 := a0+t2, a0-t2+q2
			b1, b3 := a1+t3, a1-t3+q2
			b0 = min(b0, b0-q2)
			b2 = min(b2, b2-q2)
			u1 := MulShoupLazy64(b1, w1, w1s, q)
			u3 := MulShoupLazy64(b3, w2, w2s, q)
			x0[j], x1[j] = b0+u1, b0-u1+q2
			x2[j], x3[j] = b2+u3, b2-u3+q2
		}
	}
}

// ct4Last64 runs the last two Cooley–Tukey stages (t = 2 and t = 1) on blocks
// of four and reduces fully to [0, Q). pA = ψ_rev[N/4..N/2-1] (one twiddle
// per block), pB = ψ_rev[N/2..N-1] (two per block).
func ct4Last64(a, pA, pAS, pB, pBS []uint64, q uint64) {
	q2 := 2 * q
	pAS = pAS[:len(pA)]
	for i, w := range pA {
		ws := pAS[i]
		wb := (*[2]uint64)(pB[2*i : 2*i+2])
		wbs := (*[2]uint64)(pBS[2*i : 2*i+2])
		x := (*[4]uint64)(a[4*i : 4*i+4])
		a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
		a0 = min(a0, a0-q2)
		a1 = min(a1, a1-q2)
		t2 := MulShoupLazy64(a2, w, ws, q)
		t3 := MulShoupLazy64(a3, w, ws, q)
		b0, b2 := a0+t2, a0-t2+q2
		b1, b3 := a1+t3, a1-t3+q2
		b0 = min(b0, b0-q2)
		b2 = min(b2, b2-q2)
		u1 := MulShoupLazy64(b1, wb[0], wbs[0], q)
		u3 := MulShoupLazy64(b3, wb[1], wbs[1], q)
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

// ct4LastLazy64 is ct4Last64 with outputs in [0, 2Q).
func ct4LastLazy64(a, pA, pAS, pB, pBS []uint64, q uint64) {
	q2 := 2 * q
	pAS = pAS[:len(pA)]
	for i, w := range pA {
		ws := pAS[i]
		wb := (*[2]uint64)(pB[2*i : 2*i+2])
		wbs := (*[2]uint64)(pBS[2*i : 2*i+2])
		x := (*[4]uint64)(a[4*i : 4*i+4])
		a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
		a0 = min(a0, a0-q2)
		a1 = min(a1, a1-q2)
		t2 := MulShoupLazy64(a2, w, ws, q)
		t3 := MulShoupLazy64(a3, w, ws, q)
		b0, b2 := a0+t2, a0-t2+q2
		b1, b3 := a1+t3, a1-t3+q2
		b0 = min(b0, b0-q2)
		b2 = min(b2, b2-q2)
		u1 := MulShoupLazy64(b1, wb[0], wbs[0], q)
		u3 := MulShoupLazy64(b3, wb[1], wbs[1], q)
		c0, c1 := b0+u1, b0-u1+q2
		c2, c3 := b2+u3, b2-u3+q2
		x[0] = min(c0, c0-q2)
		x[1] = min(c1, c1-q2)
		x[2] = min(c2, c2-q2)
		x[3] = min(c3, c3-q2)
	}
}

// The ...NR kernels are the forward passes without Harvey's reduction of
// the upper butterfly input, used when (2·log2(N) + 4)·Q <= 2^64 (e.g. the
// 27-bit FHEW primes up to N = 2048): then every entry, starting in [0, 4Q)
// and growing by less than 2Q per stage (X+T and X-T+2Q with T in [0, 2Q)),
// stays below 2^64 through all stages, so those conditional subtractions
// (a quarter of the pass's instructions) can go. The last pass reduces
// with a Barrett step (x - floor(x·floor((2^64-1)/Q)/2^64)·Q is in [0, 2Q)).

// ct2FirstNR64 is ct2First64 without the reduction of X.
func ct2FirstNR64(in, out []uint64, w, ws, q uint64) {
	h := len(out) / 2
	q2 := 2 * q
	x, y := in[:h], in[h:2*h]
	ox, oy := out[:h], out[h:2*h]
	y, ox, oy = y[:len(x)], ox[:len(x)], oy[:len(x)]
	for j := range x {
		u, v := x[j], y[j]
		t := MulShoupLazy64(v, w, ws, q)
		ox[j] = u + t
		oy[j] = u - t + q2
	}
}

// ct4NR64 is ct4_64 without the reductions of X.
func ct4NR64(a []uint64, m, t int, psi, psiS []uint64, q uint64) {
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
			t2 := MulShoupLazy64(a2, w, ws, q)
			t3 := MulShoupLazy64(a3, w, ws, q)
			b0, b2 := a0+t2, a0-t2+q2
			b1, b3 := a1+t3, a1-t3+q2
			u1 := MulShoupLazy64(b1, w1, w1s, q)
			u3 := MulShoupLazy64(b3, w2, w2s, q)
			x0[j], x1[j] = b0+u1, b0-u1+q2
			x2[j], x3[j] = b2+u3, b2-u3+q2
		}
	}
}

// ct4LastNR64 is ct4Last64 without the reductions of X; the outputs are
// brought to [0, 2Q) by Barrett (br = floor((2^64-1)/Q)) and, if full, to [0, Q).
func ct4LastNR64(a, pA, pAS, pB, pBS []uint64, q, br uint64, full bool) {
	q2 := 2 * q
	qf := q
	if !full {
		qf = ^uint64(0) // min(x, x-qf) is then a no-op
	}
	pAS = pAS[:len(pA)]
	for i, w := range pA {
		ws := pAS[i]
		wb := (*[2]uint64)(pB[2*i : 2*i+2])
		wbs := (*[2]uint64)(pBS[2*i : 2*i+2])
		x := (*[4]uint64)(a[4*i : 4*i+4])
		a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
		t2 := MulShoupLazy64(a2, w, ws, q)
		t3 := MulShoupLazy64(a3, w, ws, q)
		b0, b2 := a0+t2, a0-t2+q2
		b1, b3 := a1+t3, a1-t3+q2
		u1 := MulShoupLazy64(b1, wb[0], wbs[0], q)
		u3 := MulShoupLazy64(b3, wb[1], wbs[1], q)
		c0, c1 := b0+u1, b0-u1+q2
		c2, c3 := b2+u3, b2-u3+q2
		c0 -= barrettQuo64(c0, br) * q
		c1 -= barrettQuo64(c1, br) * q
		c2 -= barrettQuo64(c2, br) * q
		c3 -= barrettQuo64(c3, br) * q
		x[0] = min(c0, c0-qf)
		x[1] = min(c1, c1-qf)
		x[2] = min(c2, c2-qf)
		x[3] = min(c3, c3-qf)
	}
}

// gs2First64 is the Gentleman–Sande stage t = 1 (pairs (2i, 2i+1), twiddle
// ψ_rev^-1[N/2+i] = p[i]), reading in and writing out.
func gs2First64(in, out, p, pS []uint64, q uint64) {
	q2 := 2 * q
	pS = pS[:len(p)]
	for i, w := range p {
		ws := pS[i]
		x := (*[2]uint64)(in[2*i : 2*i+2])
		y := (*[2]uint64)(out[2*i : 2*i+2])
		u, v := x[0], x[1]
		s, d := u+v, u-v+q2
		y[0] = min(s, s-q2)
		y[1] = MulShoupLazy64(d, w, ws, q)
	}
}

// gs4First64 runs the Gentleman–Sande stages t = 1 and t = 2 in place on
// blocks of four: pA = ψ_rev^-1[N/2..N-1] (two per block),
// pB = ψ_rev^-1[N/4..N/2-1] (one per block). Each block does stage A on
// (a0,a1) and (a2,a3), then stage B on (a0,a2) and (a1,a3); inputs and
// outputs in [0, 2Q).
func gs4First64(a, pA, pAS, pB, pBS []uint64, q uint64) {
	q2 := 2 * q
	pBS = pBS[:len(pB)]
	for i, w := range pB {
		ws := pBS[i]
		wa := (*[2]uint64)(pA[2*i : 2*i+2])
		was := (*[2]uint64)(pAS[2*i : 2*i+2])
		x := (*[4]uint64)(a[4*i : 4*i+4])
		a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
		s0, d0 := a0+a1, a0-a1+q2
		s1, d1 := a2+a3, a2-a3+q2
		b0 := min(s0, s0-q2)
		b1 := MulShoupLazy64(d0, wa[0], was[0], q)
		b2 := min(s1, s1-q2)
		b3 := MulShoupLazy64(d1, wa[1], was[1], q)
		e0, f0 := b0+b2, b0-b2+q2
		e1, f1 := b1+b3, b1-b3+q2
		x[0], x[1] = min(e0, e0-q2), min(e1, e1-q2)
		x[2] = MulShoupLazy64(f0, w, ws, q)
		x[3] = MulShoupLazy64(f1, w, ws, q)
	}
}

// gs4_64 runs the Gentleman–Sande stages (m, t) and (m/2, 2t) in place, for
// 2 <= t: block i of size 4t holds groups 2i, 2i+1 of stage A (twiddles
// ψ_rev^-1[m+2i], ψ_rev^-1[m+2i+1]) and group i of stage B (ψ_rev^-1[m/2+i]).
func gs4_64(a []uint64, m, t int, psi, psiS []uint64, q uint64) {
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
			b1 := MulShoupLazy64(d0, w1, w1s, q)
			b2 := min(s1, s1-q2)
			b3 := MulShoupLazy64(d1, w2, w2s, q)
			e0, f0 := b0+b2, b0-b2+q2
			e1, f1 := b1+b3, b1-b3+q2
			x0[j], x1[j] = min(e0, e0-q2), min(e1, e1-q2)
			x2[j] = MulShoupLazy64(f0, w, ws, q)
			x3[j] = MulShoupLazy64(f1, w, ws, q)
		}
	}
}

// gs4Final64 runs the last two Gentleman–Sande stages (t = N/4 with
// ψ_rev^-1[2], ψ_rev^-1[3]; t = N/2) with N^-1 folded into the last one:
// its sum is multiplied by ni = N^-1 and its difference by
// np = N^-1·ψ_rev^-1[1]. Outputs in [0, Q) if full, else [0, 2Q).
func gs4Final64(a []uint64, w1, w1s, w2, w2s, ni, nis, np, nps, q uint64, full bool) {
	h := len(a) / 4
	q2 := 2 * q
	x0, x1, x2, x3 := a[:h], a[h:2*h], a[2*h:3*h], a[3*h:4*h]
	x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
	qf := q
	if !full {
		qf = ^uint64(0) // makes the final min(x, x-qf) a no-op: x - qf wraps above x
	}
	for j := range x0 {
		a0, a1, a2, a3 := x0[j], x1[j], x2[j], x3[j]
		s0, d0 := a0+a1, a0-a1+q2
		s1, d1 := a2+a3, a2-a3+q2
		b0 := min(s0, s0-q2)
		b1 := MulShoupLazy64(d0, w1, w1s, q)
		b2 := min(s1, s1-q2)
		b3 := MulShoupLazy64(d1, w2, w2s, q)
		e0, f0 := b0+b2, b0-b2+q2
		e1, f1 := b1+b3, b1-b3+q2
		c0 := MulShoupLazy64(e0, ni, nis, q)
		c1 := MulShoupLazy64(e1, ni, nis, q)
		c2 := MulShoupLazy64(f0, np, nps, q)
		c3 := MulShoupLazy64(f1, np, nps, q)
		x0[j], x1[j] = min(c0, c0-qf), min(c1, c1-qf)
		x2[j], x3[j] = min(c2, c2-qf), min(c3, c3-qf)
	}
}
