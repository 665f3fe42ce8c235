package cbs

import (
	"errors"
	"math/bits"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Evaluator runs circuit bootstrapping and vertical packing with one
// evaluation key. It is immutable after NewEvaluator and safe for
// concurrent use; every call takes the caller's Scratch (one per worker).
type Evaluator struct {
	p     Params
	r     *ring.RNS2
	ek    *EvaluationKey
	f     ring.Poly2   // CBS test polynomial (coefficient domain)
	fInv  ring.Poly2   // N^-1·f, the blind rotation's start (see blindRotateScaled)
	mono  []ring.Poly2 // mono[k] = N^-1·NTT(X^k - 1), k in [0, 2N), in Montgomery form (see blindRotateScaled)
	nInv  uint64       // N^-1 mod Q
	halfG []uint64     // g_j/2 of the CBS gadget
	// The post-rotation part keeps the B halves in the NTT domain (see
	// finishRGSW): autIdx[k-1] is the slot permutation of X -> X^(2^k+1),
	// levelMono[j] = NTT(X^{-jW}), halfGNTT[j] = g_j/2 in every slot (the
	// NTT of the constant g_j/2).
	autIdx    [][]uint32
	levelMono []ring.Poly2
	halfGNTT  []ring.Poly2
}

// NewEvaluator precomputes the test polynomial and the monomial table
// (2N NTT-domain polynomials: 64 MB at N = 2048) for ek.
func NewEvaluator(ek *EvaluationKey) (*Evaluator, error) {
	if ek == nil || !ek.params.valid() {
		return nil, errors.New("cbs: NewEvaluator: nil or invalid evaluation key")
	}
	p := ek.params
	r := p.ring
	ev := &Evaluator{p: p, r: r, ek: ek}
	g := p.lit.CBS
	ev.halfG = make([]uint64, g.Digits)
	for j := range ev.halfG {
		ev.halfG[j] = (uint64(1) << uint(g.Drop+j*g.LogB)) / 2
	}
	ev.f = buildCBSTestPoly(p)
	inv, ok := ring.InvMod(uint64(p.ringN)%p.q, p.q)
	if !ok {
		return nil, errors.New("cbs: internal error: N not invertible mod Q")
	}
	ev.nInv = inv
	ev.fInv = r.NewPoly()
	r.MulScalar(ev.f, inv, ev.fInv)
	ev.autIdx = make([][]uint32, p.lit.LogN)
	for k := range ev.autIdx {
		ev.autIdx[k] = ring.AutomorphismNTTIndex(p.ringN, uint64(1)<<uint(k+1)+1)
	}
	ev.levelMono = make([]ring.Poly2, g.Digits)
	ev.halfGNTT = make([]ring.Poly2, g.Digits)
	x := make([]int64, p.ringN)
	for j := range ev.levelMono {
		// X^{-jW} = -X^{N-jW} (jW < N).
		clear(x)
		if c := j * p.window; c == 0 {
			x[0] = 1
		} else {
			x[p.ringN-c] = -1
		}
		ev.levelMono[j] = r.NewPoly()
		r.SetCentered(x, ev.levelMono[j])
		r.Forward(ev.levelMono[j], ev.levelMono[j])
		ev.halfGNTT[j] = r.NewPoly()
		r.AddScalarConst(ev.halfGNTT[j], ev.halfG[j], ev.halfGNTT[j])
		r.Forward(ev.halfGNTT[j], ev.halfGNTT[j])
	}
	ev.mono = make([]ring.Poly2, p.ringM)
	one := make([]int64, p.ringN)
	for k := 0; k < p.ringM; k++ {
		for i := range one {
			one[i] = 0
		}
		one[0] = -1
		if k < p.ringN {
			one[k]++
		} else {
			one[k-p.ringN]--
		}
		ev.mono[k] = r.NewPoly()
		r.SetCentered(one, ev.mono[k])
		r.Forward(ev.mono[k], ev.mono[k])
		r.MulScalar(ev.mono[k], inv, ev.mono[k])
		r.MontgomeryForm(ev.mono[k], ev.mono[k]) // as DotRowsMono2 takes it
	}
	return ev, nil
}

// Params returns the evaluator's parameter set.
func (ev *Evaluator) Params() Params { return ev.p }

// buildCBSTestPoly returns the test polynomial of circuit bootstrapping:
// level j owns the window [C_j - h, C_j + h) around C_j = j·W (W = N/ℓ_c,
// h = W/2), holding -g_j/2, extended negacyclically (f_{c} = -f_{c+N} for
// c < 0). After the rotation by X^{-φ}, φ = b·N + e with |e| < h,
// coefficient C_j is (-1)^{b+1}·g_j/2, and adding g_j/2 gives b·g_j.
func buildCBSTestPoly(p Params) ring.Poly2 {
	g := p.lit.CBS
	v := make([]int64, p.ringN)
	for j := 0; j < g.Digits; j++ {
		val := -int64((uint64(1) << uint(g.Drop+j*g.LogB)) / 2)
		c0 := j * p.window
		for e := -p.half; e < p.half; e++ {
			c := c0 + e
			if c < 0 {
				v[c+p.ringN] = -val
			} else {
				v[c] = val
			}
		}
	}
	f := p.ring.NewPoly()
	p.ring.SetCentered(v, f)
	return f
}

// Scratch is one worker's working memory for the Evaluator's calls.
type Scratch struct {
	lit    ParamsLiteral // the set it was sized for
	lwe    []uint64      // modswitched wide bit (N + 1 values mod Q_ks)
	ksAcc  []uint64      // key-switch accumulator, 4 lanes per word
	ksOffs []uint64      // key-switch rows to add (keySwitchLWEBatch)
	sink   uint64        // keeps the key switch's touch-ahead loads alive
	alpha  []int32       // rounded LWE ciphertext mod 2N (n + 1)
	accB   ring.Poly2
	accA   ring.Poly2
	cB, cA ring.Poly2 // coefficient-domain copies
	pB, pA ring.Poly2
	tB, tA ring.Poly2 // trace state
	uB, uA ring.Poly2
	dig    []ring.Poly2
	cen    []int64 // CRT buffer (N)
	cen2   []int64
	tabs   []ring.Poly2 // vertical packing test polynomials
	tabA   []ring.Poly2
	tabVal []int64
	// self is the batch of one this Scratch forms (CBS runs the batched
	// blind rotation on it; a field, so that no call allocates a slice).
	self [1]*Scratch
	// pair holds the two accumulators of a DotRowsMono2Pair call in
	// blindRotateScaled (a field, so that taking their address allocates
	// nothing).
	pair [2]ring.Mono2Acc
}

// NewScratch allocates a Scratch for p.
func NewScratch(p Params) *Scratch {
	r := p.ring
	sc := &Scratch{
		lit:    p.lit,
		lwe:    make([]uint64, p.ringN+1),
		ksAcc:  make([]uint64, ksWidth(p.lit.LWEDim)),
		ksOffs: make([]uint64, p.ringN*p.digKS),
		alpha:  make([]int32, p.lit.LWEDim+1),
		cen:    make([]int64, p.ringN),
		cen2:   make([]int64, p.ringN),
		tabVal: make([]int64, p.ringN),
	}
	sc.self[0] = sc
	for _, q := range []*ring.Poly2{&sc.accB, &sc.accA, &sc.cB, &sc.cA, &sc.pB, &sc.pA, &sc.tB, &sc.tA, &sc.uB, &sc.uA} {
		*q = r.NewPoly()
	}
	nd := 2 * maxInt(p.lit.BR.Digits, maxInt(p.lit.Trace.Digits, p.lit.CBS.Digits))
	sc.dig = make([]ring.Poly2, nd)
	for i := range sc.dig {
		sc.dig[i] = r.NewPoly()
	}
	return sc
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// NewRGSW returns an RGSW ciphertext buffer for the CBS output.
func (ev *Evaluator) NewRGSW() *RGSW { return newRGSW(ev.r, ev.p.lit.CBS.Digits) }

func (ev *Evaluator) checkScratch(sc *Scratch) error {
	if sc == nil || sc.lit != ev.p.lit {
		return errors.New("cbs: scratch of another parameter set (use NewScratch(ev.Params()))")
	}
	return nil
}

func (ev *Evaluator) checkRGSW(g *RGSW) error {
	l := 2 * ev.p.lit.CBS.Digits
	bad := g == nil || len(g.B) != l || len(g.A) != l
	for j := 0; !bad && j < l; j++ {
		for _, q := range [2]ring.Poly2{g.B[j], g.A[j]} {
			bad = bad || len(q[0]) != ev.p.ringN || len(q[1]) != ev.p.ringN
		}
	}
	if bad {
		return errors.New("cbs: RGSW ciphertext of another parameter set (use Evaluator.NewRGSW)")
	}
	return nil
}

// CBS circuit-bootstraps in into out = RGSW(b) under z with the CBS gadget:
// mod switch Q -> Q_ks, LWE key switch z -> s, rounding to 2N, GINX blind
// rotation of the windowed test polynomial, then per level j: rotation by
// X^{-C_j}, scaling by N^-1, homomorphic trace (only the constant
// coefficient survives), + g_j/2, and the scheme switch to the z-row.
// out (from NewRGSW) is written in the NTT domain; in is not modified.
func (ev *Evaluator) CBS(in *WideBit, out *RGSW, sc *Scratch) error {
	if err := checkWide(ev.p, in); err != nil {
		return err
	}
	if err := ev.checkScratch(sc); err != nil {
		return err
	}
	if err := ev.checkRGSW(out); err != nil {
		return err
	}
	if ev.ek.ks == nil {
		return errors.New("cbs: CBS needs the LWE key switch z -> s, which a gate-mode evaluation key (GenGateEvaluationKey) does not hold; use CBSFromLWE")
	}
	ev.toSmallLWE(in, sc)
	ev.rotateToRGSW(out, sc)
	return nil
}

// rotateToRGSW runs the circuit bootstrap from the rounded LWE sample in
// sc.alpha (under s, mod 2N) on: blind rotation, trace, scheme switch,
// writing RGSW(b) into out (NTT domain). CBS and CBSFromLWE share it.
func (ev *Evaluator) rotateToRGSW(out *RGSW, sc *Scratch) {
	ev.blindRotateScaled(sc.self[:])
	ev.finishRGSW(out, sc)
}

// finishRGSW turns the blind-rotated accumulator, held as N^-1·ACC in
// sc.accB, sc.accA (NTT domain, as blindRotateScaled leaves it), into
// RGSW(b) in out: trace, + g_j/2 and scheme switch per level. The trace
// wants N^-1·ACC (it multiplies the constant coefficient by N), so the
// scaling comes for free: no multiply here and no unscaling after the
// rotation.
//
// Only the decompositions need the coefficient domain, so the ciphertexts
// stay in the NTT domain throughout: X^{-jW} becomes a slot-wise product,
// τ a slot permutation (no signs), + g_j/2 an add to every slot; each trace
// step transforms only τ(a) back (one inverse transform where the
// coefficient-domain trace took two, plus a signed coefficient
// permutation), the key switch's output needs no transform and the rows
// need none either (per CBS at ℓ_c = 2, against the coefficient-domain
// sequence: 12 inverse and 2 forward transforms fewer, 24 signed
// permutations replaced by plain ones). All of it is exact mod Q on fully
// reduced values, so out is bit for bit what the coefficient-domain
// sequence gives (TestFinishRGSWExact).
func (ev *Evaluator) finishRGSW(out *RGSW, sc *Scratch) {
	r := ev.r
	copyPoly(sc.accB, sc.tB)
	copyPoly(sc.accA, sc.tA)
	l := ev.p.lit.CBS.Digits
	// The trace steps with automorphisms 2^k + 1, k > log2 ℓ_c, keep every
	// multiple of W = N/ℓ_c when ℓ_c is a power of two, and they commute
	// with X^{-jW}; so they run once for all levels (on N^-1·ACC) and only
	// the last log2 ℓ_c steps run per level (ℓ_c = 2: 10 + 2·1 key
	// switches instead of 2·11). Otherwise every level runs the full trace.
	shared := 0
	if l&(l-1) == 0 {
		shared = ev.p.lit.LogN - bits.TrailingZeros(uint(l))
		ev.trace(sc, ev.p.lit.LogN, ev.p.lit.LogN-shared+1)
	}
	copyPoly(sc.tB, sc.cB)
	copyPoly(sc.tA, sc.cA)
	for j := 0; j < l; j++ {
		ev.levelRLWE(j, shared, sc)
		// Row j: RLWE(b·g_j) in the NTT domain (+ g_j/2 in every slot is
		// + g_j/2 on the constant coefficient).
		r.Add(sc.tB, ev.halfGNTT[j], out.B[j])
		copyPoly(sc.tA, out.A[j])
		r.Inverse(sc.tA, sc.tA)
		ev.schemeSwitch(sc, out.B[j], out.B[l+j], out.A[l+j])
	}
}

func copyPoly(from, to ring.Poly2) {
	copy(to[0], from[0])
	copy(to[1], from[1])
}

// levelRLWE leaves RLWE(b·g_j) without the + g_j/2 (NTT domain) in sc.tB,
// sc.tA from the blind-rotated accumulator N^-1·ACC in sc.cB, sc.cA (NTT
// domain), of which the first shared trace steps have already been
// applied.
func (ev *Evaluator) levelRLWE(j, shared int, sc *Scratch) {
	r := ev.r
	if j == 0 { // X^0
		copyPoly(sc.cB, sc.tB)
		copyPoly(sc.cA, sc.tA)
	} else {
		r.MulCoeffs(sc.cB, ev.levelMono[j], sc.tB)
		r.MulCoeffs(sc.cA, ev.levelMono[j], sc.tA)
	}
	ev.trace(sc, ev.p.lit.LogN-shared, 1)
}

// toSmallLWE mod-switches in to Q_ks, key-switches it to s and rounds it
// to 2N: sc.alpha[0..n-1] = a, sc.alpha[n] = b (phase b + <a, s>).
func (ev *Evaluator) toSmallLWE(in *WideBit, sc *Scratch) {
	ev.modSwitchKS(in, sc)
	sc.sink += keySwitchLWEBatch(ev.p, ev.ek, sc.self[:], sc.ksOffs)
	ev.roundToAlpha(sc)
}

// modSwitchKS writes in mod-switched to Q_ks into sc.lwe.
func (ev *Evaluator) modSwitchKS(in *WideBit, sc *Scratch) {
	p := ev.p
	lq := uint(p.lit.LogQKS)
	for i, a := range in.A {
		sc.lwe[i] = modSwitchCoeff(a%p.q, p.q, lq)
	}
	sc.lwe[p.ringN] = modSwitchCoeff(in.B%p.q, p.q, lq)
}

// roundToAlpha rounds the key-switched sample in sc.ksAcc (mod Q_ks) to
// 2N into sc.alpha.
func (ev *Evaluator) roundToAlpha(sc *Scratch) {
	p := ev.p
	n := p.lit.LWEDim
	shift := uint(p.lit.LogQKS - (p.lit.LogN + 1))
	mask := uint64(p.qks - 1)
	for j := 0; j <= n; j++ {
		x := (sc.ksAcc[j/4] >> (16 * uint(j%4))) & mask
		sc.alpha[j] = int32(((x + (uint64(1)<<shift)/2) >> shift) % uint64(p.ringM))
	}
}

// blindRotateScaled sets, for every scratch sc of scs, sc.accB, sc.accA (NTT
// domain) to N^-1·RLWE(X^{-φ}·f) for the phase φ = b + Σ a_i s_i of sc.alpha
// (GINX, ternary: ACC += (X^{-a}-1)·(ACC ⊡ RGSW(s_i=1)) + (X^{a}-1)·(ACC ⊡
// RGSW(s_i=-1)), both products on one decomposition of ACC). The
// accumulators advance in lockstep: step i runs for every scratch before
// step i+1, so the 256 KiB of key rows brk[i] (at N = 2048; the whole key
// does not fit the caches) come from memory once per batch and from L2 for
// the others. Each accumulator sees the same operations in the same order
// as alone, so the results are bit-identical to one blind rotation each.
//
// The accumulators are kept scaled by N^-1 (they start from N^-1·f and the
// monomial table is scaled, so every step's update is too): then
// InverseUnscaled gives their coefficients without the N^-1 factor that
// Inverse would fold into its last stage (one Shoup product per pair
// fewer), and finishRGSW wants N^-1·ACC anyway. Multiplying by N gives
// exactly the unscaled rotation's accumulators (all values are fully
// reduced mod Q), which the tests' blindRotateBatch does.
func (ev *Evaluator) blindRotateScaled(scs []*Scratch) {
	r := ev.r
	p := ev.p
	n := p.lit.LWEDim
	M := p.ringM
	g := p.lit.BR
	l := g.Digits
	// A step's coefficient-domain copies and digits are dead after it, so
	// the whole batch uses the first scratch's: the batch's working set in
	// L2 beside the step's key rows is then its accumulators (32 KiB each
	// at N = 2048) and one step's temporaries (96 KiB), not 128 KiB per
	// accumulator.
	t := scs[0]
	cB, cA, dig := t.cB, t.cA, t.dig[:2*l]
	for _, sc := range scs {
		r.MulByMonomial(ev.fInv, -int(sc.alpha[n]), cB)
		r.Forward(cB, sc.accB)
		for k := range sc.accA {
			clear(sc.accA[k])
		}
	}
	// The accumulators that move at a step (alpha_i != 0) go in pairs
	// through DotRowsMono2Pair, which loads each block of the step's rows
	// once for both; the first of a pair is decomposed into t.dig, the
	// second into its own scratch's digits (the second is never scs[0]).
	// An odd one left over takes DotRowsMono2. Both orders of operations
	// per accumulator are those of a blind rotation alone.
	x, y := &t.pair[0], &t.pair[1]
	for i := 0; i < n; i++ {
		kp, km := ev.ek.brk[i][0], ev.ek.brk[i][1]
		var pend *Scratch
		for _, sc := range scs {
			a := int(sc.alpha[i])
			if a == 0 {
				continue
			}
			d := dig
			if pend != nil {
				d = sc.dig[:2*l]
			}
			r.InverseUnscaled(sc.accB, cB)
			r.InverseUnscaled(sc.accA, cA)
			r.Decompose(cB, g.LogB, l, g.Drop, d[:l])
			r.Decompose(cA, g.LogB, l, g.Drop, d[l:])
			// The digits only feed DotRowsMono2(Pair), which takes them
			// below 4Q_i (its output stays fully reduced, so nothing
			// downstream changes): Forward4Q skips the final reductions.
			for _, e := range d {
				r.Forward4Q(e, e)
			}
			if pend == nil {
				pend = sc
				continue
			}
			// ACC += mp∘(dig ⊡ Kp) + mm∘(dig ⊡ Km) in one pass for both
			// (equal, bit for bit, to two DotRows and four MulCoeffsAdd
			// each).
			ap := int(pend.alpha[i])
			*x = ring.Mono2Acc{Digits: dig, Mono1: ev.mono[(M-ap)%M], Mono2: ev.mono[ap], AccB: pend.accB, AccA: pend.accA}
			*y = ring.Mono2Acc{Digits: d, Mono1: ev.mono[(M-a)%M], Mono2: ev.mono[a], AccB: sc.accB, AccA: sc.accA}
			r.DotRowsMono2Pair(kp.B, kp.A, km.B, km.A, x, y)
			pend = nil
		}
		if pend != nil {
			a := int(pend.alpha[i])
			r.DotRowsMono2(dig, kp.B, kp.A, km.B, km.A, ev.mono[(M-a)%M], ev.mono[a], pend.accB, pend.accA)
		}
	}
}

// trace applies the trace steps kHi down to kLo to (sc.tB, sc.tA) (NTT
// domain): ct += KS(τ_{2^k+1}(ct)).
// All steps (log N .. 1) give Tr_{K/Q}: every coefficient but the constant
// one cancels and the constant is multiplied by N (the caller
// pre-multiplies by N^-1).
func (ev *Evaluator) trace(sc *Scratch, kHi, kLo int) {
	r := ev.r
	g := ev.p.lit.Trace
	dig := sc.dig[:g.Digits]
	for k := kHi; k >= kLo; k-- {
		r.AutomorphismNTTPair(sc.tB, sc.tA, ev.autIdx[k-1], sc.uB, sc.uA)
		r.Inverse(sc.uA, sc.uA)
		r.Decompose(sc.uA, g.LogB, g.Digits, g.Drop, dig)
		for _, d := range dig {
			r.Forward(d, d)
		}
		key := ev.ek.trace[k-1]
		r.DotRows(dig, key.B, key.A, sc.pB, sc.pA)
		r.Add3(sc.tB, sc.uB, sc.pB, sc.tB)
		r.Add(sc.tA, sc.pA, sc.tA)
	}
}

// schemeSwitch writes the z-row RLWE(b·g_j·z) (NTT domain) from
// RLWE(b·g_j) = (β, α), given as bNTT = β (NTT domain) and sc.tA = α
// (coefficient domain): (β + α·z)·z = β·z + α·z², so the row is (0, β)
// plus the key switch of α from z² to z (key RLWE'(z²)).
func (ev *Evaluator) schemeSwitch(sc *Scratch, bNTT, outB, outA ring.Poly2) {
	r := ev.r
	g := ev.p.lit.Trace
	dig := sc.dig[:g.Digits]
	r.Decompose(sc.tA, g.LogB, g.Digits, g.Drop, dig)
	for _, d := range dig {
		r.Forward(d, d)
	}
	r.DotRows(dig, ev.ek.ss.B, ev.ek.ss.A, outB, outA)
	r.Add(outA, bNTT, outA)
}
