package bgv

import (
	"errors"
	"fmt"
	"math"
)

// Noise estimates (GHS 3.3, dynamic noise management).
//
// Every ciphertext carries a NoiseEstimate: LogVar, log2 of the variance of
// the coefficients of its noise ν = μ + 2e (the phase Σ c_i·s^i centred mod
// Q_t), under the heuristic that coefficients behave as independent centred
// variables, and Power, a correction for the heavy tails that that heuristic
// misses:
//
//   - sums add variances; automorphisms keep them (they permute the
//     canonical values);
//   - a product is a cyclic convolution of length m: variance m·v_1·v_2 for
//     independent noises. But noises are not independent: the rounding of
//     every modulus switch is δ_0/p + (δ_1/p)·s, so noises share powers of
//     the secret s, and a square shares all of its factor. In the canonical
//     embedding the product is pointwise, and for Gaussian canonical values
//     E|x|^(2k) = k!·(E|x|²)^k, so a product of noises that carry powers a
//     and b of shared Gaussian factors has variance C(a+b, a) times the
//     independent value (C(2a, a) for a square). Power counts those factors:
//     0 for fresh noise (independent of other ciphertexts' as measured: the
//     shared public-key error and s terms do not show at m = 257), 1 for
//     rounding noise, a+b for products, 2·max(a, 1) for squares; modulus
//     switching resets it to 1 when the rounding term dominates. The factor is capped
//     at ln(φ(m))^min(a, b), the ratio max_ζ |s(ζ)|² / E|s(ζ)|² that bounds
//     the growth once the largest canonical value dominates. Measured at
//     m = 257 without this correction the estimate fell behind by 1-4 bits
//     per level on chains of products and by 12 bits after six squarings;
//   - dividing by p (modulus switching, key switching's division by P) gives
//     v/p² plus the rounding term ⟨δ, s⟩/p with δ/p uniform in [-1, 1):
//     1/3 + 2·φ(m)·(1/3)·(2/3) (see floorLogVar; the 2 accounts for the
//     reduction mod Φ_m, which subtracts the top coefficient of the
//     convolution from all others).
//
// The largest of φ(m) Gaussian coefficients stays below z·sqrt(2v) with
// z = sqrt(2·ln(2φ(m)·2^30)) except with probability about 2^-30
// (NoiseBound; the factor 2 covers the reduction mod Φ_m). Measured maxima
// are about sqrt(2·ln φ(m))·σ, so the bound is one to three bits above them.

// NoiseEstimate is a ciphertext's noise estimate (see above).
type NoiseEstimate struct {
	// LogVar is log2 of the estimated variance of the noise coefficients
	// (-Inf for a noiseless ciphertext).
	LogVar float64
	// Power is the number of shared Gaussian factors in the noise (>= 1 once
	// there is noise), which governs the heavy-tail correction of products.
	Power int
}

// errorVariance is the variance of the error distribution (centred binomial).
const errorVariance = errorBinomial / 2.0

// noiseZ is z of NoiseBound for dimension n.
func noiseZ(n int) float64 { return math.Sqrt(2 * (math.Log(2*float64(n)) + 30*math.Ln2)) }

// NoiseBound returns log2 of the estimated bound on the largest coefficient
// of ct's noise (comparable with Decryptor.NoiseBits).
func (pr *Params) NoiseBound(ct *Ciphertext) float64 { return pr.boundOf(ct.Noise.LogVar) }

func (pr *Params) boundOf(logVar float64) float64 {
	return 0.5*(logVar+1) + math.Log2(noiseZ(pr.n))
}

// addNoise is the estimate of a sum.
func addNoise(a, b NoiseEstimate) NoiseEstimate {
	return NoiseEstimate{LogVar: logAdd(a.LogVar, b.LogVar), Power: max(a.Power, b.Power)}
}

// logAdd returns log2(2^a + 2^b).
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log2(1+math.Exp2(b-a))
}

// freshLogVar is the noise of a fresh encryption: symmetric 2e + μ, public
// key 2(e·u + e_0 + e_1·s) + μ with u, s ternary (variance 2/3; products
// counted 2·m·v_1·v_2 like the rounding term); μ has second moment at most 1/2.
func (pr *Params) freshLogVar(public bool) float64 {
	v := 4*errorVariance + 0.5
	if public {
		v = 4*errorVariance*(1+2*2*float64(pr.m)*2/3) + 0.5
	}
	return math.Log2(v)
}

// floorLogVar is the rounding noise of a division by an odd modulus
// (modulus switching, key switching): δ_0/p + (δ_1/p)·s with δ_i/p uniform
// in [-1, 1) (variance 1/3) and s ternary (2/3).
func (pr *Params) floorLogVar() float64 {
	return math.Log2(1.0/3 + 2*float64(pr.m)*(1.0/3)*(2.0/3))
}

// productNoise is the noise of the tensor product of two ciphertexts
// (before relinearization).
func (pr *Params) productNoise(a, b NoiseEstimate, square bool) NoiseEstimate {
	pa, pb := a.Power, b.Power
	v := a.LogVar + b.LogVar + math.Log2(float64(pr.m))
	capLog := float64(min(pa, pb)) * math.Log2(math.Log(float64(pr.n)))
	if square {
		pa = max(pa, 1)
		v += min(logBinomial(2*pa, pa), 1+capLog)
		return NoiseEstimate{LogVar: v, Power: 2 * pa}
	}
	v += min(logBinomial(pa+pb, pa), capLog)
	return NoiseEstimate{LogVar: v, Power: pa + pb}
}

// logBinomial returns log2 C(n, k).
func logBinomial(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return (a - b - c) / math.Ln2
}

// dropNoise is the noise after switching from level t to t-1.
func (pr *Params) dropNoise(a NoiseEstimate, t int) NoiseEstimate {
	scaled := a.LogVar - 2*math.Log2(float64(pr.q[t]))
	floor := pr.floorLogVar()
	p := a.Power
	if floor >= scaled {
		p = 1
	}
	return NoiseEstimate{LogVar: logAdd(scaled, floor), Power: p}
}

// keySwitchLogVar is the noise key switching adds at level t:
// 2·Σ_j c_j·e_j/P (c_j uniform mod its digit's Q_j, variance Q_j²/12) plus
// the rounding of the division by P.
func (pr *Params) keySwitchLogVar(t int) float64 {
	logP := 0.0
	for _, p := range pr.p {
		logP += math.Log2(float64(p))
	}
	v := pr.floorLogVar()
	for _, dg := range pr.rns[t].digits {
		logQj := 0.0
		for _, i := range dg.src {
			logQj += math.Log2(float64(pr.q[i]))
		}
		v = logAdd(v, math.Log2(2*float64(pr.m)*4*errorVariance/12)+2*(logQj-logP))
	}
	return v
}

// keySwitchNoise adds key switching's noise at level t to a.
func (pr *Params) keySwitchNoise(a NoiseEstimate, t int) NoiseEstimate {
	return addNoise(a, NoiseEstimate{LogVar: pr.keySwitchLogVar(t), Power: 1})
}

// shouldDrop reports whether switching a ciphertext of noise a from level t
// to t-1 before a multiplication pays: it does while the scaled noise stays
// at least twice (in standard deviation) the rounding floor, because then
// dividing by p_t lowers the noise by almost log2(p_t) bits and the
// product's remaining capacity log2(Q) - noise is larger. Below that the
// switch would cost capacity, so it waits (GHS 3.3: switch only when needed).
func (pr *Params) shouldDrop(a NoiseEstimate, t int) bool {
	return t > 0 && a.LogVar-2*math.Log2(float64(pr.q[t])) >= pr.floorLogVar()+2
}

// mulPlan returns the level to which two operands are switched before
// their product and the product's noise after relinearization; ok is false
// if the product would not decrypt (bound within two bits of Q_t/2).
func (pr *Params) mulPlan(a NoiseEstimate, ta int, b NoiseEstimate, tb int, square bool) (t int, out NoiseEstimate, ok bool) {
	for pr.shouldDrop(a, ta) {
		a, ta = pr.dropNoise(a, ta), ta-1
	}
	for pr.shouldDrop(b, tb) {
		b, tb = pr.dropNoise(b, tb), tb-1
	}
	for ta > tb {
		a, ta = pr.dropNoise(a, ta), ta-1
	}
	for tb > ta {
		b, tb = pr.dropNoise(b, tb), tb-1
	}
	t = ta
	out = pr.keySwitchNoise(pr.productNoise(a, b, square), t)
	return t, out, pr.boundOf(out.LogVar) < pr.logQ(t)-2
}

// logQ returns log2(p_0·…·p_t).
func (pr *Params) logQ(t int) float64 {
	s := 0.0
	for _, q := range pr.q[:t+1] {
		s += math.Log2(float64(q))
	}
	return s
}

// depthAddBits is the margin the depth check grants each multiplication's
// operands for the additions (XOR trees) between multiplications: their
// variance is taken 2^depthAddBits times that of a single product, i.e.
// sums of up to 16 independent terms.
const depthAddBits = 4

// DepthAvailable returns the largest AND-depth the chain supports with the
// Evaluator's noise policy, starting from fresh public-key encryptions: it
// runs the policy on a chain of squarings whose operands carry the addition
// margin depthAddBits.
func (pr *Params) DepthAvailable() int {
	a, t := NoiseEstimate{LogVar: pr.freshLogVar(true) + depthAddBits, Power: 1}, pr.MaxLevel()
	for depth := 0; ; depth++ {
		nt, na, ok := pr.mulPlan(a, t, a, t, true)
		if !ok {
			return depth
		}
		na.LogVar += depthAddBits
		a, t = na, nt
	}
}

// ErrDepth reports a circuit deeper than the modulus chain allows.
var ErrDepth = errors.New("bgv: circuit too deep for the modulus chain")

// CheckDepth returns nil if a circuit of the given AND-depth (e.g.
// ir.Circuit.Stats().AndDepth) fits the chain, else an error wrapping
// ErrDepth that states the depth needed and the depth available.
func (pr *Params) CheckDepth(andDepth int) error {
	if avail := pr.DepthAvailable(); andDepth > avail {
		return fmt.Errorf("parameters %q: AND-depth %d needed, %d available (%d levels, log2 Q = %.0f): %w",
			pr.lit.Name, andDepth, avail, pr.MaxLevel(), pr.logQ(pr.MaxLevel()), ErrDepth)
	}
	return nil
}
