package cbs

import (
	"slices"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// blindRotate sets sc.accB, sc.accA (NTT domain) to RLWE(X^{-φ}·f) for the
// phase φ = b + Σ a_i s_i of sc.alpha: the blind rotation of a batch of one.
func (ev *Evaluator) blindRotate(sc *Scratch) { ev.blindRotateBatch(sc.self[:]) }

// blindRotateBatch is blindRotateScaled with the accumulators unscaled at
// the end: RLWE(X^{-φ}·f) itself, the form the tests check against their
// references (CBS and CBSBatch use the scaled form).
func (ev *Evaluator) blindRotateBatch(scs []*Scratch) {
	ev.blindRotateScaled(scs)
	for _, sc := range scs {
		ev.r.MulScalar(sc.accB, uint64(ev.p.ringN), sc.accB)
		ev.r.MulScalar(sc.accA, uint64(ev.p.ringN), sc.accA)
	}
}

// blindRotateUnfused is blindRotate as it was before ring.DotRowsMono2:
// two DotRows into scratch and four MulCoeffsAdd per step. It pins the
// fused step's output (TestBlindRotateFusedMatchesUnfused).
func (ev *Evaluator) blindRotateUnfused(sc *Scratch) {
	r := ev.r
	p := ev.p
	n := p.lit.LWEDim
	M := p.ringM
	g := p.lit.BR
	l := g.Digits
	r.MulByMonomial(ev.f, -int(sc.alpha[n]), sc.cB)
	r.Forward(sc.cB, sc.accB)
	for k := range sc.accA {
		clear(sc.accA[k])
	}
	dig := sc.dig[:2*l]
	mB, mA := r.NewPoly(), r.NewPoly() // the second product (the fused step needs no such buffer)
	mp, mm := r.NewPoly(), r.NewPoly() // the monomials (ev.mono holds them times N^-1·2^32)
	Q := r.Modulus()
	inv32, _ := ring.InvMod((1<<32)%Q, Q)
	unscale := ring.MulMod64(uint64(p.ringN), inv32, Q)
	for i := 0; i < n; i++ {
		a := int(sc.alpha[i])
		if a == 0 {
			continue
		}
		r.Inverse(sc.accB, sc.cB)
		r.Inverse(sc.accA, sc.cA)
		r.Decompose(sc.cB, g.LogB, l, g.Drop, dig[:l])
		r.Decompose(sc.cA, g.LogB, l, g.Drop, dig[l:])
		for _, d := range dig {
			r.Forward(d, d)
		}
		kp, km := ev.ek.brk[i][0], ev.ek.brk[i][1]
		r.DotRows(dig, kp.B, kp.A, sc.pB, sc.pA)
		r.DotRows(dig, km.B, km.A, mB, mA)
		r.MulScalar(ev.mono[(M-a)%M], unscale, mp)
		r.MulScalar(ev.mono[a], unscale, mm)
		r.MulCoeffsAdd(mp, sc.pB, sc.accB)
		r.MulCoeffsAdd(mp, sc.pA, sc.accA)
		r.MulCoeffsAdd(mm, mB, sc.accB)
		r.MulCoeffsAdd(mm, mA, sc.accA)
	}
}

// TestBlindRotateFusedMatchesUnfused checks that the blind rotation with
// the fused ring.DotRowsMono2 step gives bit for bit the accumulator of the
// unfused sequence, for fresh encryptions of both bits and for a phase
// vector with every a_i nonzero (all GINX steps run).
func TestBlindRotateFusedMatchesUnfused(t *testing.T) {
	k := keysFor(t, ToyCBS)
	p := k.p
	sc, ref := NewScratch(p), NewScratch(p)
	w := NewWideBit(p)
	n := p.lit.LWEDim
	for trial := 0; trial < 3; trial++ {
		if trial < 2 {
			if err := k.enc.Encrypt(trial == 1, w); err != nil {
				t.Fatal(err)
			}
			k.ev.toSmallLWE(w, sc)
		} else {
			for i := range sc.alpha[:n+1] {
				m := int32(p.ringM - 1)
				sc.alpha[i] = (sc.alpha[i]%m+m)%m + 1 // in [1, 2N)
			}
		}
		copy(ref.alpha, sc.alpha)
		k.ev.blindRotate(sc)
		k.ev.blindRotateUnfused(ref)
		for c := range 2 {
			if !slices.Equal(sc.accB[c], ref.accB[c]) || !slices.Equal(sc.accA[c], ref.accA[c]) {
				t.Fatalf("trial %d: fused blind rotation differs from the unfused one (residue %d)", trial, c)
			}
		}
	}
}

// BenchmarkBlindRotateFused times one STD128_CBS blind rotation with the
// fused step and with the unfused sequence, interleaved in every iteration
// (so that other load on the machine hits both alike), and reports both
// times and their ratio.
func BenchmarkBlindRotateFused(b *testing.B) {
	k := keysFor(b, STD128_CBS)
	sc := NewScratch(k.p)
	w := NewWideBit(k.p)
	if err := k.enc.Encrypt(true, w); err != nil {
		b.Fatal(err)
	}
	k.ev.toSmallLWE(w, sc)
	alpha := slices.Clone(sc.alpha)
	var fused, unfused time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(sc.alpha, alpha)
		t0 := time.Now()
		k.ev.blindRotate(sc)
		t1 := time.Now()
		copy(sc.alpha, alpha)
		k.ev.blindRotateUnfused(sc)
		t2 := time.Now()
		fused += t1.Sub(t0)
		unfused += t2.Sub(t1)
	}
	b.ReportMetric(float64(fused.Microseconds())/1e3/float64(b.N), "fused-ms")
	b.ReportMetric(float64(unfused.Microseconds())/1e3/float64(b.N), "unfused-ms")
	b.ReportMetric(float64(fused)/float64(unfused), "fused/unfused")
}
