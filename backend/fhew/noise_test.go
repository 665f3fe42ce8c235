package fhew

import (
	"math"
	"testing"
)

func TestNoiseModelReport(t *testing.T) {
	for _, lit := range []ParamsLiteral{STD128_LMKCDEY_G, STD128_T, STD128_GINX, STD128_LOWFAIL_T, ToySigned, ToyGaussian, ToyGINX} {
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

// measureOutputNoise bootstraps count fresh encryptions and returns the
// standard deviation of the output noise in circle units.
func measureOutputNoise(t testing.TB, k *testKit, count int) float64 {
	sc := NewScratch(k.p)
	out := NewCiphertext(k.p)
	var s2 float64
	for i := 0; i < count; i++ {
		bit := i & 1
		k.ev.Bootstrap(k.enc.EncryptNew(bit), out, sc)
		e := float64(k.sk.NoiseOf(out, bit)) / float64(k.p.qks)
		s2 += e * e
	}
	return math.Sqrt(s2 / float64(count))
}

func TestNoiseExplore(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToySigned, ToyGINX, STD128_LMKCDEY_G} {
		k := kitFor(t, lit)
		got := measureOutputNoise(t, k, 100)
		t.Logf("%s measured out σ=%.5f model %.5f", lit.Name, got, math.Sqrt(k.p.Noise().Output))
	}
}
