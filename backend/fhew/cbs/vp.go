package cbs

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// MaxTableInputs bounds k, the number of inputs of a table (2^k ≤ N).
const MaxTableInputs = 8

// OutputsPerPoly returns how many k-input table outputs one vertical-packing
// polynomial holds (N / 2^k); more outputs take several CMux trees on the
// same RGSW inputs.
func (p Params) OutputsPerPoly(k int) int { return p.ringN >> uint(k) }

// EvalTable evaluates a table by vertical packing: in[j] = RGSW(x_j), the
// input index is x = Σ_j x_j·2^j, tables[t] holds output t's 2^k bits
// (bit x in word x/64, bit x%64), and out[t] receives output t as a wide
// bit. Outputs are packed N/2^k per polynomial (coefficient t·2^k + x holds
// T_t[x]·round(Q/2)); a CMux tree ACC ← ACC + RGSW(x_j) ⊡ (X^{-2^j}·ACC -
// ACC) rotates it by X^{-x}, and coefficient t·2^k is extracted.
func (ev *Evaluator) EvalTable(in []*RGSW, tables [][]uint64, out []*WideBit, sc *Scratch) error {
	p := ev.p
	k := len(in)
	if k < 1 || k > MaxTableInputs || k > p.lit.LogN {
		return fmt.Errorf("cbs: table with %d inputs (want 1..%d)", k, MaxTableInputs)
	}
	if len(tables) == 0 || len(out) != len(tables) {
		return fmt.Errorf("cbs: %d tables and %d outputs (want equal, at least one)", len(tables), len(out))
	}
	words := (1<<uint(k) + 63) / 64
	for t, tab := range tables {
		if len(tab) != words {
			return fmt.Errorf("cbs: table %d has %d words, want %d for %d inputs", t, len(tab), words, k)
		}
		if err := checkWide(p, out[t]); err != nil {
			return err
		}
	}
	for _, g := range in {
		if err := ev.checkRGSW(g); err != nil {
			return err
		}
	}
	if err := ev.checkScratch(sc); err != nil {
		return err
	}
	per := p.OutputsPerPoly(k)
	for first := 0; first < len(tables); first += per {
		last := first + per
		if last > len(tables) {
			last = len(tables)
		}
		ev.packTables(k, tables[first:last], sc)
		ev.cmuxTree(in, sc)
		ev.extractOutputs(k, out[first:last], sc)
	}
	return nil
}

// packTables writes the trivial RLWE of the packed tables into (sc.tB,
// sc.tA) (coefficient domain).
func (ev *Evaluator) packTables(k int, tables [][]uint64, sc *Scratch) {
	v := sc.tabVal
	for i := range v {
		v[i] = 0
	}
	one := -int64((ev.p.q - 1) / 2) // ≡ round(Q/2) mod Q, centred
	size := 1 << uint(k)
	for t, tab := range tables {
		for x := 0; x < size; x++ {
			if tab[x/64]>>(uint(x)%64)&1 == 1 {
				v[t*size+x] = one
			}
		}
	}
	ev.r.SetCentered(v, sc.tB)
	for j := range sc.tA {
		clear(sc.tA[j])
	}
}

// cmuxTree rotates (sc.tB, sc.tA) by X^{-x} under RGSW(x_j) inputs.
func (ev *Evaluator) cmuxTree(in []*RGSW, sc *Scratch) {
	for j, g := range in {
		ev.cmux(g, 1<<uint(j), sc)
	}
}

// cmux sets ACC = (sc.tB, sc.tA) to ACC + g ⊡ (X^{-shift}·ACC - ACC), i.e.
// X^{-shift}·ACC if g encrypts 1 and ACC if it encrypts 0 (coefficient
// domain in and out).
func (ev *Evaluator) cmux(g *RGSW, shift int, sc *Scratch) {
	r := ev.r
	r.MulByMonomial(sc.tB, -shift, sc.uB)
	r.Sub(sc.uB, sc.tB, sc.uB)
	r.MulByMonomial(sc.tA, -shift, sc.uA)
	r.Sub(sc.uA, sc.tA, sc.uA)
	ev.externalProduct(g, sc.uB, sc.uA, sc)
	r.Add(sc.tB, sc.pB, sc.tB)
	r.Add(sc.tA, sc.pA, sc.tA)
}

// externalProduct sets (sc.pB, sc.pA) (coefficient domain) to g ⊡ (B, A)
// for a coefficient-domain RLWE (B, A): decompose both with the CBS gadget,
// transform, DotRows, transform back.
func (ev *Evaluator) externalProduct(g *RGSW, B, A ring.Poly2, sc *Scratch) {
	r := ev.r
	gd := ev.p.lit.CBS
	l := gd.Digits
	dig := sc.dig[:2*l]
	r.Decompose(B, gd.LogB, l, gd.Drop, dig[:l])
	r.Decompose(A, gd.LogB, l, gd.Drop, dig[l:])
	for _, d := range dig {
		r.Forward(d, d)
	}
	r.DotRows(dig, g.B, g.A, sc.pB, sc.pA)
	r.Inverse(sc.pB, sc.pB)
	r.Inverse(sc.pA, sc.pA)
}

// extractOutputs writes coefficient t·2^k of (sc.tB, sc.tA) into out[t].
func (ev *Evaluator) extractOutputs(k int, out []*WideBit, sc *Scratch) {
	r := ev.r
	r.Centered(sc.tA, sc.cen)
	r.Centered(sc.tB, sc.cen2)
	for t, w := range out {
		extractLWE(ev.p, sc.cen, sc.cen2, t<<uint(k), w)
	}
}

// extractLWE writes the LWE encryption under z (as a vector) of
// coefficient c of the phase B + A·z of a centred coefficient-domain RLWE:
// a_i = A_{c-i} for i <= c, -A_{N+c-i} for i > c; b = B_c.
func extractLWE(p Params, A, B []int64, c int, out *WideBit) {
	Q := int64(p.q)
	toQ := func(x int64) uint64 {
		if x < 0 {
			x += Q
		}
		return uint64(x)
	}
	N := p.ringN
	for i := 0; i <= c; i++ {
		out.A[i] = toQ(A[c-i])
	}
	for i := c + 1; i < N; i++ {
		out.A[i] = toQ(-A[N+c-i])
	}
	out.B = toQ(B[c])
}
