package fhew

import (
	"math"
	"os"
	"testing"
)

// cmuxNoiseSample measures the error variance (circle²) of CMux outputs on
// fresh inputs after depth CMuxes in a chain (depth 1: one CMux of fresh
// encryptions): each step's data inputs are the chain's value and a fresh
// encryption, the selects alternate between encryptions of 1 and 0 so the
// chain's value is chosen every time. count chains are measured.
func cmuxNoiseSample(t *testing.T, k *testKit, count, depth int) float64 {
	t.Helper()
	sc := NewScratch(k.p)
	sels := []*Selector{k.ev.NewSelector(), k.ev.NewSelector()}
	var s2 float64
	q := float64(k.p.qks)
	for i := 0; i < count; i++ {
		// Fresh selects every few chains, so the samples see several RGSWs.
		if i%8 == 0 {
			for b, s := range sels {
				if err := k.ev.Select(k.enc.EncryptNew(b), s, sc); err != nil {
					t.Fatal(err)
				}
			}
		}
		bit := i & 1
		v := k.enc.EncryptNew(bit)
		for step := 0; step < depth; step++ {
			other := k.enc.EncryptNew(1 - bit)
			var err error
			if step%2 == 0 {
				err = k.ev.CMux(sels[1], v, other, v, sc)
			} else {
				err = k.ev.CMux(sels[0], other, v, v, sc)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		e := float64(k.sk.NoiseOf(v, bit)) / q
		s2 += e * e
	}
	return s2 / float64(count)
}

// checkCMuxNoise compares measured and modelled CMux output variances:
// the ratio must lie in the chi-square band of count samples (4.5 standard
// deviations of a sample variance, sqrt(2/count) relative) widened below
// by the model's one-sided terms (CMuxVar counts the select-1 rounding
// always; the lower path's digit variance B_g²/12 bounds the top digit's).
func checkCMuxNoise(t *testing.T, k *testKit, count int) {
	fresh := k.p.lit.Sigma * k.p.lit.Sigma / float64(k.p.qks) / float64(k.p.qks)
	added := k.p.CMuxAddedVariance()
	band := 4.5 * math.Sqrt(2/float64(count))
	m := k.p.CMuxNoise()
	t.Logf("model (circle σ): lift %.3g, product %.3g, lower %.3g; fresh %.3g", math.Sqrt(m.Lift), math.Sqrt(m.Product), math.Sqrt(m.Lower), math.Sqrt(fresh))
	for _, depth := range []int{1, 8} {
		got := cmuxNoiseSample(t, k, count, depth)
		want := fresh + float64(depth)*added
		r := got / want
		t.Logf("depth %d: σ %.4g (model %.4g), variance ratio %.3f, band [%.2f, %.2f]; one CMux σ in Q_ks units %.2f",
			depth, math.Sqrt(got), math.Sqrt(want), r, 0.75-band, 1+band, math.Sqrt(added)*float64(k.p.qks))
		if r > 1+band || r < 0.75-band {
			t.Errorf("depth %d: measured variance %.4g, model %.4g (ratio %.3f)", depth, got, want, r)
		}
	}
}

// TestCMuxNoise checks the CMux noise model against measured noise on the
// toys (single CMux and a chain of 8).
func TestCMuxNoise(t *testing.T) {
	for _, lit := range cmuxToys {
		t.Run(lit.Name, func(t *testing.T) { checkCMuxNoise(t, kitFor(t, lit), 400) })
	}
}

// TestCMux128 (opt-in: HCC_FHEW_CMUX_128=1) runs the MUX truth table and
// the noise check on STD128_T_CMUX, with the predicted select failure.
func TestCMux128(t *testing.T) {
	if os.Getenv("HCC_FHEW_CMUX_128") != "1" {
		t.Skip("set HCC_FHEW_CMUX_128=1 (128-bit keys: about a minute and ~400 MB)")
	}
	k := kitFor(t, STD128_T_CMUX)
	sc := NewScratch(k.p)
	sel := k.ev.NewSelector()
	out := NewCiphertext(k.p)
	for i := 0; i < 8; i++ {
		s, a, b := i&1, i>>1&1, i>>2&1
		if err := k.ev.Select(k.enc.EncryptNew(s), sel, sc); err != nil {
			t.Fatal(err)
		}
		if err := k.ev.CMux(sel, k.enc.EncryptNew(a), k.enc.EncryptNew(b), out, sc); err != nil {
			t.Fatal(err)
		}
		want := b
		if s == 1 {
			want = a
		}
		if got := k.decrypt(t, out); got != want {
			t.Errorf("CMux(%d, %d, %d) = %d", s, a, b, got)
		}
	}
	m := k.p.Noise()
	t.Logf("select failure: fresh input 2^%.1f, bootstrapped input 2^%.1f; gate after 8 CMuxes 2^%.1f",
		k.p.SelectFailureLog2(k.p.lit.Sigma*k.p.lit.Sigma/float64(k.p.qks*k.p.qks)), k.p.SelectFailureLog2(m.Output),
		log2GaussTail(k.p.margin()/math.Sqrt(2*(m.Output+8*k.p.CMuxAddedVariance())+m.KeySwitch+m.Rounding)))
	checkCMuxNoise(t, k, 200)
	checkWorkerCMux(t, k)
	checkMappedCMux(t, k, STD128_T, 4)
}

// TestSelectInputNoise measures the phase error Select hands to
// CBSFromLWE (weight P/2 and the key switch, under s) for fresh and for
// bootstrapped inputs, against the model SelectFailureLog2 uses:
// (P/2)²·Var(x) + KeySwitch.
func TestSelectInputNoise(t *testing.T) {
	k := kitFor(t, ToySignedCMux)
	p := k.p.params
	sc := NewScratch(k.p)
	m := k.p.Noise()
	q := float64(p.qks)
	w := float64(p.slots / 2)
	boot := NewCiphertext(k.p)
	for _, tc := range []struct {
		name string
		v    float64
		ct   func(bit int) *Ciphertext
	}{
		{"fresh", p.lit.Sigma * p.lit.Sigma / q / q, k.enc.EncryptNew},
		{"bootstrapped", m.Output, func(bit int) *Ciphertext { k.ev.Bootstrap(k.enc.EncryptNew(bit), boot, sc); return boot }},
	} {
		const count = 300
		var s2 float64
		for i := 0; i < count; i++ {
			bit := i & 1
			x := tc.ct(bit)
			sc.comb[0] = uint16(w) * x.B
			for j, a := range x.A {
				sc.comb[1+j] = uint16(w) * a
			}
			keySwitch(p, k.ek.ksk, sc.comb, sc.ks, sc.ksAcc, sc.ksOffs, &sc.ksSink)
			v := sc.ks[0]
			for j, a := range sc.ks[1 : p.n+1] {
				v += a * uint16(k.sk.s[j])
			}
			e := (int(v) - bit*p.qks/2) & (p.qks - 1)
			if e >= p.qks/2 {
				e -= p.qks
			}
			s2 += float64(e*e) / q / q
		}
		got, want := s2/count, w*w*tc.v+m.KeySwitch
		r := got / want
		t.Logf("%s: Select input σ %.2f (model %.2f) of Q_ks; variance ratio %.3f; SelectFailureLog2 %.1f",
			tc.name, math.Sqrt(got)*q, math.Sqrt(want)*q, r, k.p.SelectFailureLog2(tc.v))
		if band := 4.5 * math.Sqrt(2.0/count); r > 1+band || r < 1-band {
			t.Errorf("%s: variance ratio %.3f outside [%.2f, %.2f]", tc.name, r, 1-band, 1+band)
		}
	}
}
