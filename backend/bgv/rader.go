package bgv

import (
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// raderPlan holds the prime-independent tables of Rader's algorithm for a
// prime m with generator g of Z_m^*: n = m-1 evaluation points ζ^(g^s) and a
// cyclic convolution of length n, computed by a power-of-two cyclic NTT of
// length N (N = n when n is a power of two, else the next power of two
// >= 2n-1, with the convolution zero-padded).
type raderPlan struct {
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

// scatterInvRaw returns g^t mod m without the redirection of t = n/2.
func (p *raderPlan) scatterInvRaw(t int) uint32 {
	if t == p.n/2 {
		return uint32(p.m - 1)
	}
	return p.scatterInv[t]
}

func newRaderPlan(m int, g uint64) *raderPlan {
	n := m - 1
	bigN := n
	if n&(n-1) != 0 {
		bigN = 1 << bits.Len(uint(2*n-2))
	}
	p := &raderPlan{m: m, n: n, bigN: bigN, g: g,
		gatherFwd: make([]uint32, n), scatterInv: make([]uint32, n), dlog: make([]uint32, m)}
	gInv := invMod(g, uint64(m))
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
	return p
}

// Transform maps polynomials of Z_p[X]/Φ_m between the coefficient
// representation (a_0..a_{m-2}, a_i the coefficient of X^i) and the
// evaluation representation (b_0..b_{m-2}, b_s = a(ζ^(g^s)) mod p), for one
// prime p ≡ 1 (mod m), ζ = Zeta(), g the generator of the plan. The order of
// the evaluation points makes every Galois automorphism a cyclic rotation
// (see Automorphism). Immutable and safe for concurrent use.
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
type Transform struct {
	plan *raderPlan
	p    modulus // the RNS prime
	ntt  *ring.CyclicNTT64
	aux  bool              // ntt.Q() != p
	vec  bool              // the permutations around the convolution use the vector kernels
	ntt2 *ring.CyclicNTT64 // second auxiliary transform (two-auxiliary mode), else nil
	zeta uint64
	// Two-auxiliary mode: Q^-1 mod Q' and Q mod p, with Shoup companions,
	// and the kernels modulo Q'.
	qInv, qInvShoup        uint64
	qModP, qModPShoup      uint64
	fwdKernel2, invKernel2 *ring.CyclicKernel
	// The convolution operands, modulo the NTT prime: fwdKernel the kernel
	// ζ^(g^l), invKernel m^-1·ζ^(-g^l) (zero-padded to N if N != n).
	fwdKernel, invKernel *ring.CyclicKernel
	mInv, mInvShoup      uint64 // m^-1 mod p
}

// newTransform builds the transform for prime p. auxNTT and auxNTT2 are the
// auxiliary NTTs (primes ≡ 1 mod N) used when p itself is not NTT-friendly
// for length N.
func newTransform(plan *raderPlan, p uint64, auxNTT, auxNTT2 *ring.CyclicNTT64) (*Transform, error) {
	return newTransformVec(plan, p, auxNTT, auxNTT2, hasVec)
}

// newTransformVec is newTransform with the choice of this package's vector
// kernels (the permutations around the convolution) explicit: tests build
// both and compare them. The convolution's kernels are ring's choice.
func newTransformVec(plan *raderPlan, p uint64, auxNTT, auxNTT2 *ring.CyclicNTT64, vec bool) (*Transform, error) {
	m := uint64(plan.m)
	if (p-1)%m != 0 {
		return nil, fmt.Errorf("rader transform: prime %d is not 1 mod m = %d", p, m)
	}
	t := &Transform{plan: plan, p: newModulus(p), vec: vec}
	switch {
	case (p-1)%uint64(plan.bigN) == 0:
		ntt, err := ring.NewCyclicNTT64(plan.bigN, p)
		if err != nil {
			return nil, fmt.Errorf("rader transform mod %d: %w", p, err)
		}
		t.ntt = ntt
	case auxNTT != nil && auxFits(p, plan.n, auxNTT.Q()):
		t.ntt, t.aux = auxNTT, true
	case auxNTT != nil && auxNTT2 != nil && auxFits2(p, plan.n, auxNTT.Q(), auxNTT2.Q()):
		t.ntt, t.ntt2, t.aux = auxNTT, auxNTT2, true
		q1, q2 := auxNTT.Q(), auxNTT2.Q()
		t.qInv = invMod(q1%q2, q2)
		t.qInvShoup = shoup(t.qInv, q2)
		t.qModP = q1 % p
		t.qModPShoup = shoup(t.qModP, p)
	default:
		return nil, fmt.Errorf("rader transform: prime %d is neither 1 mod %d (=m·N) nor small enough for the auxiliary NTT primes (need n·(p-1)^2 < Q·Q')", p, m*uint64(plan.bigN))
	}
	zeta, err := ring.RootOfUnity(p, m)
	if err != nil {
		return nil, fmt.Errorf("rader transform: %w", err)
	}
	t.zeta = zeta
	t.mInv = invMod(m%p, p)
	t.mInvShoup = shoup(t.mInv, p)
	// zpow[k] = ζ^k for k < m; ζ^-e = zpow[m-e].
	zpow := make([]uint64, m)
	zpow[0] = 1
	for k := 1; k < int(m); k++ {
		zpow[k] = mulModSlow(zpow[k-1], zeta, p)
	}
	fwd := make([]uint64, plan.n)
	inv := make([]uint64, plan.n)
	for l, e := 0, uint64(1); l < plan.n; l++ {
		fwd[l] = zpow[e]
		inv[l] = mulModSlow(zpow[m-e], t.mInv, p)
		e = e * plan.g % m
	}
	t.fwdKernel, t.invKernel = t.ntt.NewKernel(t.padded(fwd)), t.ntt.NewKernel(t.padded(inv))
	if t.ntt2 != nil {
		t.fwdKernel2, t.invKernel2 = t.ntt2.NewKernel(t.padded(fwd)), t.ntt2.NewKernel(t.padded(inv))
	}
	return t, nil
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
func (t *Transform) padded(v []uint64) []uint64 {
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
func (t *Transform) Prime() uint64 { return t.p.q }

// Zeta returns the primitive m-th root of unity ζ mod p whose powers ζ^(g^s)
// are the evaluation points.
func (t *Transform) Zeta() uint64 { return t.zeta }

// Auxiliary reports whether the convolution runs modulo the auxiliary NTT prime.
func (t *Transform) Auxiliary() bool { return t.aux }

// TwoAuxiliary reports whether the convolution runs modulo both auxiliary primes.
func (t *Transform) TwoAuxiliary() bool { return t.ntt2 != nil }

// ScratchLen is the length of the scratch slice Forward and Inverse need
// (two convolution buffers in two-auxiliary mode).
func (t *Transform) ScratchLen() int {
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
func (t *Transform) convolveP(buf, scratch []uint64, fwd bool) {
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
	p := &t.p
	for i := range buf[:t.plan.n] {
		x1 := buf[i]
		r1 := x1
		if r1 >= q2 {
			r1 -= q2
		}
		d := subMod(buf2[i], r1, q2)
		h := mulShoup(d, t.qInv, t.qInvShoup, q2)
		buf[i] = addMod(p.reduce(x1), mulShoup(p.reduce(h), t.qModP, t.qModPShoup, p.q), p.q)
	}
}

// Forward maps coefficients to evaluations: out[s] = a(ζ^(g^s)) mod p. a has
// m-1 coefficients in [0, p); out may alias a. scratch has ScratchLen()
// entries. Allocates nothing.
func (t *Transform) Forward(a, out, scratch []uint64) {
	plan := t.plan
	n := plan.n
	q := t.p.q
	buf := scratch[:plan.bigN]
	a = a[:n]
	k := 0
	if t.vecPerm() {
		k = gatherSubVec(a, plan.gatherFwd, buf[:n], 0, q)
	}
	for l := k; l < n; l++ {
		buf[l] = a[plan.gatherFwd[l]]
	}
	buf[n/2] = 0
	clear(buf[n:])
	a0 := a[0]
	t.convolveP(buf, scratch, true)
	p := &t.p
	out = out[:n]
	if t.aux && t.ntt2 == nil {
		for s := range out {
			out[s] = addMod(p.reduce(buf[s]), a0, q)
		}
		return
	}
	k = 0
	if t.vecPerm() {
		k = subScalarVec(buf[:n], out, (q-a0)%q, q)
	}
	for s := k; s < n; s++ {
		out[s] = addMod(buf[s], a0, q)
	}
}

// vecPerm reports whether the permutations and scalar passes around the
// convolution run on the vector kernels: the convolution output must then
// already be reduced mod p (direct and two-auxiliary modes).
func (t *Transform) vecPerm() bool { return t.vec && (!t.aux || t.ntt2 != nil) }

// Inverse maps evaluations back to coefficients modulo Φ_m (degree < m-1):
// the interpolating polynomial of degree < m with value 0 at 1, reduced by
// X^(m-1) = -(1 + ... + X^(m-2)). b is in [0, p) and may alias out. scratch
// has ScratchLen() entries. Allocates nothing.
func (t *Transform) Inverse(b, out, scratch []uint64) {
	plan := t.plan
	n := plan.n
	p := &t.p
	q := p.q
	buf := scratch[:plan.bigN]
	b = b[:n]
	// The inverse DFT A_j = m^-1 Σ_i b_i ζ^(-ij) is again a Rader sum, over
	// ω = ζ^-1, with input index g^-l, i.e. evaluation slot -l mod n.
	var sum uint64
	k, ks := 0, 0
	if t.vecPerm() {
		k = gatherSubVec(b, plan.revIdx, buf[:n], 0, q)
		sum, ks = sumModVec(b, q)
	}
	for l := k; l < n; l++ {
		buf[l] = b[plan.revIdx[l]]
	}
	for _, x := range b[ks:] {
		sum = addMod(sum, x, q)
	}
	clear(buf[n:])
	t.convolveP(buf, scratch, false)
	if t.aux && t.ntt2 == nil {
		for i := range buf[:n] {
			buf[i] = p.reduce(buf[i])
		}
	}
	// buf[t] = A_(g^t); A_(m-1) = buf[n/2] is folded into the others by the
	// reduction modulo Φ_m: out[j] = A_j - A_(m-1) for j = g^t.
	top := buf[n/2]
	out = out[:n]
	k = 0
	if t.vecPerm() {
		k = gatherSubVec(buf, plan.gatherInv, out, top, q)
	}
	for j := k; j < n; j++ {
		out[j] = subMod(buf[plan.gatherInv[j]], top, q)
	}
	// gatherInv[0] is a placeholder; the constant coefficient is
	// A_0 - A_(m-1), A_0 = m^-1 Σ_i b_i.
	out[0] = subMod(mulShoup(sum, t.mInv, t.mInvShoup, q), top, q)
}

// Rader order. Key switching and modulus switching only convert
// coefficient rows between bases, coefficient by coefficient, so any fixed
// order of the coefficients serves them. The order the convolution works in
// saves both permutations: slot t holds the coefficient of X^(g^t) for
// t != n/2, and slot n/2 (g^(n/2) = -1, i.e. X^(m-1), folded away modulo
// Φ_m) holds the constant coefficient. inverseRader and forwardRader map
// between evaluations and this order with a reversal (cheap, contiguous) in
// place of the gathers of Inverse and Forward.

// reverse sets dst[l] = src[-l mod n], n = len(dst).
func reverse(src, dst []uint64) {
	if reverseVec(src, dst) {
		return
	}
	n := len(dst)
	dst[0] = src[0]
	for l := 1; l < n; l++ {
		dst[l] = src[n-l]
	}
}

// inverseRader is Inverse with the coefficients in Rader order. b may alias
// out. Allocates nothing.
func (t *Transform) inverseRader(b, out, scratch []uint64) {
	plan := t.plan
	n := plan.n
	p := &t.p
	q := p.q
	buf := scratch[:plan.bigN]
	b = b[:n]
	reverse(b, buf[:n])
	var sum uint64
	ks := 0
	if t.vecPerm() {
		sum, ks = sumModVec(b, q)
	}
	for _, x := range b[ks:] {
		sum = addMod(sum, x, q)
	}
	clear(buf[n:])
	t.convolveP(buf, scratch, false)
	if t.aux && t.ntt2 == nil {
		for i := range buf[:n] {
			buf[i] = p.reduce(buf[i])
		}
	}
	top := buf[n/2]
	out = out[:n]
	k := 0
	if t.vecPerm() {
		k = subScalarVec(buf[:n], out, top, q)
	}
	for i := k; i < n; i++ {
		out[i] = subMod(buf[i], top, q)
	}
	out[n/2] = subMod(mulShoup(sum, t.mInv, t.mInvShoup, q), top, q)
}

// forwardRader is Forward with the coefficients a in Rader order. out may
// alias a. Allocates nothing.
func (t *Transform) forwardRader(a, out, scratch []uint64) {
	plan := t.plan
	n := plan.n
	q := t.p.q
	buf := scratch[:plan.bigN]
	a = a[:n]
	a0 := a[n/2]
	reverse(a, buf[:n])
	buf[n/2] = 0
	clear(buf[n:])
	t.convolveP(buf, scratch, true)
	p := &t.p
	out = out[:n]
	if t.aux && t.ntt2 == nil {
		for s := range out {
			out[s] = addMod(p.reduce(buf[s]), a0, q)
		}
		return
	}
	k := 0
	if t.vecPerm() {
		k = subScalarVec(buf[:n], out, (q-a0)%q, q)
	}
	for s := k; s < n; s++ {
		out[s] = addMod(buf[s], a0, q)
	}
}
