package ring

import (
	"fmt"
)

// NTT32 is the negacyclic NTT over Z_Q[X]/(X^N+1) for a prime Q < 2^30 with
// Q ≡ 1 (mod 2N), with Harvey butterflies on []uint32. It embeds its
// Modulus32, so pointwise operations are available on it directly. Immutable
// after NewNTT32 and safe for concurrent use.
//
// See the package documentation for the slot order of the NTT domain.
type NTT32 struct {
	Modulus32
	// N is the ring degree (a power of two), LogN = log2(N).
	N, LogN int
	// Psi is the primitive 2N-th root of unity the transform evaluates at.
	Psi uint32

	// psiRev[k] = ψ^brv(k) and its Shoup companion; the Cooley–Tukey stage
	// with m groups uses entries m..2m-1.
	psiRev, psiRevShoup []uint32
	// psiInvRev[k] = ψ^-brv(k); the Gentleman–Sande stage with m groups uses
	// entries m..2m-1.
	psiInvRev, psiInvRevShoup []uint32
	// nInv = N^-1 and nInvPsi = N^-1·ψ^-brv(1), the last inverse stage's
	// constants with the scaling folded in.
	nInv, nInvShoup, nInvPsi, nInvPsiShoup uint32
}

// NewNTT32 builds the tables for degree N (a power of two, N >= 2) and the
// prime q < 2^30 with q ≡ 1 (mod 2N).
func NewNTT32(N int, q uint32) (*NTT32, error) {
	logN, err := checkN(N)
	if err != nil {
		return nil, err
	}
	m, err := NewModulus32(q)
	if err != nil {
		return nil, err
	}
	psi, err := PrimitiveRoot(uint64(q), N)
	if err != nil {
		return nil, fmt.Errorf("building NTT32 tables: %w", err)
	}
	Q := uint64(q)
	psiInv, _ := InvMod(psi, Q)
	r := &NTT32{
		Modulus32: m, N: N, LogN: logN, Psi: uint32(psi),
		psiRev: make([]uint32, N), psiRevShoup: make([]uint32, N),
		psiInvRev: make([]uint32, N), psiInvRevShoup: make([]uint32, N),
	}
	// Powers in natural order, then placed at bit-reversed positions.
	pw, pwInv := uint64(1), uint64(1)
	for i := 0; i < N; i++ {
		k := BitReverse(uint64(i), logN)
		r.psiRev[k] = uint32(pw)
		r.psiInvRev[k] = uint32(pwInv)
		pw = MulMod64(pw, psi, Q)
		pwInv = MulMod64(pwInv, psiInv, Q)
	}
	for k := 0; k < N; k++ {
		r.psiRevShoup[k] = m.ShoupConst(r.psiRev[k])
		r.psiInvRevShoup[k] = m.ShoupConst(r.psiInvRev[k])
	}
	nInv, _ := InvMod(uint64(N), Q)
	r.nInv = uint32(nInv)
	r.nInvShoup = m.ShoupConst(r.nInv)
	r.nInvPsi = uint32(MulMod64(nInv, uint64(r.psiInvRev[1]), Q))
	r.nInvPsiShoup = m.ShoupConst(r.nInvPsi)
	return r, nil
}

// Forward sets out = NTT(in): in is in the coefficient domain, natural order,
// with entries in [0, 4Q) (so fully or lazily reduced inputs are both fine);
// out is in the NTT domain, bit-reversed order, fully reduced in [0, Q).
// out may alias in (the same slice); len(in), len(out) >= N.
func (r *NTT32) Forward(in, out []uint32) {
	r.forwardStages(in, out)
	r.forwardLast(out, true)
}

// ForwardLazy is Forward with out in [0, 2Q) instead of [0, Q): it skips one
// conditional subtraction per slot. MulCoeffs accepts such inputs.
func (r *NTT32) ForwardLazy(in, out []uint32) {
	r.forwardStages(in, out)
	r.forwardLast(out, false)
}

// forwardStages runs every Cooley–Tukey stage but the last (t = 1), reading
// in for the first stage and working in place in out afterwards. Invariant
// (Harvey): entries stay in [0, 4Q); each butterfly first brings its upper
// input to [0, 2Q), its Shoup product is in [0, 2Q), and the outputs X+T and
// X-T+2Q are in [0, 4Q).
func (r *NTT32) forwardStages(in, out []uint32) {
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
			t := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
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
				tt := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
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
			b := (*[4]uint32)(out[4*i : 4*i+4])
			u0, u1 := b[0], b[1]
			u0 = min(u0, u0-q2)
			u1 = min(u1, u1-q2)
			v0, v1 := b[2], b[3]
			t0 := v0*w - uint32((uint64(v0)*uint64(ws))>>32)*q
			t1 := v1*w - uint32((uint64(v1)*uint64(ws))>>32)*q
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
func (r *NTT32) forwardLast(out []uint32, full bool) {
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
			b := (*[2]uint32)(out[2*i : 2*i+2])
			u := b[0]
			u = min(u, u-q2)
			v := b[1]
			t := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
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
		b := (*[2]uint32)(out[2*i : 2*i+2])
		u := b[0]
		u = min(u, u-q2)
		v := b[1]
		t := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
		s := u + t
		d := u - t + q2
		b[0] = min(s, s-q2)
		b[1] = min(d, d-q2)
	}
}

// forwardSmall finishes N = 2 and N = 4, where the generic stage split does not
// apply: for N = 2 the first stage is the only one, for N = 4 the t = 1 stage
// remains. Only tests use such degrees; correctness over speed.
func (r *NTT32) forwardSmall(out []uint32, full bool) {
	N := r.N
	q, q2 := r.Q, 2*r.Q
	if N == 4 {
		for i := 0; i < 2; i++ {
			w, ws := r.psiRev[2+i], r.psiRevShoup[2+i]
			u := out[2*i]
			u = min(u, u-q2)
			v := out[2*i+1]
			t := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
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
func (r *NTT32) Inverse(in, out []uint32) {
	r.inverseStages(in, out)
	r.inverseLast(out, true)
}

// InverseLazy is Inverse with out in [0, 2Q) instead of [0, Q).
func (r *NTT32) InverseLazy(in, out []uint32) {
	r.inverseStages(in, out)
	r.inverseLast(out, false)
}

// inverseStages runs every Gentleman–Sande stage but the last (m = 1),
// reading in for the first stage (t = 1) and working in out afterwards.
// Invariant: entries stay in [0, 2Q); a butterfly maps (X, Y) to
// (X+Y reduced to [0, 2Q), (X-Y+2Q)·W in [0, 2Q) via Shoup).
func (r *NTT32) inverseStages(in, out []uint32) {
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
			a := (*[2]uint32)(in[2*i : 2*i+2])
			b := (*[2]uint32)(out[2*i : 2*i+2])
			u, v := a[0], a[1]
			s := u + v
			d := u - v + q2
			b[0] = min(s, s-q2)
			b[1] = d*w - uint32((uint64(d)*uint64(ws))>>32)*q
		}
	}
	// t = 2: groups of 4 slots.
	if N >= 8 {
		m := N / 4
		pw, pws := psi[m:2*m], psiS[m:2*m]
		for i := range pw {
			w, ws := pw[i], pws[i]
			b := (*[4]uint32)(out[4*i : 4*i+4])
			u0, u1, v0, v1 := b[0], b[1], b[2], b[3]
			s0, s1 := u0+v0, u1+v1
			d0, d1 := u0-v0+q2, u1-v1+q2
			b[0] = min(s0, s0-q2)
			b[1] = min(s1, s1-q2)
			b[2] = d0*w - uint32((uint64(d0)*uint64(ws))>>32)*q
			b[3] = d1*w - uint32((uint64(d1)*uint64(ws))>>32)*q
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
				y[j] = d*w - uint32((uint64(d)*uint64(ws))>>32)*q
			}
		}
		m >>= 1
	}
}

// inverseLast runs the m = 1 stage (t = N/2) with N^-1 folded into both
// outputs and reduces to [0, Q) (full) or [0, 2Q).
func (r *NTT32) inverseLast(out []uint32, full bool) {
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
			s := u + v // [0, 4Q): fine, Shoup accepts any uint32
			d := u - v + q2
			a := s*ni - uint32((uint64(s)*uint64(nis))>>32)*q
			b := d*np - uint32((uint64(d)*uint64(nps))>>32)*q
			x[j] = min(a, a-q)
			y[j] = min(b, b-q)
		}
		return
	}
	for j := range x {
		u, v := x[j], y[j]
		s := u + v
		d := u - v + q2
		x[j] = s*ni - uint32((uint64(s)*uint64(nis))>>32)*q
		y[j] = d*np - uint32((uint64(d)*uint64(nps))>>32)*q
	}
}
