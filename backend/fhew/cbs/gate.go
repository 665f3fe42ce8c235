package cbs

import (
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// CBSFromLWE circuit-bootstraps an LWE sample under the small key s into
// out = RGSW(bit) under z_c: a = n entries, b + <a, s> = bit·2^logQ/2 + e
// (mod 2^logQ; entries are read mod 2^logQ). It rounds the sample to 2N
// and runs CBS's blind rotation, trace and scheme switch; the caller has
// done the key switch to s (fhew's gate engine, whose s the keys share:
// NewSecretKeyWithLWE). It fails (a wrong bit) when |e| reaches about
// WindowHalfWidth()·2^logQ/2N (SelectFailureLog2). logQ must lie in
// [log2 2N, 16]. out (from NewRGSW) is written in the NTT domain.
func (ev *Evaluator) CBSFromLWE(b uint16, a []uint16, logQ uint, out *RGSW, sc *Scratch) error {
	p := ev.p
	if len(a) != p.lit.LWEDim {
		return fmt.Errorf("cbs: CBSFromLWE: LWE sample of dimension %d, want n = %d", len(a), p.lit.LWEDim)
	}
	if logQ < uint(p.lit.LogN+1) || logQ > 16 {
		return fmt.Errorf("cbs: CBSFromLWE: log q = %d outside [log 2N = %d, 16]", logQ, p.lit.LogN+1)
	}
	if err := ev.checkScratch(sc); err != nil {
		return err
	}
	if err := ev.checkRGSW(out); err != nil {
		return err
	}
	shift := logQ - uint(p.lit.LogN+1)
	mask := uint32(1)<<logQ - 1
	M := uint32(p.ringM)
	round := func(x uint16) int32 {
		// round(x·2N/2^logQ) mod 2N, ties up (as toSmallLWE rounds).
		v := uint32(x) & mask
		if shift > 0 {
			v = (v + 1<<(shift-1)) >> shift
		}
		return int32(v % M)
	}
	for i, x := range a {
		sc.alpha[i] = round(x)
	}
	sc.alpha[len(a)] = round(b)
	ev.rotateToRGSW(out, sc)
	return nil
}

// RLWE is an RLWE ciphertext under the ring key z in the coefficient
// domain, phase B + A·z: gate mode's data bits (Lift) between CMuxes. Only
// the constant coefficient carries the bit (ExtractConst reads it).
type RLWE struct {
	B, A ring.Poly2
}

// NewRLWE returns a zero RLWE ciphertext buffer.
func (ev *Evaluator) NewRLWE() *RLWE { return &RLWE{B: ev.r.NewPoly(), A: ev.r.NewPoly()} }

func (ev *Evaluator) checkRLWE(c *RLWE) error {
	N := ev.p.ringN
	if c == nil || len(c.B[0]) != N || len(c.B[1]) != N || len(c.A[0]) != N || len(c.A[1]) != N {
		return errors.New("cbs: RLWE ciphertext of another parameter set (use Evaluator.NewRLWE)")
	}
	return nil
}

// Lift turns a gate ciphertext (b, a) under the gate ring key z_g (len(a)
// = N_g, phase b + <a, z_g> mod 2^logQg; entries read mod 2^logQg) into
// out = RLWE under z whose constant coefficient has phase ≈ (Q/2^logQg)·
// (b + <a, z_g>) (mod Q; error LiftVar): every entry is raised to
// round(x·Q/2^logQg) (x centred), A'(X) = a_0 - Σ_{i>0} a_i·X^{N-i} puts
// <a, z_g> in the constant coefficient of A'·Z_g, and the lift key
// switches A' from Z_g to z. The key must be gate mode for N_g and logQg.
func (ev *Evaluator) Lift(b uint16, a []uint16, logQg uint, out *RLWE, sc *Scratch) error {
	p := ev.p
	ek := ev.ek
	if ek.gateN == 0 {
		return errors.New("cbs: Lift needs a gate-mode evaluation key (GenGateEvaluationKey)")
	}
	if len(a) != ek.gateN || logQg != ek.gateLogQ {
		return fmt.Errorf("cbs: Lift of a gate ciphertext of dimension %d mod 2^%d; the key is for %d mod 2^%d",
			len(a), logQg, ek.gateN, ek.gateLogQ)
	}
	if err := ev.checkScratch(sc); err != nil {
		return err
	}
	if err := ev.checkRLWE(out); err != nil {
		return err
	}
	r := ev.r
	N := p.ringN
	v := sc.cen
	clear(v)
	v[0] = raiseCoeff(a[0], logQg, p.q)
	for i := 1; i < len(a); i++ {
		v[N-i] = -raiseCoeff(a[i], logQg, p.q)
	}
	r.SetCentered(v, sc.cA)
	g := p.liftGadget()
	dig := sc.dig[:g.Digits]
	r.Decompose(sc.cA, g.LogB, g.Digits, g.Drop, dig)
	for _, d := range dig {
		r.Forward(d, d)
	}
	r.DotRows(dig, ek.lift.B, ek.lift.A, sc.pB, sc.pA)
	r.Inverse(sc.pB, out.B)
	r.Inverse(sc.pA, out.A)
	rb := raiseCoeff(b, logQg, p.q)
	if rb < 0 {
		rb += int64(p.q)
	}
	r.AddScalarConst(out.B, uint64(rb), out.B)
	return nil
}

// raiseCoeff returns round(x·Q/2^k) for x mod 2^k read centred, exactly:
// Q = qh·2^k + ql, so x·Q/2^k = x·qh + x·ql/2^k (|x·ql| < 2^31, |x·qh|
// < 2^54), rounded half up by an arithmetic shift.
func raiseCoeff(u uint16, k uint, Q uint64) int64 {
	x := int64(uint64(u) & (uint64(1)<<k - 1))
	if x >= int64(1)<<(k-1) {
		x -= int64(1) << k
	}
	qh, ql := int64(Q>>k), int64(Q&(uint64(1)<<k-1))
	return x*qh + (x*ql+int64(1)<<(k-1))>>k
}

// CMux sets out = b + sel ⊡ (a - b), i.e. a if sel encrypts 1 and b if 0
// (one external product with the CBS gadget; noise CMuxVar on top of the
// chosen input's). out may alias a or b.
func (ev *Evaluator) CMux(sel *RGSW, a, b, out *RLWE, sc *Scratch) error {
	if err := ev.checkRGSW(sel); err != nil {
		return err
	}
	for _, c := range [3]*RLWE{a, b, out} {
		if err := ev.checkRLWE(c); err != nil {
			return err
		}
	}
	if err := ev.checkScratch(sc); err != nil {
		return err
	}
	r := ev.r
	r.Sub(a.B, b.B, sc.uB)
	r.Sub(a.A, b.A, sc.uA)
	ev.externalProduct(sel, sc.uB, sc.uA, sc)
	r.Add(b.B, sc.pB, out.B)
	r.Add(b.A, sc.pA, out.A)
	return nil
}

// ExtractConst writes the constant coefficient of in as an LWE ciphertext
// under z (WideBit layout, phase out.B + Σ out.A_i·z_i): out.A_0 = A_0,
// out.A_i = -A_{N-i}, out.B = B_0.
func (ev *Evaluator) ExtractConst(in *RLWE, out *WideBit) error {
	if err := ev.checkRLWE(in); err != nil {
		return err
	}
	if err := checkWide(ev.p, out); err != nil {
		return err
	}
	r := ev.r
	Q := int64(ev.p.q)
	toQ := func(x int64) uint64 {
		if x < 0 {
			x += Q
		}
		return uint64(x)
	}
	N := ev.p.ringN
	out.A[0] = toQ(r.CenteredAt(in.A, 0))
	for i := 1; i < N; i++ {
		out.A[i] = toQ(-r.CenteredAt(in.A, N-i))
	}
	out.B = toQ(r.CenteredAt(in.B, 0))
	return nil
}
