package cbs

import "math"

// Gate mode's noise model (gate.go), in the style of noise.go: variances
// from the parameters alone, checked against measurements by
// TestGateNoiseMeasured (ToyCBS) and TestGateNoise128 (STD128_CBS_T,
// opt-in).

// CMuxVar returns the variance (Q units²) one CMux adds to the chosen
// input's noise: the digits of a - b, uniform mod Q (a lifted ciphertext's
// polynomials come out of a key switch, so both are uniform), times the
// CBS output's row noise, plus the dropped bits' rounding times 1 + z,
// which only a select of 1 incurs and the model always counts (an upper
// bound; Noise().CMuxDigits is the select-0 value). It is the vertical
// packing's CMux (Noise().CMux): CBSFromLWE's rows are CBS's.
func (p Params) CMuxVar() float64 { return p.Noise().CMux }

// LiftVar returns the variance (Q units²) Lift adds to the constant
// coefficient of a gate ciphertext of dimension ng modulo 2^logQg, beyond
// its own noise scaled by Q/2^logQg: the rounding of the raise (each of
// the ng + 1 entries off by a uniform fraction, var (1 - 4^-k)/12, the ng
// of A times a ternary z_g coefficient) and the ring key switch with the
// lift key: ng digit columns of A' (the others are zero) times the key's
// errors, and A's dropped bits times Z_g.
func (p Params) LiftVar(ng int, logQg uint) float64 {
	g := p.liftGadget()
	s2 := p.lit.Sigma * p.lit.Sigma
	fng := float64(ng)
	raise := (1 - math.Ldexp(1, -2*int(logQg))) / 12 * (1 + ternaryVar*fng)
	ks := fng*s2*digitVar(g, float64(p.q)) + roundVar(g)*ternaryVar*fng
	return raise + ks
}

// selectPhaseVar returns the variance, in units of 1/2N, of CBSFromLWE's
// phase error at the blind rotation when the input's phase error has
// variance phaseVar (2^logQ units²): the input scaled by 2N/2^logQ plus
// the rounding of the n + 1 entries to 2N (uniform on 2^shift values,
// shift = logQ - log 2N; none when logQ = log 2N), a_i's times s_i.
func (p Params) selectPhaseVar(phaseVar float64, logQ uint) float64 {
	shift := int(logQ) - (p.lit.LogN + 1)
	sq := math.Ldexp(1, -shift)
	round := (1 - math.Ldexp(1, -2*shift)) / 12 * (1 + ternaryVar*float64(p.lit.LWEDim))
	return phaseVar*sq*sq + round
}

// SelectFailureLog2 returns log2 of the probability that CBSFromLWE of an
// input modulo 2^logQ whose phase error has variance phaseVar (2^logQ
// units²) fails: the phase error after the rounding to 2N leaves the
// window [-h, h) of the test polynomial (Gaussian tail, as
// CBSFailureLog2). A logQ outside CBSFromLWE's range gives 0 (certain).
func (p Params) SelectFailureLog2(phaseVar float64, logQ uint) float64 {
	if logQ < uint(p.lit.LogN+1) || logQ > 16 || !(phaseVar >= 0) {
		return 0
	}
	sigma := math.Sqrt(p.selectPhaseVar(phaseVar, logQ))
	return math.Min(0, log2Erfc((float64(p.half)-0.5)/(sigma*math.Sqrt2)))
}
