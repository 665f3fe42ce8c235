package ring

import (
	"fmt"
	"math/bits"
)

// NTT64 is the negacyclic NTT over Z_Q[X]/(X^N+1) for a prime Q < 2^61 with
// Q ≡ 1 (mod 2N), with Harvey butterflies on []uint64: the BGV counterpart
// of NTT32, with the same domains, slot order and method set. It embeds its
// Modulus64, so pointwise operations are available on it directly. Immutable
// after NewNTT64 and safe for concurrent use.
//
// See the package documentation for the slot order of the NTT domain.
type NTT64 struct {
	Modulus64
	// N is the ring degree (a power of two), LogN = log2(N).
	N, LogN int
	// Psi is the primitive 2N-th root of unity the transform evaluates at.
	Psi uint64

	// psiRev[k] = ψ^brv(k) and its Shoup companion; the Cooley–Tukey stage
	// with m groups uses entries m..2m-1.
	psiRev, psiRevShoup []uint64
	// psiInvRev[k] = ψ^-brv(k); the Gentleman–Sande stage with m groups uses
	// entries m..2m-1.
	psiInvRev, psiInvRevShoup []uint64
	// nInv = N^-1 and nInvPsi = N^-1·ψ^-brv(1), the last inverse stage's
	// constants with the scaling folded in.
	nInv, nInvShoup, nInvPsi, nInvPsiShoup uint64
}

// NewNTT64 builds the tables for degree N (a power of two, N >= 2) and the
// prime q < 2^61 with q ≡ 1 (mod 2N).
func NewNTT64(N int, q uint64) (*NTT64, error) {
	logN, err := checkN(N)
	if err != nil {
		return nil, err
	}
	m, err := NewModulus64(q)
	if err != nil {
		return nil, err
	}
	psi, err := PrimitiveRoot(q, N)
	if err != nil {
		return nil, fmt.Errorf("building NTT64 tables: %w", err)
	}
	Q := q
	psiInv, _ := InvMod(psi, Q)
	r := &NTT64{
		Modulus64: m, N: N, LogN: logN, Psi: psi,
		psiRev: make([]uint64, N), psiRevShoup: make([]uint64, N),
		psiInvRev: make([]uint64, N), psiInvRevShoup: make([]uint64, N),
	}
	// Powers in natural order, then placed at bit-reversed positions.
	pw, pwInv := uint64(1), uint64(1)
	for i := 0; i < N; i++ {
		k := BitReverse(uint64(i), logN)
		r.psiRev[k] = pw
		r.psiInvRev[k] = pwInv
		pw = MulMod64(pw, psi, Q)
		pwInv = MulMod64(pwInv, psiInv, Q)
	}
	for k := 0; k < N; k++ {
		r.psiRevShoup[k] = m.ShoupConst(r.psiRev[k])
		r.psiInvRevShoup[k] = m.ShoupConst(r.psiInvRev[k])
	}
	nInv, _ := InvMod(uint64(N), Q)
	r.nInv = nInv
	r.nInvShoup = m.ShoupConst(r.nInv)
	r.nInvPsi = MulMod64(nInv, r.psiInvRev[1], Q)
	r.nInvPsiShoup = m.ShoupConst(r.nInvPsi)
	return r, nil
}

// Forward sets out = NTT(in): in is in the coefficient domain, natural order,
// with entries in [0, 4Q) (so fully or lazily reduced inputs are both fine);
// out is in the NTT domain, bit-reversed order, fully reduced in [0, Q).
// out may alias in (the same slice); len(in), len(out) >= N.
func (r *NTT64) Forward(in, out []uint64) {
	r.forwardStages(in, out)
	r.forwardLast(out, true)
}

// ForwardLazy is Forward with out in [0, 2Q) instead of [0, Q): it skips one
// conditional subtraction per slot. MulCoeffs accepts such inputs.
func (r *NTT64) ForwardLazy(in, out []uint64) {
	r.forwardStages(in, out)
	r.forwardLast(out, false)
}

// forwardStages runs every Cooley–Tukey stage but the last (t = 1), reading
// in for the first stage and working in place in out afterwards. Invariant
// (Harvey): entries stay in [0, 4Q); each butterfly first brings its upper
// input to [0, 2Q), its Shoup product is in [0, 2Q), and the outputs X+T and
// X-T+2Q are in [0, 4Q).
func (r *NTT64) forwardStages(in, out []uint64) {
	N := r.N
	in, out = in[:N], out[:N]
	q, q2 := r.Q, 2*r.Q
	psi, psiS := r.psiRev[:N], r.psiRevShoup[:N]

	// First stage (m = 1, t = N/2): reads in, writes out; no copy needed.
	{
		h := N / 2
		w, ws := psi[1], psiS[1]
		x, y := in[:h], in[h:N]
		ox, oy := out[:h], out[h:N]
		y, ox, oy = y[:len(x)], ox[:len(x)], oy[:len(x)]
		for j := range x {
			u := x[j]
			u = min(u, u-q2)
			v := y[j]
			t := mulShoupLazy64(v, w, ws, q)
			ox[j] = u + t
			oy[j] = u - t + q2
		}
	}
	// Middle stages with t >= 4: one twiddle per group, a long inner loop.
	m := 2
	for t := N / 4; t >= 4; t >>= 1 {
		for i := 0; i < m; i++ {
			w, ws := psi[m+i], psiS[m+i]
			j1 := 2 * i * t
			x := out[j1 : j1+t]
			y := out[j1+t : j1+2*t]
			y = y[:len(x)]
			for j := range x {
				u := x[j]
				u = min(u, u-q2)
				v := y[j]
				tt := mulShoupLazy64(v, w, ws, q)
				x[j] = u + tt
				y[j] = u - tt + q2
			}
		}
		m <<= 1
	}
	// t = 2 (if N >= 8): groups of 4 slots, butterflies (0,2) and (1,3).
	if N >= 8 {
		m = N / 4
		pw, pws := psi[m:2*m], psiS[m:2*m]
		for i := range pw {
			w, ws := pw[i], pws[i]
			b := (*[4]uint64)(out[4*i : 4*i+4])
			u0, u1 := b[0], b[1]
			u0 = min(u0, u0-q2)
			u1 = min(u1, u1-q2)
			v0, v1 := b[2], b[3]
			t0 := mulShoupLazy64(v0, w, ws, q)
			t1 := mulShoupLazy64(v1, w, ws, q)
			b[0] = u0 + t0
			b[1] = u1 + t1
			b[2] = u0 - t0 + q2
			b[3] = u1 - t1 + q2
		}
	}
}

// forwardLast runs the t = 1 stage (pairs (2i, 2i+1), twiddle psiRev[N/2+i])
// and reduces to [0, Q) (full) or [0, 2Q). For N = 2 and N = 4 the earlier
// stages already consumed part of the work; forwardStages handles N >= 8 and
// this function the rest, so small N go through forwardSmall.
func (r *NTT64) forwardLast(out []uint64, full bool) {
	N := r.N
	if N < 8 {
		r.forwardSmall(out, full)
		return
	}
	out = out[:N]
	q, q2 := r.Q, 2*r.Q
	h := N / 2
	pw, pws := r.psiRev[h:N], r.psiRevShoup[h:N]
	if full {
		for i := range pw {
			w, ws := pw[i], pws[i]
			b := (*[2]uint64)(out[2*i : 2*i+2])
			u := b[0]
			u = min(u, u-q2)
			v := b[1]
			t := mulShoupLazy64(v, w, ws, q)
			s := u + t
			s = min(s, s-q2)
			d := u - t + q2
			d = min(d, d-q2)
			b[0] = min(s, s-q)
			b[1] = min(d, d-q)
		}
		return
	}
	for i := range pw {
		w, ws := pw[i], pws[i]
		b := (*[2]uint64)(out[2*i : 2*i+2])
		u := b[0]
		u = min(u, u-q2)
		v := b[1]
		t := mulShoupLazy64(v, w, ws, q)
		s := u + t
		d := u - t + q2
		b[0] = min(s, s-q2)
		b[1] = min(d, d-q2)
	}
}

// forwardSmall finishes N = 2 and N = 4, where the generic stage split does not
// apply: for N = 2 the first stage is the only one, for N = 4 the t = 1 stage
// remains. Only tests use such degrees; correctness over speed.
func (r *NTT64) forwardSmall(out []uint64, full bool) {
	N := r.N
	q, q2 := r.Q, 2*r.Q
	if N == 4 {
		for i := 0; i < 2; i++ {
			w, ws := r.psiRev[2+i], r.psiRevShoup[2+i]
			u := out[2*i]
			u = min(u, u-q2)
			v := out[2*i+1]
			t := mulShoupLazy64(v, w, ws, q)
			out[2*i] = u + t
			out[2*i+1] = u - t + q2
		}
	}
	for i := 0; i < N; i++ {
		x := out[i]
		x = min(x, x-q2)
		if full {
			x = min(x, x-q)
		}
		out[i] = x
	}
}

// Inverse sets out = NTT^-1(in): in is in the NTT domain (bit-reversed order)
// with entries in [0, 2Q); out is in the coefficient domain, natural order,
// fully reduced in [0, Q). The N^-1 scaling is folded into the last stage.
// out may alias in (the same slice); len(in), len(out) >= N.
func (r *NTT64) Inverse(in, out []uint64) {
	r.inverseStages(in, out)
	r.inverseLast(out, true)
}

// InverseLazy is Inverse with out in [0, 2Q) instead of [0, Q).
func (r *NTT64) InverseLazy(in, out []uint64) {
	r.inverseStages(in, out)
	r.inverseLast(out, false)
}

// inverseStages runs every Gentleman–Sande stage but the last (m = 1),
// reading in for the first stage (t = 1) and working in out afterwards.
// Invariant: entries stay in [0, 2Q); a butterfly maps (X, Y) to
// (X+Y reduced to [0, 2Q), (X-Y+2Q)·W in [0, 2Q) via Shoup).
func (r *NTT64) inverseStages(in, out []uint64) {
	N := r.N
	in, out = in[:N], out[:N]
	q, q2 := r.Q, 2*r.Q
	psi, psiS := r.psiInvRev[:N], r.psiInvRevShoup[:N]
	if N == 2 {
		copy(out, in)
		return
	}
	// t = 1: pairs (2i, 2i+1) with twiddle psiInvRev[N/2+i]; reads in.
	{
		h := N / 2
		pw, pws := psi[h:N], psiS[h:N]
		for i := range pw {
			w, ws := pw[i], pws[i]
			a := (*[2]uint64)(in[2*i : 2*i+2])
			b := (*[2]uint64)(out[2*i : 2*i+2])
			u, v := a[0], a[1]
			s := u + v
			d := u - v + q2
			b[0] = min(s, s-q2)
			b[1] = mulShoupLazy64(d, w, ws, q)
		}
	}
	// t = 2: groups of 4 slots.
	if N >= 8 {
		m := N / 4
		pw, pws := psi[m:2*m], psiS[m:2*m]
		for i := range pw {
			w, ws := pw[i], pws[i]
			b := (*[4]uint64)(out[4*i : 4*i+4])
			u0, u1, v0, v1 := b[0], b[1], b[2], b[3]
			s0, s1 := u0+v0, u1+v1
			d0, d1 := u0-v0+q2, u1-v1+q2
			b[0] = min(s0, s0-q2)
			b[1] = min(s1, s1-q2)
			b[2] = mulShoupLazy64(d0, w, ws, q)
			b[3] = mulShoupLazy64(d1, w, ws, q)
		}
	}
	// Stages with t >= 4 up to (excluding) the last, m = 1.
	m := N / 8
	for t := 4; m >= 2; t <<= 1 {
		for i := 0; i < m; i++ {
			w, ws := psi[m+i], psiS[m+i]
			j1 := 2 * i * t
			x := out[j1 : j1+t]
			y := out[j1+t : j1+2*t]
			y = y[:len(x)]
			for j := range x {
				u, v := x[j], y[j]
				s := u + v
				d := u - v + q2
				x[j] = min(s, s-q2)
				y[j] = mulShoupLazy64(d, w, ws, q)
			}
		}
		m >>= 1
	}
}

// inverseLast runs the m = 1 stage (t = N/2) with N^-1 folded into both
// outputs and reduces to [0, Q) (full) or [0, 2Q).
func (r *NTT64) inverseLast(out []uint64, full bool) {
	N := r.N
	out = out[:N]
	q, q2 := r.Q, 2*r.Q
	h := N / 2
	x, y := out[:h], out[h:N]
	y = y[:len(x)]
	ni, nis, np, nps := r.nInv, r.nInvShoup, r.nInvPsi, r.nInvPsiShoup
	if full {
		for j := range x {
			u, v := x[j], y[j]
			s := u + v // [0, 4Q): fine, Shoup accepts any uint64
			d := u - v + q2
			a := mulShoupLazy64(s, ni, nis, q)
			b := mulShoupLazy64(d, np, nps, q)
			x[j] = min(a, a-q)
			y[j] = min(b, b-q)
		}
		return
	}
	for j := range x {
		u, v := x[j], y[j]
		s := u + v
		d := u - v + q2
		x[j] = mulShoupLazy64(s, ni, nis, q)
		y[j] = mulShoupLazy64(d, np, nps, q)
	}
}

// mulShoupLazy64 returns x·w mod q in [0, 2q) for any x, given
// ws = floor(w·2^64/q).
func mulShoupLazy64(x, w, ws, q uint64) uint64 {
	hi, _ := bits.Mul64(x, ws)
	return x*w - hi*q
}
