package fhew

import (
	"math"
)

// Noise of the CMux gadget (cmux.go), in fhew's circle units (variance of
// the phase error over the modulus², noise.go).
//
//   - Select sees (P/2)²·Var(x) plus the LWE key switch N_g -> n (as a
//     gate's sum) and fails when CBSFromLWE's rounded phase error leaves
//     its window: cbs.Params.SelectFailureLog2 of that variance in Q_ks².
//   - CMux does not decide, so it cannot fail; its output carries the
//     chosen input's noise plus what it adds (CMuxAddedVariance): the lift
//     of a − b (cbs LiftVar, Q_c² units; only a select of 1 keeps it, the
//     model always counts it), the external product (cbs CMuxVar, Q_c²),
//     and the lower path — the mod switch Q_c -> Q_g, (1 + N_c·Var(z_c))/12
//     in Q_g², one R_{N_g} × RLWE' product per part (d_g·N_g·B_g²/12·σ²
//     plus the dropped digit's N_g·B_g^2dropped/12·(Var(z_c) + 1/N_g),
//     noise.go's ⊙), and the mod switch Q_g -> Q_ks, (1 + N_g·Var(z_g))/12
//     in Q_ks². The consumers (a gate bootstrap, a Select, the next CMux)
//     see out var = max(Var(a), Var(b)) + CMuxAddedVariance; which input
//     is chosen is secret, so the model takes the larger.

// CMuxNoise is the CMux gadget's noise model (circle² units); zero on sets
// without the gadget.
type CMuxNoise struct {
	// Lift is the variance a lift into the CBS ring adds.
	Lift float64
	// Product is the variance the CMux's external product adds.
	Product float64
	// Lower is the variance the lower path adds (both mod switches and the
	// ring key switches).
	Lower float64
}

// Added is the variance one CMux adds to its noisier data input.
func (m CMuxNoise) Added() float64 { return m.Lift + m.Product + m.Lower }

// CMuxNoise returns the set's CMux noise model (zero without the gadget).
func (p Params) CMuxNoise() CMuxNoise {
	if !p.HasCMux() {
		return CMuxNoise{}
	}
	cp := p.cmux.cp
	Qc := float64(cp.Q())
	Qg := float64(p.Q)
	qks := float64(p.qks)
	N, Nc := float64(p.N), float64(cp.N())
	varZ := SecretTernary.variance(0) // z_c and z_g are ternary (validated)
	Bg := math.Exp2(float64(p.logBg))
	sigma2 := p.lit.Sigma * p.lit.Sigma
	dot := float64(p.dg) * N * Bg * Bg / 12 * sigma2
	if p.dropped > 0 {
		low := math.Exp2(float64(p.dropped * p.logBg))
		dot += N * low * low / 12 * (varZ + 1/N)
	}
	return CMuxNoise{
		Lift:    cp.LiftVar(p.N, uint(p.logQKS)) / (Qc * Qc),
		Product: cp.CMuxVar() / (Qc * Qc),
		Lower: (1+Nc*varZ)/12/(Qg*Qg) + float64(p.cmux.parts)*dot/(Qg*Qg) +
			(1+N*varZ)/12/(qks*qks),
	}
}

// CMuxAddedVariance is CMuxNoise().Added(): what one CMux adds to the
// variance of its noisier data input (circle²).
func (p Params) CMuxAddedVariance() float64 { return p.CMuxNoise().Added() }

// SelectFailureLog2 returns log2 of the probability that Select of a
// ciphertext whose error has variance inVar (circle²) yields the wrong
// select: weight P/2, the key switch, CBSFromLWE's window. 0 (certain
// failure) on sets without the gadget.
func (p Params) SelectFailureLog2(inVar float64) float64 {
	if !p.HasCMux() {
		return 0
	}
	w := float64(p.slots / 2)
	qks := float64(p.qks)
	v := (w*w*inVar + p.Noise().KeySwitch) * qks * qks
	return p.cmux.cp.SelectFailureLog2(v, uint(p.logQKS))
}
