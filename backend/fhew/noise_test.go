package fhew

import (
	"math"
	"testing"
)

func TestNoiseModelReport(t *testing.T) {
	for _, lit := range []ParamsLiteral{STD128_LMKCDEY_G, STD128_T, STD128_GINX, STD128_LOWFAIL_T, STD128_LOWFAIL3_T, ToySigned, ToyGaussian, ToyGINX, ToySlots8} {
		p, err := NewParams(lit)
		if err != nil {
			t.Fatal(err)
		}
		m := p.Noise()
		t.Logf("%-18s br σ=%.5f out σ=%.5f ks σ=%.5f round σ=%.5f autos=%.1f  AND %.1f  XOR %.1f MAJ %.1f", lit.Name,
			math.Sqrt(m.BlindRotation), math.Sqrt(m.Output), math.Sqrt(m.KeySwitch), math.Sqrt(m.Rounding), m.ExpectedAutomorphisms,
			p.GateFailureLog2([]int{1, 1}), p.GateFailureLog2([]int{2, 2}), p.GateFailureLog2([]int{1, 1, 1}))
	}
}

// TestNoiseWithinModel measures the output noise of bootstraps and the
// noise a two-input gate's blind rotation sees, and checks both against the
// model: the measured standard deviation must lie within [0.5, 1.3] of the
// prediction (the sample std of 100+ draws is within ~15% of the true one).
func TestNoiseWithinModel(t *testing.T) {
	cases := []struct {
		lit   ParamsLiteral
		count int
	}{{ToySigned, 150}, {ToyGaussian, 150}, {ToyGINX, 150}, {ToySlots8, 100}, {STD128_LMKCDEY_G, 40}}
	for _, c := range cases {
		t.Run(c.lit.Name, func(t *testing.T) {
			k := kitFor(t, c.lit)
			got, err := MeasureNoise(k.sk, k.ev, c.count)
			if err != nil {
				t.Fatal(err)
			}
			m := k.p.Noise()
			wantOut := math.Sqrt(m.Output)
			wantGate := math.Sqrt(2*m.Output + m.KeySwitch + m.Rounding)
			t.Logf("output σ %.5f (model %.5f), gate σ %.5f (model %.5f), log2 failure %.1f (model %.1f)",
				got.OutputStd, wantOut, got.GateStd, wantGate, got.Log2Failure, k.p.GateFailureLog2([]int{1, 1}))
			check := func(what string, got, want float64) {
				if r := got / want; r < 0.5 || r > 1.3 {
					t.Errorf("%s σ = %.5f, model %.5f (ratio %.2f)", what, got, want, r)
				}
			}
			check("output", got.OutputStd, wantOut)
			check("gate", got.GateStd, wantGate)
		})
	}
}

// TestKeySwitchNoise key-switches fresh N-dimensional encryptions and checks
// the error of the result under s against N·d_ks·σ² (plus the fresh error).
func TestKeySwitchNoise(t *testing.T) {
	k := kitFor(t, ToySigned)
	p := k.p.params
	sc := NewScratch(k.p)
	var s2 float64
	const count = 300
	for i := 0; i < count; i++ {
		bit := i & 1
		c := k.enc.EncryptNew(bit)
		sc.comb[0] = c.B
		copy(sc.comb[1:], c.A)
		keySwitch(p, k.ek.ksk, sc.comb, sc.ks, sc.ksAcc, sc.ksOffs, &sc.ksSink)
		v := sc.ks[0]
		for j, a := range sc.ks[1 : p.n+1] {
			v += a * uint16(k.sk.s[j])
		}
		e := (int(v) - bit*p.qks/4) & (p.qks - 1)
		if e >= p.qks/2 {
			e -= p.qks
		}
		s2 += float64(e * e)
	}
	got := math.Sqrt(s2 / count)
	want := math.Sqrt(float64(p.N*p.dks)*p.lit.Sigma*p.lit.Sigma + p.lit.Sigma*p.lit.Sigma)
	t.Logf("key switching σ = %.1f, model %.1f", got, want)
	if got > 1.2*want || got < 0.6*want {
		t.Fatalf("key switching σ = %.1f outside [0.6, 1.2]·%.1f", got, want)
	}
}

// TestKeySwitchVectorMatchesSWAR checks the AVX-512BW row summation against
// the portable SWAR loop bit for bit.
func TestKeySwitchVectorMatchesSWAR(t *testing.T) {
	if !hasKSVec {
		t.Skip("no AVX-512BW")
	}
	k := kitFor(t, ToySigned)
	p := k.p.params
	sc := NewScratch(k.p)
	rng := newPRNG(seedOf("ksvec"))
	vec := make([]uint16, p.n+1)
	for trial := 0; trial < 20; trial++ {
		rng.uniform16(sc.comb)
		keySwitch(p, k.ek.ksk, sc.comb, vec, sc.ksAcc, sc.ksOffs, &sc.ksSink)
		hasKSVec = false
		keySwitch(p, k.ek.ksk, sc.comb, sc.ks, sc.ksAcc, sc.ksOffs, &sc.ksSink)
		hasKSVec = true
		for i := range vec {
			if vec[i] != sc.ks[i] {
				t.Fatalf("trial %d: entry %d: vector %d, SWAR %d", trial, i, vec[i], sc.ks[i])
			}
		}
	}
}

// TestModSwitchRounding checks the rounding to M: every α odd for the
// automorphism methods, and the rounding error's spread as predicted.
func TestModSwitchRounding(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyGaussian, ToyGINX} {
		k := kitFor(t, lit)
		p := k.p.params
		sc := NewScratch(k.p)
		rng := newPRNG(seedOf("ms"))
		var s2 float64
		const count = 300
		for i := 0; i < count; i++ {
			// A random n-dimensional LWE at Q_ks with known exact phase.
			rng.uniform16(sc.ks)
			var exact uint16
			for j, a := range sc.ks[1 : p.n+1] {
				exact += a * uint16(k.sk.s[j])
			}
			exact = (exact + sc.ks[0]) & uint16(p.qks-1)
			beta := roundToBR(p, sc)
			phase := beta
			for j, a := range sc.alpha {
				if p.lit.Method.usesAutomorphisms() && a&1 == 0 {
					t.Fatalf("%s: α_%d = %d is even", lit.Name, j, a)
				}
				phase += int(a) * int(k.sk.s[j])
			}
			d := float64(phase)/float64(p.M) - float64(exact)/float64(p.qks)
			d -= math.Round(d)
			s2 += d * d
		}
		got := math.Sqrt(s2 / count)
		want := math.Sqrt(k.p.Noise().Rounding)
		t.Logf("%s: rounding σ = %.5f, model %.5f", lit.Name, got, want)
		if got > 1.3*want || got < 0.6*want {
			t.Fatalf("%s: rounding σ = %.5f outside [0.6, 1.3]·%.5f", lit.Name, got, want)
		}
	}
}
