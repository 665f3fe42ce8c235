package fhew

import (
	"math"
	"slices"
	"testing"
)

// NoiseSums turns sums into the measurement's standard deviations, and
// FailureLog2AtStd is the two-sided Gaussian tail beyond the margin 1/(2P).
func TestNoiseSumsMeasurement(t *testing.T) {
	p, err := NewParams(ToySigned)
	if err != nil {
		t.Fatal(err)
	}
	var s NoiseSums
	s.Add(NoiseSums{Samples: 1, Output2: 2 * 0.01, Gate2: 0.04, Automorphisms: 3, Bootstraps: 2})
	s.Add(NoiseSums{Samples: 3, Output2: 6 * 0.01, Gate2: 3 * 0.04, Automorphisms: 5, Bootstraps: 6})
	if s.Samples != 4 || s.Automorphisms != 8 || s.Bootstraps != 8 {
		t.Fatalf("sums %+v", s)
	}
	m := s.Measurement(p)
	if math.Abs(m.OutputStd-0.1) > 1e-12 || math.Abs(m.GateStd-0.2) > 1e-12 || m.Samples != 4 || m.Log2Failure != p.FailureLog2AtStd(m.GateStd) {
		t.Fatalf("measurement %+v", m)
	}
	// P = 4: the margin is 1/8, so σ = 1/8 fails with P(|X| > σ) = erfc(1/√2).
	if got, want := p.FailureLog2AtStd(0.125), math.Log2(math.Erfc(1/math.Sqrt2)); math.Abs(got-want) > 1e-12 {
		t.Fatalf("FailureLog2AtStd(1/8) = %g, want %g", got, want)
	}
	if (NoiseSums{}).Measurement(p) != (NoiseMeasurement{}) {
		t.Fatal("empty sums give a non-zero measurement")
	}
}

func TestSumNoise(t *testing.T) {
	k := kitFor(t, ToySigned)
	calls := 0
	a, err := SumNoise(k.sk, k.ev, 6, func() { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 6 || a.Samples != 6 || a.Bootstraps != 12 || a.Automorphisms <= 0 || a.Output2 <= 0 || a.Gate2 <= 0 {
		t.Fatalf("sums %+v after %d calls", a, calls)
	}
	// The gate noise stays within the model (as TestNoiseWithinModel, with
	// a wide band for only 6 samples).
	m := a.Measurement(k.p)
	model := math.Sqrt(2*k.p.Noise().Output + k.p.Noise().KeySwitch + k.p.Noise().Rounding)
	if m.GateStd < 0.2*model || m.GateStd > 3*model {
		t.Fatalf("gate σ %.5f, model %.5f", m.GateStd, model)
	}
	if z, err := SumNoise(k.sk, k.ev, 0, nil); err != nil || z != (NoiseSums{}) {
		t.Fatalf("empty share: %+v, %v", z, err)
	}
	if _, err := SumNoise(k.sk, k.ev, -1, nil); err == nil {
		t.Fatal("negative count accepted")
	}
	other := kitFor(t, ToyGINX)
	if _, err := SumNoise(k.sk, other.ev, 1, nil); err == nil {
		t.Fatal("SumNoise accepted a key of another parameter set")
	}
	if _, err := MeasureNoise(k.sk, k.ev, 0); err == nil {
		t.Fatal("MeasureNoise accepted zero samples")
	}
}

// BlindRotationKernels runs exactly externalProduct with the RGSW key of
// coefficient 0 and the automorphism ψ_g with ak_g (addressed here by
// meaning, AutoKey(g)), without allocating.
func TestBlindRotationKernels(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToySigned, ToyGaussian, ToyGINX} {
		k := kitFor(t, lit)
		p := k.p
		sc := NewScratch(p)
		ext, auto := k.ev.BlindRotationKernels(sc)
		if (auto == nil) != (lit.Method == MethodGINX) {
			t.Fatalf("%s: automorphism kernel %v for method %s", lit.Name, auto != nil, lit.Method)
		}
		ref := NewScratch(p)
		copy(ref.accB, sc.accB)
		copy(ref.accA, sc.accA)
		ext()
		externalProduct(p.params, ref.accB, ref.accA, k.ek.BlindRotationKey(0, false), ref)
		if !slices.Equal(sc.accB, ref.accB) || !slices.Equal(sc.accA, ref.accA) {
			t.Fatalf("%s: external product differs from the reference", lit.Name)
		}
		if auto != nil {
			before := slices.Clone(sc.accB)
			auto()
			automorphism(p.params, ref.accB, ref.accA, p.autoIndex[1], k.ek.AutoKey(p.autoGen), ref)
			if !slices.Equal(sc.accB, ref.accB) || !slices.Equal(sc.accA, ref.accA) || slices.Equal(sc.accB, before) {
				t.Fatalf("%s: automorphism differs from the reference", lit.Name)
			}
		}
		if n := testing.AllocsPerRun(5, ext); n != 0 {
			t.Errorf("%s: external product allocates %.0f times", lit.Name, n)
		}
		if auto != nil {
			if n := testing.AllocsPerRun(5, auto); n != 0 {
				t.Errorf("%s: automorphism allocates %.0f times", lit.Name, n)
			}
		}
	}
}
