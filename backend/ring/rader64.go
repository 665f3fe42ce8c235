package ring

import (
	"fmt"
	"math/bits"
)

// RaderPlan holds the prime-independent tables of Rader's algorithm for an
// odd prime m with generator g of Z_m^*: n = m-1 evaluation points ζ^(g^s)
// and a cyclic convolution of length n, computed by a power-of-two cyclic
// NTT of length N (N = n when n is a power of two, else the next power of
// two >= 2n-1, with the convolution zero-padded). Immutable; shared by the
// RaderNTTs of all primes.
type RaderPlan struct {
	m, n, bigN int
	g          uint64
	// gatherFwd[l] = g^-l mod m: the coefficient read into convolution slot l
	// by the forward transform. The entry for l = n/2 (g^(n/2) = -1, i.e. the
	// coefficient of X^(m-1), which is zero) is redirected to 0 and its slot
	// cleared separately.
	gatherFwd []uint32
	// scatterInv[t] = g^t mod m: the coefficient position written from
	// convolution output t by the inverse transform; the entry for t = n/2
	// (position m-1, folded away modulo Φ_m) is redirected to 0.
	scatterInv []uint32
	// dlog[t] = log_g t for t in [1, m).
	dlog []uint32
	// revIdx[l] = -l mod n: the evaluation slot the inverse transform reads
	// into convolution slot l.
	revIdx []uint32
	// gatherInv[j] = log_g j for j in [1, n): the convolution output that
	// becomes coefficient j (entry 0 is a placeholder).
	gatherInv []uint32
}

// Pow returns g^t mod m for t in [0, m-1).
func (p *RaderPlan) Pow(t int) int {
	if t == p.n/2 {
		return p.m - 1
	}
	return int(p.scatterInv[t])
}

// CoeffIndex returns the exponent of the coefficient that slot s holds in
// Rader order (ForwardRaderOrder, InverseRaderOrder): g^s mod m, and 0 (the
// constant) for s = (m-1)/2.
func (p *RaderPlan) CoeffIndex(s int) int { return int(p.scatterInv[s]) }

// Log returns log_g t, in [0, m-1), for t in [1, m).
func (p *RaderPlan) Log(t int) int { return int(p.dlog[t]) }

// M returns the prime m.
func (p *RaderPlan) M() int { return p.m }

// ConvLen returns N, the length of the cyclic NTTs the convolution runs on
// (auxiliary NTTs must have this length).
func (p *RaderPlan) ConvLen() int { return p.bigN }

// Generator returns g.
func (p *RaderPlan) Generator() uint64 { return p.g }

// NewRaderPlan returns the plan for the odd prime m and a generator g of
// Z_m^* (SmallestGenerator(m) is the usual choice; the evaluation order
// depends on it).
func NewRaderPlan(m int, g uint64) (*RaderPlan, error) {
	if m < 3 || m >= 1<<31 || !IsPrime(uint64(m)) {
		return nil, fmt.Errorf("ring: Rader plan: m = %d is not an odd prime below 2^31", m)
	}
	if g%uint64(m) == 0 || MultiplicativeOrder(g, uint64(m)) != m-1 {
		return nil, fmt.Errorf("ring: Rader plan: %d does not generate Z_%d^*", g, m)
	}
	n := m - 1
	bigN := n
	if n&(n-1) != 0 {
		bigN = 1 << bits.Len(uint(2*n-2))
	}
	p := &RaderPlan{m: m, n: n, bigN: bigN, g: g,
		gatherFwd: make([]uint32, n), scatterInv: make([]uint32, n), dlog: make([]uint32, m)}
	gInv := InvModPrime(g%uint64(m), uint64(m))
	x, y := uint64(1), uint64(1)
	for l := 0; l < n; l++ {
		p.gatherFwd[l] = uint32(x)
		p.scatterInv[l] = uint32(y)
		p.dlog[y] = uint32(l)
		x = x * gInv % uint64(m)
		y = y * g % uint64(m)
	}
	p.gatherFwd[n/2] = 0
	p.scatterInv[n/2] = 0
	p.revIdx, p.gatherInv = make([]uint32, n), make([]uint32, n)
	for l := 1; l < n; l++ {
		p.revIdx[l] = uint32(n - l)
		p.gatherInv[l] = p.dlog[l]
	}
	return p, nil
}

// RaderNTT maps polynomials of Z_p[X]/Φ_m between the coefficient
// representation (a_0..a_{m-2}, a_i the coefficient of X^i) and the
// evaluation representation (b_0..b_{m-2}, b_s = a(ζ^(g^s)) mod p), for one
// prime p ≡ 1 (mod m), ζ = Zeta(), g the generator of the plan. The order of
// the evaluation points makes every Galois automorphism a cyclic rotation
// (κ_t: X -> X^t with t = g^e rotates the evaluations by e). Immutable and
// safe for concurrent use; callers own the scratch.
//
// Rader's algorithm: with x_i the input indexed by i ∈ Z_m^*, the sums
// y_k = Σ_i x_i ω^(ik) at k = g^s equal Σ_l x_(g^-l) ω^(g^(s-l)), a cyclic
// convolution of length n = m-1 with the fixed kernel ω^(g^l), whose NTT is
// precomputed. The convolution runs modulo an NTT prime Q:
//   - direct mode, Q = p, when p ≡ 1 (mod lcm(m, N)): residues stay mod p;
//   - auxiliary mode, when p ≡ 1 (mod m) only and n·(p-1)^2 < Q for the
//     auxiliary prime Q ≡ 1 (mod N): the convolution of residues in [0, p) is
//     then computed exactly over the integers and reduced mod p afterwards.
//     This admits small primes (about 20 bits), which are scarce in the
//     progression 1 mod m·N.
//   - two-auxiliary mode, when n·(p-1)^2 < Q·Q' for a second auxiliary prime
//     Q': the same exact convolution, computed modulo Q and Q' and combined
//     by CRT (Garner) before the reduction mod p. It admits primes up to
//     about 2^53 (at m = 65537 the 23-26-bit primes the chain needs, none
//     of which is ≡ 1 mod m·N) for twice the NTT work.
type RaderNTT struct {
	plan *RaderPlan
	p    Modulus64 // the RNS prime
	ntt  *CyclicNTT64
	aux  bool         // ntt.Q() != p
	vec  bool         // the permutations around the convolution use the vector kernels
	ntt2 *CyclicNTT64 // second auxiliary transform (two-auxiliary mode), else nil
	zeta uint64
	// Two-auxiliary mode: Q^-1 mod Q' and Q mod p, with Shoup companions,
	// and the kernels modulo Q'.
	qInv, qInvShoup        uint64
	qModP, qModPShoup      uint64
	fwdKernel2, invKernel2 *CyclicKernel
	// The convolution operands, modulo the NTT prime: fwdKernel the kernel
	// ζ^(g^l), invKernel m^-1·ζ^(-g^l) (zero-padded to N if N != n).
	fwdKernel, invKernel *CyclicKernel
	mInv, mInvShoup      uint64 // m^-1 mod p
}

// NewRaderNTT builds the transform for the prime p ≡ 1 (mod m), p < 2^61.
// auxNTT and auxNTT2 (length plan.ConvLen(), may be nil) are the auxiliary
// NTTs used when p itself is not ≡ 1 mod m·N; they can be shared by many
// RaderNTTs. The permutations around the convolution run on AVX-512
// kernels where the CPU has them.
func NewRaderNTT(plan *RaderPlan, p uint64, auxNTT, auxNTT2 *CyclicNTT64) (*RaderNTT, error) {
	return newRaderNTT(plan, p, auxNTT, auxNTT2, hasCyclicVec)
}

// newRaderNTT is NewRaderNTT with the choice of the vector permutation
// kernels explicit: tests build both and compare them. The convolution's
// kernels are CyclicNTT64's choice.
func newRaderNTT(plan *RaderPlan, p uint64, auxNTT, auxNTT2 *CyclicNTT64, vec bool) (*RaderNTT, error) {
	m := uint64(plan.m)
	switch {
	case p >= MaxQ64:
		return nil, fmt.Errorf("ring: Rader transform: prime %d is not below 2^61", p)
	case (p-1)%m != 0:
		return nil, fmt.Errorf("ring: Rader transform: prime %d is not 1 mod m = %d", p, m)
	case !IsPrime(p):
		return nil, fmt.Errorf("ring: Rader transform: %d is not prime", p)
	}
	for _, a := range []*CyclicNTT64{auxNTT, auxNTT2} {
		if a != nil && a.N() != plan.bigN {
			return nil, fmt.Errorf("ring: Rader transform: auxiliary NTT length %d, plan needs %d", a.N(), plan.bigN)
		}
	}
	pm, err := NewModulus64(p)
	if err != nil {
		return nil, fmt.Errorf("ring: Rader transform: %w", err)
	}
	t := &RaderNTT{plan: plan, p: pm, vec: vec}
	switch {
	case (p-1)%uint64(plan.bigN) == 0:
		ntt, err := NewCyclicNTT64(plan.bigN, p)
		if err != nil {
			return nil, fmt.Errorf("ring: Rader transform mod %d: %w", p, err)
		}
		t.ntt = ntt
	case auxNTT != nil && auxFits(p, plan.n, auxNTT.Q()):
		t.ntt, t.aux = auxNTT, true
	case auxNTT != nil && auxNTT2 != nil && auxFits2(p, plan.n, auxNTT.Q(), auxNTT2.Q()):
		t.ntt, t.ntt2, t.aux = auxNTT, auxNTT2, true
		q1, q2 := auxNTT.Q(), auxNTT2.Q()
		t.qInv = InvModPrime(q1%q2, q2)
		t.qInvShoup = ShoupConst64(t.qInv, q2)
		t.qModP = q1 % p
		t.qModPShoup = ShoupConst64(t.qModP, p)
	default:
		return nil, fmt.Errorf("ring: Rader transform: prime %d is neither 1 mod %d (=m·N) nor small enough for the auxiliary NTT primes (need n·(p-1)^2 < Q·Q')", p, m*uint64(plan.bigN))
	}
	zeta, err := RootOfUnity(p, m)
	if err != nil {
		return nil, fmt.Errorf("ring: Rader transform: %w", err)
	}
	t.zeta = zeta
	t.mInv = InvModPrime(m%p, p)
	t.mInvShoup = ShoupConst64(t.mInv, p)
	// zpow[k] = ζ^k for k < m; ζ^-e = zpow[m-e].
	zpow := make([]uint64, m)
	zpow[0] = 1
	for k := 1; k < int(m); k++ {
		zpow[k] = MulMod64(zpow[k-1], zeta, p)
	}
	fwd := make([]uint64, plan.n)
	inv := make([]uint64, plan.n)
	for l, e := 0, uint64(1); l < plan.n; l++ {
		fwd[l] = zpow[e]
		inv[l] = MulMod64(zpow[m-e], t.mInv, p)
		e = e * plan.g % m
	}
	t.fwdKernel, t.invKernel = t.ntt.NewKernel(t.padded(fwd)), t.ntt.NewKernel(t.padded(inv))
	if t.ntt2 != nil {
		t.fwdKernel2, t.invKernel2 = t.ntt2.NewKernel(t.padded(fwd)), t.ntt2.NewKernel(t.padded(inv))
	}
	return t, nil
}

// FitsAuxiliary reports whether every length-(m-1) convolution of residues
// mod p (any bound p, not only a prime) lies below q1 (q2 = 0: one
// auxiliary prime) or below q1·q2 (two): the condition under which
// NewRaderNTT may use the auxiliary modes for p.
func (pl *RaderPlan) FitsAuxiliary(p, q1, q2 uint64) bool {
	if q2 == 0 {
		return auxFits(p, pl.n, q1)
	}
	return auxFits2(p, pl.n, q1, q2)
}

// auxFits2 reports whether every length-n convolution of residues mod p is
// below Q·Q'.
func auxFits2(p uint64, n int, q1, q2 uint64) bool {
	hi, lo := bits.Mul64(p-1, p-1)
	h1, l1 := bits.Mul64(lo, uint64(n))
	h2, l2 := bits.Mul64(hi, uint64(n))
	if h2 != 0 {
		return false
	}
	mid, c := bits.Add64(h1, l2, 0)
	if c != 0 {
		return false
	}
	qh, ql := bits.Mul64(q1, q2)
	return mid < qh || (mid == qh && l1 < ql)
}

// auxFits reports whether every length-n convolution of residues mod p is
// below Q, so that it is exact when computed mod Q.
func auxFits(p uint64, n int, Q uint64) bool {
	hi, lo := bits.Mul64(p-1, p-1)
	hi2, lo2 := bits.Mul64(lo, uint64(n))
	hi = hi*uint64(n) + hi2
	return hi == 0 && lo2 < Q
}

// padded returns the length-n cyclic kernel v padded for a length-N cyclic
// convolution when N != n: K[j] = v_j (j < n) and K[N-j] = v_(n-j)
// (1 <= j < n), so that for s < n the length-N cyclic convolution with a
// zero-padded input equals the length-n one.
func (t *RaderNTT) padded(v []uint64) []uint64 {
	bigN, n := t.plan.bigN, t.plan.n
	k := make([]uint64, bigN)
	copy(k, v)
	if bigN != n {
		for j := 1; j < n; j++ {
			k[bigN-j] = v[n-j]
		}
	}
	return k
}

// Prime returns the RNS prime p of the transform.
func (t *RaderNTT) Prime() uint64 { return t.p.Q }

// Plan returns the transform's plan.
func (t *RaderNTT) Plan() *RaderPlan { return t.plan }

// Zeta returns the primitive m-th root of unity ζ mod p whose powers ζ^(g^s)
// are the evaluation points.
func (t *RaderNTT) Zeta() uint64 { return t.zeta }

// Auxiliary reports whether the convolution runs modulo the auxiliary NTT prime.
func (t *RaderNTT) Auxiliary() bool { return t.aux }

// TwoAuxiliary reports whether the convolution runs modulo both auxiliary primes.
func (t *RaderNTT) TwoAuxiliary() bool { return t.ntt2 != nil }

// ScratchLen is the length of the scratch slice Forward and Inverse need
// (two convolution buffers in two-auxiliary mode).
func (t *RaderNTT) ScratchLen() int {
	if t.ntt2 != nil {
		return 2 * t.plan.bigN
	}
	return t.plan.bigN
}

// convolveP replaces the first n entries of buf (natural order, [0, p),
// zero up to N) by the cyclic convolution with the forward (fwd) or inverse
// kernel: reduced mod p in direct and two-auxiliary mode, in [0, Q) in
// auxiliary mode (the caller reduces). scratch holds buf's copy in
// two-auxiliary mode.
func (t *RaderNTT) convolveP(buf, scratch []uint64, fwd bool) {
	k, k2 := t.invKernel, t.invKernel2
	if fwd {
		k, k2 = t.fwdKernel, t.fwdKernel2
	}
	if t.ntt2 == nil {
		t.ntt.Convolve(buf, k)
		return
	}
	buf2 := scratch[t.plan.bigN : 2*t.plan.bigN]
	copy(buf2, buf)
	t.ntt.Convolve(buf, k)
	t.ntt2.Convolve(buf2, k2)
	// Garner: x = x1 + Q·((x2 - x1)·Q^-1 mod Q'), then x mod p.
	q2 := t.ntt2.Q()
	p := t.p
	for i := range buf[:t.plan.n] {
		x1 := buf[i]
		r1 := x1
		if r1 >= q2 {
			r1 -= q2
		}
		d := SubMod64(buf2[i], r1, q2)
		h := MulShoup64(d, t.qInv, t.qInvShoup, q2)
		buf[i] = AddMod64(p.Reduce(x1), MulShoup64(p.Reduce(h), t.qModP, t.qModPShoup, p.Q), p.Q)
	}
}

// Forward maps coefficients to evaluations: out[s] = a(ζ^(g^s)) mod p. a has
// m-1 coefficients in [0, p); out may alias a. scratch has ScratchLen()
// entries. Allocates nothing.
func (t *RaderNTT) Forward(a, out, scratch []uint64) {
	plan := t.plan
	n := plan.n
	q := t.p.Q
	buf := scratch[:plan.bigN]
	a = a[:n]
	k := 0
	if t.vecPerm() {
		k = raderGatherSubVec(a, plan.gatherFwd, buf[:n], 0, q)
	}
	for l := k; l < n; l++ {
		buf[l] = a[plan.gatherFwd[l]]
	}
	t.forwardFinish(buf, scratch, out, a[0])
}

// forwardFinish runs the forward convolution on buf (its first n entries
// gathered; the entry n/2 is cleared here) and sets out[s] = buf[s] + a0,
// a0 the constant coefficient: y_k = a_0 + Σ_(i≥1) a_i ζ^(ik).
func (t *RaderNTT) forwardFinish(buf, scratch, out []uint64, a0 uint64) {
	n := t.plan.n
	q := t.p.Q
	buf[n/2] = 0
	clear(buf[n:])
	t.convolveP(buf, scratch, true)
	out = out[:n]
	if t.aux && t.ntt2 == nil {
		p := t.p
		for s := range out {
			out[s] = AddMod64(p.Reduce(buf[s]), a0, q)
		}
		return
	}
	k := 0
	if t.vecPerm() {
		k = raderSubScalarVec(buf[:n], out, (q-a0)%q, q)
	}
	for s := k; s < n; s++ {
		out[s] = AddMod64(buf[s], a0, q)
	}
}

// vecPerm reports whether the permutations and scalar passes around the
// convolution run on the vector kernels: the convolution output must then
// already be reduced mod p (direct and two-auxiliary modes).
func (t *RaderNTT) vecPerm() bool { return t.vec && (!t.aux || t.ntt2 != nil) }

// Inverse maps evaluations back to coefficients modulo Φ_m (degree < m-1):
// the interpolating polynomial of degree < m with value 0 at 1, reduced by
// X^(m-1) = -(1 + ... + X^(m-2)). b is in [0, p) and may alias out. scratch
// has ScratchLen() entries. Allocates nothing.
func (t *RaderNTT) Inverse(b, out, scratch []uint64) {
	plan := t.plan
	n := plan.n
	q := t.p.Q
	buf := scratch[:plan.bigN]
	b = b[:n]
	// The inverse DFT A_j = m^-1 Σ_i b_i ζ^(-ij) is again a Rader sum, over
	// ω = ζ^-1, with input index g^-l, i.e. evaluation slot -l mod n.
	k := 0
	if t.vecPerm() {
		k = raderGatherSubVec(b, plan.revIdx, buf[:n], 0, q)
	}
	for l := k; l < n; l++ {
		buf[l] = b[plan.revIdx[l]]
	}
	a0, top := t.inverseConvolve(b, buf, scratch)
	// buf[t] = A_(g^t); A_(m-1) = buf[n/2] is folded into the others by the
	// reduction modulo Φ_m: out[j] = A_j - A_(m-1) for j = g^t.
	out = out[:n]
	k = 0
	if t.vecPerm() {
		k = raderGatherSubVec(buf, plan.gatherInv, out, top, q)
	}
	for j := k; j < n; j++ {
		out[j] = SubMod64(buf[plan.gatherInv[j]], top, q)
	}
	// gatherInv[0] is a placeholder.
	out[0] = a0
}

// inverseConvolve runs the inverse convolution on buf (its first n entries
// gathered from b) and returns the constant coefficient A_0 - A_(m-1), with
// A_0 = m^-1 Σ_i b_i, and top = A_(m-1) = buf[n/2]. buf ends reduced mod p.
func (t *RaderNTT) inverseConvolve(b, buf, scratch []uint64) (a0, top uint64) {
	n := t.plan.n
	p := t.p
	q := p.Q
	var sum uint64
	ks := 0
	if t.vecPerm() {
		sum, ks = raderSumModVec(b, q)
	}
	for _, x := range b[ks:] {
		sum = AddMod64(sum, x, q)
	}
	clear(buf[n:])
	t.convolveP(buf, scratch, false)
	if t.aux && t.ntt2 == nil {
		for i := range buf[:n] {
			buf[i] = p.Reduce(buf[i])
		}
	}
	top = buf[n/2]
	return SubMod64(MulShoup64(sum, t.mInv, t.mInvShoup, q), top, q), top
}

// Rader order. Key switching and modulus switching only convert
// coefficient rows between bases, coefficient by coefficient, so any fixed
// order of the coefficients serves them. The order the convolution works in
// saves both permutations: slot t holds the coefficient of X^(g^t) for
// t != n/2, and slot n/2 (g^(n/2) = -1, i.e. X^(m-1), folded away modulo
// Φ_m) holds the constant coefficient (RaderPlan.CoeffIndex). InverseRaderOrder
// and ForwardRaderOrder map between evaluations and this order with a
// reversal (cheap, contiguous) in place of the gathers of Inverse and
// Forward.

// reverse sets dst[l] = src[-l mod n], n = len(dst).
func (t *RaderNTT) reverse(src, dst []uint64) {
	if t.vec && raderReverseVec(src, dst) {
		return
	}
	n := len(dst)
	dst[0] = src[0]
	for l := 1; l < n; l++ {
		dst[l] = src[n-l]
	}
}

// InverseRaderOrder is Inverse with the coefficients in Rader order. b may
// alias out. Allocates nothing.
func (t *RaderNTT) InverseRaderOrder(b, out, scratch []uint64) {
	n := t.plan.n
	q := t.p.Q
	buf := scratch[:t.plan.bigN]
	b = b[:n]
	t.reverse(b, buf[:n])
	a0, top := t.inverseConvolve(b, buf, scratch)
	out = out[:n]
	k := 0
	if t.vecPerm() {
		k = raderSubScalarVec(buf[:n], out, top, q)
	}
	for i := k; i < n; i++ {
		out[i] = SubMod64(buf[i], top, q)
	}
	out[n/2] = a0
}

// ForwardRaderOrder is Forward with the coefficients a in Rader order. out
// may alias a. Allocates nothing.
func (t *RaderNTT) ForwardRaderOrder(a, out, scratch []uint64) {
	n := t.plan.n
	buf := scratch[:t.plan.bigN]
	a = a[:n]
	a0 := a[n/2]
	t.reverse(a, buf[:n])
	t.forwardFinish(buf, scratch, out, a0)
}
