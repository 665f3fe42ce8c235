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
	// noXRed: (2·LogN + 4)·Q <= 2^32, so Forward may skip Harvey's
	// reduction of X (see ct4NR32); br = floor(2^32 / Q) for its final
	// Barrett step.
	noXRed bool
	br     uint32
	// tailTw, tailTwInv: the per-lane twiddles of the in-register stages
	// t = 8, 4, 2 of the vector kernels (avxTailTwiddles); nil for
	// N < avxMinN.
	tailTw, tailTwInv []uint32
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
	r.noXRed = uint64(2*logN+4)*Q <= 1<<32
	r.br = uint32((1 << 32) / Q)
	if N >= avxMinN {
		r.tailTw = avxTailTwiddles(r.psiRev, r.psiRevShoup)
		r.tailTwInv = avxTailTwiddles(r.psiInvRev, r.psiInvRevShoup)
	}
	return r, nil
}

// Forward sets out = NTT(in): in is in the coefficient domain, natural order,
// with entries in [0, 4Q) (so fully or lazily reduced inputs are both fine);
// out is in the NTT domain, bit-reversed order, fully reduced in [0, Q).
// out may alias in (the same slice); len(in), len(out) >= N.
func (r *NTT32) Forward(in, out []uint32) {
	r.forward(in, out, true)
}

// ForwardLazy is Forward with out in [0, 2Q) instead of [0, Q): it skips one
// conditional subtraction per slot. MulCoeffs accepts such inputs.
func (r *NTT32) ForwardLazy(in, out []uint32) {
	r.forward(in, out, false)
}

// ForwardUnreduced is Forward for consumers that accept any entry below
// 2^32 (MulCoeffs, MulCoeffsAddLazy, DotRows): out is congruent to NTT(in)
// mod Q with entries < 2^32 but not necessarily below 2Q. In the pure-Go
// path with a modulus small enough for the unreduced stages (see ct4NR32)
// it skips the last pass's Barrett reductions; otherwise it is ForwardLazy
// (out in [0, 2Q)). out may alias in.
func (r *NTT32) ForwardUnreduced(in, out []uint32) {
	N := r.N
	if N < 16 || (hasAVX512 && N >= avxMinN) {
		r.forward(in, out, false)
		return
	}
	if !r.noXRed {
		if uint64(r.Q)*8 <= 1<<32 {
			r.forwardMid(in, out, true, false)
		} else {
			r.forward(in, out, false)
		}
		return
	}
	in, out = in[:N], out[:N]
	psi, psiS := r.psiRev[:N], r.psiRevShoup[:N]
	m, t := 1, N/2
	if r.LogN%2 == 1 {
		ct2FirstNR32(in, out, psi[1], psiS[1], r.Q)
		m, t = 2, N/4
	} else if &in[0] != &out[0] { // in place (the usual case): no copy
		copy(out, in)
	}
	for ; t >= 4; m, t = 4*m, t/4 {
		ct4NRPair32(out, m, t, psi, psiS, r.Q)
	}
	ct4LastRaw32(out, psi[N/4:N/2], psiS[N/4:N/2], psi[N/2:N], psiS[N/2:N], r.Q)
}

// Forward4Q is Forward for consumers that take entries below 4Q
// (RNS2.DotRowsMono2's digits): out is congruent to NTT(in) mod Q with
// entries in [0, 4Q). On the noXRed vector kernels (27-bit primes up to
// N = 2048, see NTT32.noXRed) it skips the block kernel's final reduction,
// 32 of its about 380 ops per 128 entries; elsewhere it is ForwardLazy.
// out may alias in.
func (r *NTT32) Forward4Q(in, out []uint32) {
	if r.noXRed && hasAVX512 && r.N >= avxMinN {
		r.forwardNRAVX512(in[:r.N], out[:r.N], true)
		return
	}
	r.forward(in, out, false)
}

// forward runs the Cooley–Tukey stages two at a time (radix-4 passes, half
// the loads and stores of radix-2), with one radix-2 stage first when log2(N)
// is odd. Stage (m, t) has m groups of butterflies at distance t, twiddles
// psiRev[m..2m-1]. Invariant (Harvey): entries stay in [0, 4Q); a butterfly
// first brings its upper input X to [0, 2Q), its Shoup product T = W·Y is in
// [0, 2Q) for any Y < 2^32, and the outputs X+T, X-T+2Q are in [0, 4Q).
func (r *NTT32) forward(in, out []uint32, full bool) {
	N := r.N
	in, out = in[:N], out[:N]
	if N < 16 {
		copy(out, in)
		forwardRadix2_32(out, r.psiRev, r.psiRevShoup, r.Q, full)
		return
	}
	if hasAVX512 && N >= avxMinN {
		r.forwardAVX512(in, out, full)
		return
	}
	r.forwardGo(in, out, full)
}

// forwardGo is the pure-Go forward transform for N >= 16.
func (r *NTT32) forwardGo(in, out []uint32, full bool) {
	N := r.N
	in, out = in[:N], out[:N]
	q := r.Q
	psi, psiS := r.psiRev[:N], r.psiRevShoup[:N]
	if r.noXRed {
		r.forwardNR(in, out, full)
		return
	}
	if uint64(q)*8 <= 1<<32 {
		r.forwardMid(in, out, false, full)
		return
	}
	m, t := 1, N/2
	if r.LogN%2 == 1 {
		ct2First32(in, out, psi[1], psiS[1], q)
		m, t = 2, N/4
	} else if &in[0] != &out[0] {
		copy(out, in)
	}
	for ; t >= 4; m, t = 4*m, t/4 {
		ct4_32(out, m, t, psi, psiS, q)
	}
	if full {
		ct4Last32(out, psi[N/4:N/2], psiS[N/4:N/2], psi[N/2:N], psiS[N/2:N], q)
	} else {
		ct4LastLazy32(out, psi[N/4:N/2], psiS[N/4:N/2], psi[N/2:N], psiS[N/2:N], q)
	}
}

// forwardNR is forward with the ...NR kernels, for moduli small enough that
// Harvey's reduction of X can be skipped (noXRed).
func (r *NTT32) forwardNR(in, out []uint32, full bool) {
	N := r.N
	q := r.Q
	psi, psiS := r.psiRev[:N], r.psiRevShoup[:N]
	m, t := 1, N/2
	if r.LogN%2 == 1 {
		ct2FirstNR32(in, out, psi[1], psiS[1], q)
		m, t = 2, N/4
	} else if &in[0] != &out[0] {
		copy(out, in)
	}
	for ; t >= 4; m, t = 4*m, t/4 {
		ct4NRPair32(out, m, t, psi, psiS, q)
	}
	ct4LastNR32(out, psi[N/4:N/2], psiS[N/4:N/2], psi[N/2:N], psiS[N/2:N], q, r.br, full)
}

// Inverse sets out = NTT^-1(in): in is in the NTT domain (bit-reversed order)
// with entries in [0, 2Q); out is in the coefficient domain, natural order,
// fully reduced in [0, Q). The N^-1 scaling is folded into the last stage.
// out may alias in (the same slice); len(in), len(out) >= N.
func (r *NTT32) Inverse(in, out []uint32) {
	r.inverse(in, out, true)
}

// InverseLazy is Inverse with out in [0, 2Q) instead of [0, Q).
func (r *NTT32) InverseLazy(in, out []uint32) {
	r.inverse(in, out, false)
}

// InverseUnscaled sets out = N·NTT^-1(in), fully reduced: Inverse without
// its N^-1, for callers that fold N^-1 into other operands (cbs's blind
// rotation keeps its NTT-domain accumulators scaled by N^-1). On the vector
// kernels (N >= 256) its last stage does one Shoup product per pair instead
// of two; elsewhere it is Inverse times N. in as for Inverse; out may alias
// in.
func (r *NTT32) InverseUnscaled(in, out []uint32) {
	if hasAVX512 && r.N > avxMinN {
		r.inverseUnscaledAVX512(in[:r.N], out[:r.N])
		return
	}
	r.inverse(in, out, true)
	n := uint32(uint64(r.N) % uint64(r.Q))
	r.MulScalar(out[:r.N], n, out[:r.N])
}

// inverse runs the Gentleman–Sande stages in the reverse order of forward,
// two at a time, with one radix-2 stage first when log2(N) is odd and N^-1
// folded into the final pair. Invariant: entries stay in [0, 2Q); a butterfly
// maps (X, Y) to (X+Y reduced to [0, 2Q), (X-Y+2Q)·W in [0, 2Q) via Shoup).
func (r *NTT32) inverse(in, out []uint32, full bool) {
	N := r.N
	in, out = in[:N], out[:N]
	if N < 16 {
		copy(out, in)
		r.inverseRadix2(out, full)
		return
	}
	if hasAVX512 && N >= avxMinN {
		r.inverseAVX512(in, out, full)
		return
	}
	r.inverseGo(in, out, full)
}

// inverseGo is the pure-Go inverse transform for N >= 16: the paired
// kernels (ntt32_pair_inv.go) where they apply, else inverseScalar.
func (r *NTT32) inverseGo(in, out []uint32, full bool) {
	if r.pairInverseOK(in, out) {
		r.inversePair(in, out, full)
		return
	}
	r.inverseScalar(in, out, full)
}

// inverseScalar is the scalar pure-Go inverse transform for N >= 16.
func (r *NTT32) inverseScalar(in, out []uint32, full bool) {
	N := r.N
	in, out = in[:N], out[:N]
	q := r.Q
	psi, psiS := r.psiInvRev[:N], r.psiInvRevShoup[:N]
	var t int
	if r.LogN%2 == 1 {
		gs2First32(in, out, psi[N/2:N], psiS[N/2:N], q)
		t = 2
	} else {
		gs4First32(in, out, psi[N/2:N], psiS[N/2:N], psi[N/4:N/2], psiS[N/4:N/2], q)
		t = 4
	}
	for ; t < N/4; t *= 4 {
		if q <= 1<<29 {
			gs4NR32(out, N/(2*t), t, psi, psiS, q, r.br)
		} else {
			gs4_32(out, N/(2*t), t, psi, psiS, q)
		}
	}
	gs4Final32(out, psi[2], psiS[2], psi[3], psiS[3], r.nInv, r.nInvShoup, r.nInvPsi, r.nInvPsiShoup, q, full)
}

// forwardRadix2_32 is the plain in-place radix-2 forward transform used for
// N < 16, where the radix-4 passes do not fit; it is also the reference the
// fast path is tested against.
func forwardRadix2_32(a, psi, psiS []uint32, q uint32, full bool) {
	N := len(a)
	q2 := 2 * q
	for m, t := 1, N/2; m < N; m, t = 2*m, t/2 {
		for i := 0; i < m; i++ {
			w, ws := psi[m+i], psiS[m+i]
			for j := 2 * i * t; j < 2*i*t+t; j++ {
				u := a[j]
				u = min(u, u-q2)
				v := a[j+t]
				tt := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
				a[j], a[j+t] = u+tt, u-tt+q2
			}
		}
	}
	for i, x := range a {
		x = min(x, x-q2)
		if full {
			x = min(x, x-q)
		}
		a[i] = x
	}
}

// inverseRadix2 is the plain in-place radix-2 inverse transform for N < 16.
func (r *NTT32) inverseRadix2(a []uint32, full bool) {
	N := len(a)
	q, q2 := r.Q, 2*r.Q
	psi, psiS := r.psiInvRev, r.psiInvRevShoup
	for m, t := N/2, 1; m >= 1; m, t = m/2, 2*t {
		for i := 0; i < m; i++ {
			w, ws := psi[m+i], psiS[m+i]
			for j := 2 * i * t; j < 2*i*t+t; j++ {
				u, v := a[j], a[j+t]
				s, d := u+v, u-v+q2
				if m == 1 { // last stage: fold in N^-1
					a[j] = r.MulShoupLazy(s, r.nInv, r.nInvShoup)
					a[j+t] = r.MulShoupLazy(d, r.nInvPsi, r.nInvPsiShoup)
					continue
				}
				a[j] = min(s, s-q2)
				a[j+t] = d*w - uint32((uint64(d)*uint64(ws))>>32)*q
			}
		}
	}
	if full {
		for i, x := range a {
			a[i] = min(x, x-q)
		}
	}
}
