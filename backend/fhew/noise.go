package fhew

import (
	"fmt"
	"math"
)

// Noise model (section 4.1.2 of the seed paper, adapted to this pipeline).
// Variances are in units of the whole circle (a modulus scaled to 1), so
// the decision margin of a gate is 1/(2P), 1/8 at the default P = 4 (d/(2P)
// when its weights are all multiples of d, parity.go).
//
//   - One ⊙ (R × RLWE' product) adds σ_⊙² = d_g·N·B_g²/12·σ² (Q² units),
//     plus, with the dropped lowest digit, N·B_g²/12·Var(z) for the part of
//     the multiplicand that is rounded away (it multiplies z in the a half).
//   - An external product is two ⊙, an automorphism one; GINX's step is
//     8 ⊙ (two products, each times a monomial minus one).
//   - Mod switch Q -> Q_ks rounds: (1 + N·Var(z))/12 in Q_ks² units.
//   - Key switching adds N·d_ks·σ² (Q_ks² units; zero digits add none, which
//     the model ignores).
//   - A gate key-switches its sum once, then rounds it to M: (1 + n·Var(s))/12
//     in M² units, or n·Var(s)/3 + 1/12 when rounding α to odd residues.

// NoiseModel is the predicted noise of a parameter set.
type NoiseModel struct {
	// BlindRotation is the variance of the blind-rotation output (circle²).
	BlindRotation float64
	// Output is the variance of a bootstrapped gate-level ciphertext: blind
	// rotation and mod switch to Q_ks.
	Output float64
	// KeySwitch is the variance the LWE key switch adds to a gate's sum.
	KeySwitch float64
	// Rounding is the variance the rounding to the blind-rotation modulus M
	// adds to a gate's sum.
	Rounding float64
	// ExpectedAutomorphisms is the average number of automorphisms per blind
	// rotation (Theorem 1 for LMKCDEY, Theorem 2 for Signed; 0 for GINX).
	ExpectedAutomorphisms float64
}

// Noise returns the set's noise model.
func (p Params) Noise() NoiseModel {
	N, n := float64(p.N), float64(p.n)
	Q := float64(p.Q)
	Bg := math.Exp2(float64(p.logBg))
	sigma2 := p.lit.Sigma * p.lit.Sigma
	varZ := p.lit.RLWESecret.variance(p.lit.Sigma)
	varS := p.lit.LWESecret.variance(p.lit.Sigma)
	dot := float64(p.dg) * N * Bg * Bg / 12 * sigma2
	if p.dropped > 0 {
		low := math.Exp2(float64(p.dropped * p.logBg))
		dot += N * low * low / 12 * (varZ + 1.0/N)
	}
	var m NoiseModel
	w := float64(p.window)
	M := float64(p.M)
	var products float64
	switch p.lit.Method {
	case MethodSigned:
		m.ExpectedAutomorphisms = M / 4 * (1 - (1-1/w)*math.Exp(-4*n/M))
		products = 2*n + m.ExpectedAutomorphisms
	case MethodLMKCDEY:
		m.ExpectedAutomorphisms = M/2*(1-(1-1/w)*math.Exp(-2*n/M)) + 1
		products = 2*n + m.ExpectedAutomorphisms
	default:
		products = 8 * n * (1 - 1/M)
	}
	m.BlindRotation = products * dot / (Q * Q)
	qks := float64(p.qks)
	m.Output = m.BlindRotation + (1+N*varZ)/12/(qks*qks)
	m.KeySwitch = N * float64(p.dks) * sigma2 / (qks * qks)
	if p.lit.Method.usesAutomorphisms() {
		m.Rounding = (n*varS/3 + 1.0/12) / (M * M)
	} else {
		m.Rounding = (1 + n*varS) / 12 / (M * M)
	}
	return m
}

// margin is the decision margin 1/(2P) of the circle.
func (p *params) margin() float64 { return 0.5 / float64(p.slots) }

// GateFailureLog2 returns log2 of the predicted probability that a
// bootstrap on Σ w_i·x_i (inputs fresh from bootstrapping) decides wrongly.
// It is SumFailureLog2: every evaluation shifts the phase when the weights
// allow a wider margin, so there is one model (XOR at P = 4 on 2, 2 has
// margin 1/4, not 1/8).
func (p Params) GateFailureLog2(weights []int) float64 { return p.SumFailureLog2(weights) }

// log2GaussTail returns log2 P(|X| > t·σ) for a centred Gaussian X, stable
// far into the tail.
func log2GaussTail(t float64) float64 {
	x := t / math.Sqrt2
	if x < 20 {
		return math.Log2(math.Erfc(x))
	}
	// erfc(x) ≈ exp(-x²)/(x·√π)·(1 - 1/(2x²))
	return (-x*x - math.Log(x*math.Sqrt(math.Pi)) + math.Log(1-1/(2*x*x))) / math.Ln2
}

// NoiseMeasurement is the measured noise of a key set (Table 3's last
// columns), in circle units.
type NoiseMeasurement struct {
	// Samples is the number of gates measured.
	Samples int
	// OutputStd is the standard deviation of a bootstrapped ciphertext's error.
	OutputStd float64
	// GateStd is the standard deviation of the error a two-input gate's
	// blind rotation sees (two bootstrapped inputs summed, key-switched and
	// rounded to M): the quantity that must stay below the margin 1/(2P).
	GateStd float64
	// Log2Failure is log2 P(|error| > 1/(2P)) for a Gaussian with GateStd.
	Log2Failure float64
}

// MeasureNoise bootstraps 2·count fresh encryptions under sk and measures
// the output noise, then forms count two-input sums of those outputs and
// measures the error at the blind-rotation input, decrypting with sk
// (SumNoise, then NoiseSums.Measurement).
func MeasureNoise(sk *SecretKey, ev *Evaluator, count int) (NoiseMeasurement, error) {
	if count < 1 {
		return NoiseMeasurement{}, fmt.Errorf("fhew: need at least one noise sample, got %d", count)
	}
	ns, err := SumNoise(sk, ev, count, nil)
	if err != nil {
		return NoiseMeasurement{}, err
	}
	return ns.Measurement(ev.params), nil
}
