package fhew

import (
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// The shared-select CMux gadget (docs/fhew-cmux.md). A MUX costs two gate
// bootstraps, but MUXes often share their select (one borrow selects a
// whole remainder row of a division). Select converts the select bit once
// into an RGSW ciphertext by circuit bootstrapping (package cbs); every
// MUX on it is then a CMux: one external product in the CBS ring plus the
// format conversions, no bootstrap.
//
//	Select: x (gate ct) --weight P/2, key switch N_g -> n--> LWE(s) mod Q_ks
//	        --cbs.CBSFromLWE--> RGSW(x) under z_c
//	CMux:   a − b (gate ct) --cbs.Lift--> RLWE(z_c) --sel ⊡ (cbs.CMux), ExtractConst-->
//	        LWE(z_c, N_c, Q_c) --lower--> gate ct (LWE(z_g, N_g, Q_ks)), + b
//
// The lower path (this file) mod-switches Q_c -> Q_g, splits the LWE vector
// into N_c/N_g parts, ring-key-switches each part in R_{N_g} mod Q_g with
// the lower keys RLWE'_{z_g}(Z_{c,h}) (accumulated in the NTT domain, one
// DotRows over all parts' digits), extracts coefficient 0 as bootstrap()
// does and mod-switches Q_g -> Q_ks.

// Selector is an RGSW encryption of a bit under the CBS ring secret, made
// by Evaluator.Select; any number of CMuxes may read it concurrently.
type Selector struct {
	g *cbs.RGSW
}

// cmuxScratch is a Scratch's part for the CMux gadget (allocated by
// NewScratch on sets that have it).
type cmuxScratch struct {
	cbs   *cbs.Scratch
	ra    *cbs.RLWE    // the lifted difference a - b, then sel ⊡ (a - b)
	zero  *cbs.RLWE    // stays zero: cbs.CMux's b operand
	d, t  *Ciphertext  // a - b, and the lowered product
	wide  *cbs.WideBit // ExtractConst's LWE(z_c, N_c, Q_c)
	alpha []uint32     // wide's α switched to Q_g (N_c entries)
	poly  []uint32     // one part as an R_{N_g} polynomial
	dig   [][]uint32   // parts·d_g digit polynomials (one slab)
	sel   []uint16     // Select's key-switched sample (β then α, dim n)
}

func newCMuxScratch(p *params) *cmuxScratch {
	cp := p.cmux.cp
	r := cp.Ring()
	N, Nc := p.N, cp.N()
	nd := p.cmux.parts * p.dg
	cs := &cmuxScratch{
		cbs:  cbs.NewScratch(cp),
		ra:   &cbs.RLWE{B: r.NewPoly(), A: r.NewPoly()},
		zero: &cbs.RLWE{B: r.NewPoly(), A: r.NewPoly()},
		d:    &Ciphertext{A: make([]uint16, N)}, t: &Ciphertext{A: make([]uint16, N)},
		wide: cbs.NewWideBit(cp), alpha: make([]uint32, Nc), poly: make([]uint32, N),
		dig: make([][]uint32, nd), sel: make([]uint16, p.n+1),
	}
	slab := make([]uint32, nd*N)
	for i := range cs.dig {
		cs.dig[i] = slab[i*N : (i+1)*N : (i+1)*N]
	}
	return cs
}

// errNoCMux reports a CMux operation on a set without the gadget.
var errNoCMux = errors.New("fhew: the parameter set has no CMux gadget (ParamsLiteral.CMux)")

// NewSelector allocates a Selector for ev's set (nil if the set has no
// CMux gadget; Select and CMux report that as an error).
func (ev *Evaluator) NewSelector() *Selector {
	if ev.cbs == nil {
		return nil
	}
	return &Selector{g: ev.cbs.NewRGSW()}
}

// checkCMux validates the shared arguments of Select and CMux.
func (ev *Evaluator) checkCMux(sel *Selector, sc *Scratch, cts ...*Ciphertext) error {
	if ev.cbs == nil {
		return errNoCMux
	}
	if sel == nil || sel.g == nil {
		return errors.New("fhew: nil Selector (use Evaluator.NewSelector)")
	}
	if sc == nil || sc.cmux == nil || len(sc.comb) != ev.params.N+1 {
		return errors.New("fhew: scratch is not for this CMux parameter set (use NewScratch)")
	}
	for i, c := range cts {
		if c == nil || len(c.A) != ev.params.N {
			return fmt.Errorf("fhew: ciphertext %d is nil or not of dimension N = %d", i, ev.params.N)
		}
	}
	return nil
}

// Select circuit-bootstraps the bit x encrypts into out (an RGSW under the
// CBS ring secret): weight P/2 on x (phase x·Q_ks/2 + (P/2)·e), fhew's LWE
// key switch N_g -> n, cbs.CBSFromLWE. It fails (a wrong select) with the
// probability SelectFailureLog2 predicts. x is not changed.
func (ev *Evaluator) Select(x *Ciphertext, out *Selector, sc *Scratch) error {
	if err := ev.checkCMux(out, sc, x); err != nil {
		return err
	}
	p := ev.params.params
	w := uint16(p.slots / 2)
	sc.comb[0] = w * x.B
	acc := sc.comb[1 : p.N+1]
	for i, a := range x.A[:p.N] {
		acc[i] = w * a
	}
	cs := sc.cmux
	keySwitch(p, ev.ek.ksk, sc.comb, cs.sel, sc.ksAcc, sc.ksOffs, &sc.ksSink)
	return ev.cbs.CBSFromLWE(cs.sel[0], cs.sel[1:p.n+1], uint(p.logQKS), out.g, cs.cbs)
}

// CMux sets out = sel ? a : b without a bootstrap: out = b + sel·(a − b),
// where the difference a − b (exact, mod Q_ks) is lifted into the CBS ring,
// multiplied by the select (one external product) and brought back to a
// gate ciphertext (the lower path), and b is added in the gate domain.
// Lifting the difference instead of a and b saves one lift (a fifth of
// the CMux) and leaves the noise as it was: the phase is b's plus a's
// minus b's for a select of 1, so the output carries the chosen input's
// noise plus CMuxAddedVariance (the lift's only when sel = 1). Chains of
// CMuxes therefore need an occasional refresh (a gate bootstrap), which
// the mapper decides from NodeFailureLog2. out may alias a or b.
func (ev *Evaluator) CMux(sel *Selector, a, b, out *Ciphertext, sc *Scratch) error {
	if err := ev.checkCMux(sel, sc, a, b, out); err != nil {
		return err
	}
	p := ev.params.params
	cs := sc.cmux
	m := uint16(p.qks - 1)
	d := cs.d
	d.B = (a.B - b.B) & m
	for i, x := range a.A[:p.N] {
		d.A[i] = (x - b.A[i]) & m
	}
	if err := ev.cbs.Lift(d.B, d.A, uint(p.logQKS), cs.ra, cs.cbs); err != nil {
		return err
	}
	if err := ev.cbs.CMux(sel.g, cs.ra, cs.zero, cs.ra, cs.cbs); err != nil {
		return err
	}
	if err := ev.cbs.ExtractConst(cs.ra, cs.wide); err != nil {
		return err
	}
	ev.lower(cs.wide, cs.t, sc)
	out.B = (b.B + cs.t.B) & m
	for i, x := range cs.t.A {
		out.A[i] = (b.A[i] + x) & m
	}
	return nil
}

// lower switches an LWE sample under z_c (dimension N_c, modulus Q_c) to a
// gate ciphertext under z_g (dimension N_g, modulus Q_ks), same phase up to
// scale and the added noise (cmux_noise.go).
func (ev *Evaluator) lower(in *cbs.WideBit, out *Ciphertext, sc *Scratch) {
	p := ev.params.params
	nt := p.ntt
	N, dg := p.N, p.dg
	cs := sc.cmux
	// Mod switch Q_c -> Q_g, per coefficient. Q_c < 2^54, so a float64
	// product is exact to ~2^-25 of a unit: the rounding is the nearest
	// integer except within 2^-25 of a tie, noise the model's 1/12 covers.
	Qc := float64(ev.cbs.Params().Q())
	ratio := float64(p.Q) / Qc
	Q := p.Q
	beta := switchDown(in.B, ratio, Q)
	for i, x := range in.A {
		cs.alpha[i] = switchDown(x, ratio, Q)
	}
	// Part h as P_h(X) = α_{hN} - Σ_{j>=1} α_{hN+j}·X^{N-j}: the constant
	// coefficient of P_h·Z_{c,h} is <α_h, z_{c,h}>. Its digits, transformed,
	// multiply the lower key rows of part h.
	for h := 0; h < p.cmux.parts; h++ {
		part := cs.alpha[h*N : (h+1)*N]
		cs.poly[0] = part[0]
		for j := 1; j < N; j++ {
			cs.poly[N-j] = nt.NegMod(part[j])
		}
		d := cs.dig[h*dg : (h+1)*dg]
		decomposeLazy(p, cs.poly, d)
		for _, x := range d {
			nt.ForwardLazy(x, x)
		}
	}
	nt.DotRows(cs.dig, ev.ek.lower, nil, sc.lazyB, sc.lazyA, sc.accB, sc.accA)
	nt.Inverse(sc.accB, sc.cb)
	nt.Inverse(sc.accA, sc.ca)
	// Sample extraction of coefficient 0 (β = b_0 + β', α_0 = a_0,
	// α_i = -a_{N-i}) and the mod switch Q_g -> Q_ks, as bootstrap().
	scale, Q64 := uint64(p.qks), uint64(Q)
	m16 := uint16(p.qks - 1)
	out.B = modSwitchQ(nt.AddMod(sc.cb[0], beta), scale, Q64) & m16
	oa := out.A[:N]
	oa[0] = modSwitchQ(sc.ca[0], scale, Q64) & m16
	for i := 1; i < N; i++ {
		oa[i] = modSwitchQ(nt.NegMod(sc.ca[N-i]), scale, Q64) & m16
	}
}

// switchDown returns round(x·ratio) mod Q for x < Q_c, ratio = Q/Q_c < 1.
func switchDown(x uint64, ratio float64, Q uint32) uint32 {
	v := uint32(float64(x)*ratio + 0.5)
	if v >= Q {
		v -= Q
	}
	return v
}
