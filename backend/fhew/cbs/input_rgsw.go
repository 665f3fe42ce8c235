package cbs

import (
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Client-side RGSW inputs. A plan form whose terms are all circuit input
// bits (AES: round 1's p_i ⊕ k_i and the key schedule's first SubWord)
// does not need a circuit bootstrap when the client, who holds the secret
// key, also sends every input bit as an RGSW ciphertext: the executor
// builds RGSW(x_1 ⊕ … ⊕ x_t) from them with 2ℓ_c(t − 1) external products
// (about a hundredth of a CBS for t = 2; docs/fhew-cbs.md, "Client-side
// RGSW inputs").

// InputRGSW is the client's RGSW encryption of one circuit input bit b
// under the ring key z with the input gadget (Params.InputGadget; NTT
// domain, fresh noise σ): rows j < ℓ_in encrypt b·f_j, rows ℓ_in + j
// encrypt b·f_j·z. It is immutable after encryption and may be shared by
// concurrent evaluations.
type InputRGSW struct {
	lit  ParamsLiteral // the set it was encrypted for
	seed [32]byte      // public seed of the rows' A parts (expandInputA)
	rows *RGSW
}

// SizeBytes returns the ciphertext's size in memory: 4ℓ_in polynomials of
// N coefficients in two 32-bit residues (192 KiB at STD128_CBS). Half of it
// is the uniform A parts, expanded from a public seed, so the encoding
// (AppendInputRGSW) is half as large.
func (c *InputRGSW) SizeBytes() int {
	if c == nil || c.rows == nil {
		return 0
	}
	n := 0
	for j := range c.rows.B {
		n += 4 * (len(c.rows.B[j][0]) + len(c.rows.B[j][1]) + len(c.rows.A[j][0]) + len(c.rows.A[j][1]))
	}
	return n
}

// inputGadget returns the input gadget of p and reports whether it is
// usable (see InputGadget).
func inputGadget(p Params) (Gadget, error) {
	if !p.valid() {
		return Gadget{}, errors.New("cbs: zero Params (use NewParams)")
	}
	digits := 3
	// EvalPlan's workers build forms in their Scratch, whose digit buffers
	// hold 2·max(ℓ_br, ℓ_trace, ℓ_c) polynomials (10 or more in every
	// named set).
	if 2*digits > 2*maxInt(p.lit.BR.Digits, maxInt(p.lit.Trace.Digits, p.lit.CBS.Digits)) {
		digits = 2
	}
	drop := min(16, p.lit.CBS.Drop)
	logB := (p.logQ + 1 - drop + digits - 1) / digits
	g := Gadget{LogB: logB, Digits: digits, Drop: drop}
	if err := p.ring.CheckDecompose(g.LogB, g.Digits, g.Drop); err != nil {
		return g, fmt.Errorf("cbs: no input gadget for %s: %w", p.lit.Name, err)
	}
	if g.Drop+(g.Digits-1)*g.LogB >= p.logQ {
		return g, fmt.Errorf("cbs: no input gadget for %s: %v has a digit above Q", p.lit.Name, g)
	}
	return g, nil
}

// InputGadget returns the gadget of the client's input RGSW ciphertexts:
// three digits, 2^13 × 3 with the low 16 bits rounded away at
// log Q = 54 (the drop is at most the CBS gadget's, so every CBS gadget
// power 2^e is 2^k times an input gadget power with k < 13). Among
// 3-digit gadgets it minimises the noise of one external product (digit
// and rounding noise balanced: σ 2^19.9 per coefficient at STD128_CBS, a
// variance 2^-19 of a CBS row's); two digits cannot get below a CBS row's B-row
// energy and five (the trace gadget) cost 5/3 of the size for noise that
// is already negligible (docs/fhew-cbs.md).
func (p Params) InputGadget() Gadget {
	g, _ := inputGadget(p)
	return g
}

// coarseRow returns, for level j of the CBS gadget c, the input gadget
// row i and the power of two 2^k with g_j = 2^k·f_i: the CBS-gadget RGSW
// of an input bit is its input RGSW's rows i scaled by 2^k (noise ×2^k;
// k ≥ 0 since g's drop is at most c's, and k < 13 at log Q = 54).
func coarseRow(c, g Gadget, j int) (i, k int) {
	e := c.Drop + j*c.LogB
	i = min(g.Digits-1, (e-g.Drop)/g.LogB)
	return i, e - (g.Drop + i*g.LogB)
}

// EncryptInputRGSW encrypts each bit as an InputRGSW (fresh noise, A parts
// uniform from the encryptor's crypto/rand-seeded stream), in the plan's
// input layout, for EvalOptions.InputRGSW. The wide bits (EncryptBits) are
// still needed: forms that mix inputs with table outputs, and the outputs
// that read inputs, use them.
func (enc *Encryptor) EncryptInputRGSW(bits []bool) ([]*InputRGSW, error) {
	p := enc.sk.params
	g, err := inputGadget(p)
	if err != nil {
		return nil, err
	}
	base, err := newSeed()
	if err != nil {
		return nil, err
	}
	e := make([]int64, p.ringN)
	out := make([]*InputRGSW, len(bits))
	for i, b := range bits {
		c := &InputRGSW{lit: p.lit, seed: deriveSeed(base, domainInputRGSW, uint64(i)), rows: newRGSW(p.ring, g.Digits)}
		expandInputA(p, c)
		bit := 0
		if b {
			bit = 1
		}
		encryptRGSWBit(enc.sk, enc.smp, bit, g, e, c.rows, false)
		out[i] = c
	}
	return out, nil
}

// domainInputRGSW separates the input RGSWs' public streams from the
// evaluation key's (keyseed.go); each ciphertext has its own seed, derived
// from a fresh crypto/rand seed per EncryptInputRGSW call and its index.
const domainInputRGSW uint64 = 0x5247_5357_494e // "RGSWIN"

// expandInputA fills the A polynomial of every row of c (rows 0..2ℓ_in-1
// in order, NTT domain, mod Q0 then Q1) from c's seed, as keyseed.go does
// for the evaluation keys: uniform, public, regenerated by a decoder.
func expandInputA(p Params, c *InputRGSW) {
	prng := ring.NewPRNG(c.seed)
	for _, a := range c.rows.A {
		uniformPolyFrom(prng, p.ring, a)
	}
}

// checkInputRGSW reports whether c is an InputRGSW of ev's set.
func (ev *Evaluator) checkInputRGSW(c *InputRGSW, g Gadget) error {
	if c == nil || c.rows == nil {
		return errors.New("cbs: nil input RGSW")
	}
	if c.lit != ev.p.lit {
		return fmt.Errorf("cbs: input RGSW of parameter set %q, evaluator's is %q", c.lit.Name, ev.p.lit.Name)
	}
	l := 2 * g.Digits
	bad := len(c.rows.B) != l || len(c.rows.A) != l
	for j := 0; !bad && j < l; j++ {
		for _, q := range [2]ring.Poly2{c.rows.B[j], c.rows.A[j]} {
			bad = bad || len(q[0]) != ev.p.ringN || len(q[1]) != ev.p.ringN
		}
	}
	if bad {
		return errors.New("cbs: malformed input RGSW (use Encryptor.EncryptInputRGSW)")
	}
	return nil
}

// InputFormRGSW writes RGSW(x_1 ⊕ … ⊕ x_t) with the CBS gadget (what CBS
// would produce, as EvalTable reads it) into out, from the input RGSWs of
// the form's terms: out starts as the first term's rows scaled to the CBS
// gadget (coarseRow), and each further term a gives, row by row,
// out ← out + RGSW(a) ⊡ (G − 2·out), i.e. RGSW(b) + a·RGSW(¬b ⊖ b) =
// RGSW(a ⊕ b) (RGSW(¬b) = G − RGSW(b) is free). That is 2ℓ_c external
// products per further term, each 2 inverse and 2ℓ_in forward transforms;
// no key is needed. Zero allocations; sc is the worker's Scratch.
func (ev *Evaluator) InputFormRGSW(terms []*InputRGSW, out *RGSW, sc *Scratch) error {
	g, err := inputGadget(ev.p)
	if err != nil {
		return err
	}
	if len(terms) == 0 {
		return errors.New("cbs: InputFormRGSW of no terms")
	}
	for _, c := range terms {
		if err := ev.checkInputRGSW(c, g); err != nil {
			return err
		}
	}
	if err := ev.checkRGSW(out); err != nil {
		return err
	}
	if err := ev.checkScratch(sc); err != nil {
		return err
	}
	if len(sc.dig) < 2*g.Digits {
		return errors.New("cbs: internal error: scratch has too few digit buffers for the input gadget")
	}
	ev.inputForm(terms, g, out, sc)
	return nil
}

// inputForm is InputFormRGSW after the checks.
func (ev *Evaluator) inputForm(terms []*InputRGSW, g Gadget, out *RGSW, sc *Scratch) {
	r := ev.r
	c := ev.p.lit.CBS
	l := c.Digits
	first := terms[0].rows
	gi := g.Digits
	for j := 0; j < l; j++ {
		i, k := coarseRow(c, g, j)
		s := uint64(1) << uint(k)
		r.MulScalar(first.B[i], s, out.B[j])
		r.MulScalar(first.A[i], s, out.A[j])
		r.MulScalar(first.B[gi+i], s, out.B[l+j])
		r.MulScalar(first.A[gi+i], s, out.A[l+j])
	}
	minus2 := ev.p.q - 2
	dig := sc.dig[:2*gi]
	for _, t := range terms[1:] {
		for row := 0; row < 2*l; row++ {
			// C = G_row − 2·out_row: G's B rows are (g_j, 0), its z-rows
			// (0, g_j) (RLWE(g_j·z) with B = 0, A = g_j), g_j in the
			// constant coefficient.
			r.Inverse(out.B[row], sc.cB)
			r.Inverse(out.A[row], sc.cA)
			r.MulScalar(sc.cB, minus2, sc.cB)
			r.MulScalar(sc.cA, minus2, sc.cA)
			gj := ev.p.gadgetValue(c, row%l)
			if row < l {
				r.AddScalarConst(sc.cB, gj, sc.cB)
			} else {
				r.AddScalarConst(sc.cA, gj, sc.cA)
			}
			r.Decompose(sc.cB, g.LogB, gi, g.Drop, dig[:gi])
			r.Decompose(sc.cA, g.LogB, gi, g.Drop, dig[gi:])
			for _, d := range dig {
				r.Forward(d, d)
			}
			r.DotRows(dig, t.rows.B, t.rows.A, sc.pB, sc.pA)
			r.Add(out.B[row], sc.pB, out.B[row])
			r.Add(out.A[row], sc.pA, out.A[row])
		}
	}
}
