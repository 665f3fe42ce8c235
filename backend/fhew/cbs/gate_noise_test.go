package cbs

import (
	"math"
	"os"
	"testing"
)

// rlwePhaseAll returns the centred phase B + A·z of a coefficient-domain
// RLWE, every coefficient.
func rlwePhaseAll(sk *SecretKey, c *RLWE) []int64 {
	r := sk.params.ring
	B, A := r.NewPoly(), r.NewPoly()
	r.Forward(c.B, B)
	r.Forward(c.A, A)
	return rlwePhase(sk, B, A)
}

// gateNoise measures gate mode's three noise terms on k and compares the
// sample variances with the model (ratio in [lo, hi]): the phase error at
// CBSFromLWE's blind rotation (input error of deviation 2^shift, so the
// rounding term is visible), the lift's error in the constant coefficient,
// and the noise one CMux adds (every 16th coefficient of phase(out) -
// phase(chosen input); the model per sample: CMuxDigits for a 0 select,
// CMux for a 1).
func gateNoise(t *testing.T, k *gateKeys, reps int, lo, hi float64) {
	p := k.p
	sc := NewScratch(p)
	sel := k.ev.NewRGSW()
	A, B, out := k.ev.NewRLWE(), k.ev.NewRLWE(), k.ev.NewRLWE()
	nm := p.Noise()
	const lq = 15
	shift := lq - (p.lit.LogN + 1)
	M := int64(p.ringM)
	Q := int64(p.q)
	var phase, in, lift, cmux stat
	cmuxModel := 0.0
	for rep := 0; rep < reps; rep++ {
		bit := rep & 1
		sb, sa, e := encryptLWE(k.sk, k.smp, bit, lq, math.Ldexp(1, shift))
		in.add(float64(e))
		if err := k.ev.CBSFromLWE(sb, sa, lq, sel, sc); err != nil {
			t.Fatal(err)
		}
		phi := int64(sc.alpha[p.lit.LWEDim])
		for i, s := range k.sk.s {
			phi += int64(sc.alpha[i]) * s
		}
		d := ((phi-int64(bit)*int64(p.ringN))%M + M) % M
		if d > M/2 {
			d -= M
		}
		phase.add(float64(d))
		lift.add(float64(liftErr(t, k, rep>>1&1, A, sc)))
		lift.add(float64(liftErr(t, k, rep>>2&1, B, sc)))
		pa, pb := rlwePhaseAll(k.sk, A), rlwePhaseAll(k.sk, B)
		if err := k.ev.CMux(sel, A, B, out, sc); err != nil {
			t.Fatal(err)
		}
		po := rlwePhaseAll(k.sk, out)
		want := pb
		cm := nm.CMuxDigits
		if bit == 1 {
			want, cm = pa, nm.CMux
		}
		for c := 0; c < p.ringN; c += 16 {
			cmux.add(float64(centre(po[c]-want[c], Q)))
			cmuxModel += cm
		}
	}
	for _, c := range []struct {
		name  string
		s     stat
		model float64
	}{
		{"select phase at BR (1/2N units)", phase, p.selectPhaseVar(in.variance(), lq)},
		{"lift (constant coefficient)", lift, p.LiftVar(len(k.zg), lq)},
		{"CMux added (every 16th coeff.)", cmux, cmuxModel / float64(cmux.n)},
	} {
		ratio := c.s.variance() / c.model
		t.Logf("%-34s n = %5d  measured σ 2^%.2f  model σ 2^%.2f  variance ratio %.3f",
			c.name, c.s.n, 0.5*math.Log2(c.s.variance()), 0.5*math.Log2(c.model), ratio)
		if ratio < lo || ratio > hi {
			t.Errorf("%s: measured/model variance %.3f outside [%.2f, %.2f]", c.name, ratio, lo, hi)
		}
	}
	t.Logf("model: CMuxVar σ 2^%.2f, LiftVar σ 2^%.2f (of Q = 2^%.1f); select failure at input σ 2^%d: 2^%.1f",
		0.5*math.Log2(p.CMuxVar()), 0.5*math.Log2(p.LiftVar(len(k.zg), lq)), math.Log2(float64(p.q)),
		shift, p.SelectFailureLog2(math.Ldexp(1, 2*shift), lq))
}

// TestGateNoiseMeasured: 400 samples of the select phase and 800 lifts
// (independent: the χ² band for n = 400 at about 4σ is [0.72, 1.28]), and
// 12800 CMux coefficients (from 400 products; neighbours share digits, so
// the band is the same).
func TestGateNoiseMeasured(t *testing.T) {
	k := gateKeysFor(t, ToyCBS, 512, 15)
	gateNoise(t, k, 400, 0.72, 1.28)
}

// TestSelectFailureMeasured drives CBSFromLWE at an input noise where the
// model predicts a failure rate near 10% and compares the count of broken
// RGSW outputs (a row off by more than g_0/8) with the binomial band.
func TestSelectFailureMeasured(t *testing.T) {
	k := gateKeysFor(t, ToyCBS, 512, 15)
	p := k.p
	const lq, trials = 15, 400
	sigma := math.Ldexp(float64(p.half)/1.7, lq-(p.lit.LogN+1))
	pf := math.Exp2(p.SelectFailureLog2(sigma*sigma, lq))
	sc := NewScratch(p)
	g := k.ev.NewRGSW()
	fails := 0
	for rep := 0; rep < trials; rep++ {
		bit := rep & 1
		sb, sa, _ := encryptLWE(k.sk, k.smp, bit, lq, sigma)
		if err := k.ev.CBSFromLWE(sb, sa, lq, g, sc); err != nil {
			t.Fatal(err)
		}
		if checkRGSW(t, &testKeys{p: p, sk: k.sk}, g, bit) > float64(p.gadgetValue(p.lit.CBS, 0))/8 {
			fails++
		}
	}
	mean := trials * pf
	sd := math.Sqrt(mean * (1 - pf))
	t.Logf("input σ %.0f (2^%d units): %d of %d failed, model %.1f ± %.1f (p = 2^%.2f)", sigma, lq, fails, trials, mean, sd, math.Log2(pf))
	if math.Abs(float64(fails)-mean) > 4*sd+1 {
		t.Fatalf("%d failures, model %.1f ± %.1f", fails, mean, sd)
	}
}

func TestGateNoiseModel(t *testing.T) {
	p, err := NewParams(STD128_CBS_T)
	if err != nil {
		t.Fatal(err)
	}
	// Monotone in the input noise; certain failure outside the range.
	prev := math.Inf(-1)
	for v := 1.0; v < 1e8; v *= 3 {
		f := p.SelectFailureLog2(v, 15)
		if f < prev || f > 0 {
			t.Fatalf("SelectFailureLog2(%v) = %v after %v", v, f, prev)
		}
		prev = f
	}
	if p.SelectFailureLog2(1, 11) != 0 || p.SelectFailureLog2(1, 17) != 0 || p.SelectFailureLog2(math.NaN(), 15) != 0 {
		t.Fatal("out-of-range select not certain failure")
	}
	// The CMux's and lift's noise relative to a gate ciphertext's unit
	// Q/2^15: the CMux's (the CBS gadget's 37 dropped bits) is of a gate
	// output's order, far inside the P = 4 margin Q/8; the lift's is far
	// below one unit.
	unit := float64(p.Q()) / (1 << 15)
	if r := math.Sqrt(p.CMuxVar()) / unit; r > 4096.0/64 {
		t.Fatalf("CMux σ %.3g gate units", r)
	}
	if r := math.Sqrt(p.LiftVar(1024, 15)) / unit; r > 1e-3 {
		t.Fatalf("lift σ %.3g gate units", r)
	}
	if p.LiftVar(1024, 15) <= p.LiftVar(512, 15) {
		t.Fatal("LiftVar not increasing in N_g")
	}
	t.Logf("STD128_CBS_T: CMux σ = %.2f, lift σ = %.2g gate units (Q/2^15); select failure at input σ 8, 16, 32: 2^%.0f, 2^%.0f, 2^%.0f",
		math.Sqrt(p.CMuxVar())/unit, math.Sqrt(p.LiftVar(1024, 15))/unit,
		p.SelectFailureLog2(64, 15), p.SelectFailureLog2(256, 15), p.SelectFailureLog2(1024, 15))
}

// TestGateNoise128 is TestGateNoiseMeasured on STD128_CBS_T with N_g =
// 1024 (fhew's STD128_T), 200 rounds. Opt-in (keys ~0.3 GB, about a
// minute):
//
//	HCC_CBS_128=1 go test ./backend/fhew/cbs -run GateNoise128 -v
func TestGateNoise128(t *testing.T) {
	if os.Getenv("HCC_CBS_128") != "1" {
		t.Skip("set HCC_CBS_128=1 to measure the STD128_CBS_T gate-mode noise")
	}
	k := gateKeysFor(t, STD128_CBS_T, 1024, 15)
	gateNoise(t, k, 200, 0.6, 1.4)
}
