package cbs

import (
	mrand "math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// finishRGSWRef is finishRGSW as first written (session 6): the trace on
// coefficient-domain (B, A) with per-residue Modulus32 adds, N^-1 by a
// separate multiply, every level's rows transformed by Forward. It is the
// reference that pins the optimized post-blind-rotation path bit for bit.
func finishRGSWRef(ev *Evaluator, out *RGSW, sc *Scratch) {
	r := ev.r
	lit := ev.p.lit
	add := func(a, b, o ring.Poly2) {
		for i, nt := range r.NTT {
			nt.Add(a[i], b[i], o[i])
		}
	}
	trace := func(kHi, kLo int) {
		g := lit.Trace
		dig := sc.dig[:g.Digits]
		for k := kHi; k >= kLo; k-- {
			t := uint64(1)<<uint(k) + 1
			r.AutomorphismCoeff(sc.tB, t, sc.uB)
			r.AutomorphismCoeff(sc.tA, t, sc.uA)
			r.Decompose(sc.uA, g.LogB, g.Digits, g.Drop, dig)
			for _, d := range dig {
				r.Forward(d, d)
			}
			key := ev.ek.trace[k-1]
			r.DotRows(dig, key.B, key.A, sc.pB, sc.pA)
			r.Inverse(sc.pB, sc.pB)
			r.Inverse(sc.pA, sc.pA)
			add(sc.tB, sc.uB, sc.tB)
			add(sc.tB, sc.pB, sc.tB)
			add(sc.tA, sc.pA, sc.tA)
		}
	}
	r.Inverse(sc.accB, sc.cB)
	r.Inverse(sc.accA, sc.cA)
	l := lit.CBS.Digits
	shared := 0
	if l&(l-1) == 0 {
		for s := l; s > 1; s >>= 1 {
			shared++
		}
		shared = lit.LogN - shared
		r.MulScalar(sc.cB, ev.nInv, sc.tB)
		r.MulScalar(sc.cA, ev.nInv, sc.tA)
		trace(lit.LogN, lit.LogN-shared+1)
		copyPoly(sc.tB, sc.cB)
		copyPoly(sc.tA, sc.cA)
	}
	for j := 0; j < l; j++ {
		c := j * ev.p.window
		r.MulByMonomial(sc.cB, -c, sc.tB)
		r.MulByMonomial(sc.cA, -c, sc.tA)
		if shared == 0 {
			r.MulScalar(sc.tB, ev.nInv, sc.tB)
			r.MulScalar(sc.tA, ev.nInv, sc.tA)
		}
		trace(lit.LogN-shared, 1)
		r.AddScalarConst(sc.tB, ev.halfG[j], sc.tB)
		r.Forward(sc.tB, out.B[j])
		r.Forward(sc.tA, out.A[j])
		g := lit.Trace
		dig := sc.dig[:g.Digits]
		r.Decompose(sc.tA, g.LogB, g.Digits, g.Drop, dig)
		for _, d := range dig {
			r.Forward(d, d)
		}
		r.DotRows(dig, ev.ek.ss.B, ev.ek.ss.A, out.B[l+j], out.A[l+j])
		add(out.A[l+j], out.B[j], out.A[l+j])
	}
}

// TestFinishRGSWExact checks finishRGSW (trace, scheme switch, the rows)
// against finishRGSWRef bit for bit on random NTT-domain accumulators
// (every residue uniform in [0, Q_i), so the decompositions see every
// digit pattern) and on the extreme accumulators 0 and Q-1 everywhere, at
// STD128_CBS and at the toy sets (ℓ_c = 2 and 3).
func TestFinishRGSWExact(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyCBS, ToyCBS3, STD128_CBS} {
		k := keysFor(t, lit)
		r := k.p.ring
		rng := mrand.New(mrand.NewPCG(71, 72))
		sc, ref := NewScratch(k.p), NewScratch(k.p)
		out, want := k.ev.NewRGSW(), k.ev.NewRGSW()
		for round := range 4 {
			for _, acc := range []ring.Poly2{sc.accB, sc.accA} {
				for i, nt := range r.NTT {
					for s := range acc[i] {
						switch round {
						case 0:
							acc[i][s] = 0
						case 1:
							acc[i][s] = nt.Q - 1
						default:
							acc[i][s] = rng.Uint32N(nt.Q)
						}
					}
				}
			}
			// finishRGSW takes N^-1·ACC (blindRotateScaled), the
			// reference ACC.
			copyPoly(sc.accB, ref.accB)
			copyPoly(sc.accA, ref.accA)
			r.MulScalar(sc.accB, k.ev.nInv, sc.accB)
			r.MulScalar(sc.accA, k.ev.nInv, sc.accA)
			k.ev.finishRGSW(out, sc)
			finishRGSWRef(k.ev, want, ref)
			if !rgswEqual(out, want) {
				t.Fatalf("%s round %d: finishRGSW differs from the reference", lit.Name, round)
			}
		}
	}
}

func rgswEqual(a, b *RGSW) bool {
	for _, ps := range [][2][]ring.Poly2{{a.B, b.B}, {a.A, b.A}} {
		for j := range ps[0] {
			for i := range 2 {
				for s, x := range ps[0][j][i] {
					if ps[1][j][i][s] != x {
						return false
					}
				}
			}
		}
	}
	return true
}
