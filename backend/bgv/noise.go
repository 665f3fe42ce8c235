package bgv

import (
	"errors"
	"fmt"
	"math"
)

// Noise estimates (GHS 3.3, dynamic noise management).
//
// The model works in the canonical embedding, where products are pointwise:
// the energy w of a ciphertext's noise ν = μ + 2e (the phase Σ c_i·s^i
// centred mod Q_t) is the mean of |ν(ζ)|² over the φ(m) primitive roots ζ.
//
// Decryption sees power-basis coefficients mod Φ_m. For the length-m DFT,
// Parseval gives Σ_(j≠0)|ν̂_j|² + |ν̂_0|² = m·Σ|ν_i|², and reducing a product
// mod Φ_m makes ν̂_0 = -Σ_j ν̂_j·ω^j as large as the rest, so the
// coefficient variance is about 2w/m (w/m for fresh noise). The largest of
// φ(m) Gaussian coefficients stays below z·sqrt(2w/m) with
// z = sqrt(2·ln(2φ(m)·2^30)) except with probability ~2^-30 (NoiseBound).
//
// Rules: a polynomial with independent coefficients of variance v has
// w ≈ m·v; sums add energies; automorphisms permute the points and keep
// them; division by p (modulus switching, key switching's division by P)
// gives w/p² plus the rounding term δ_0/p + (δ_1/p)·s (δ_i/p uniform in
// [-1, 1), variance 1/3; s ternary, 2/3): m/3 + (m/3)·(2m/3). Products are
// the hard part. For independent noises w_ab = w_a·w_b, but noises share
// factors: the secret s (in every rounding term) and the public key's error
// (in e·u), and in x = a+c, y = b+c (a ripple carry) the product holds c²,
// whose energy E|c|⁴ is 2·w_c² for Gaussian c and grows like C(2k, k) for
// the heavy-tailed noise of repeated squares. Worse, an estimate's error in
// bits doubles at every product of two computed operands, so no fixed
// factor tracks a long chain.
//
// The estimate is therefore an interval [lo, hi] of energies: lo with
// w_a·w_b for every product (the independent case), hi with
//
//   - 2·w_a·w_b for operands of disjoint descent (a filter of what each
//     noise derives from: fresh encryptions, which all carry one bit, see
//     freshNoise, and the secret s of rounding terms) when one is fresh,
//     i.e. a fresh noise times that of a public constant;
//   - 8·w_a·w_b when both are computed (their noises hold products of the
//     shared e and s, whose moments grow), when they may share noise
//     (squares, carries), or when both carry a sizeable rounding term (the
//     filter's secretBit);
//   - w_a + w_b + 2ρ·sqrt(w_a·w_b) for sums of operands that may share
//     noise, with ρ = sumCorrelation (0.25), between independent energies
//     (ρ = 0) and coherent amplitudes (ρ = 1, (sqrt(w_a) + sqrt(w_b))²).
//
// Sums are the part the ancestry filter cannot tell apart: with a few
// dozen inputs every pair of noises "shares" (the filter saturates), and
// coherent sums grow like k² for k terms instead of k, so AES-128
// (aes128_lowdepth: 5-term MixColumns XORs, the S-box's linear layers)
// needed 30 primes at M65537 instead of 22. Measured per node at
// ToyM257Deep (TestNoiseSumRules, HCC_BGV_SUMRULES=1: two AES rounds,
// six layers of 16-term XORs of products, the whole aes128_lowdepth; three
// to four runs each, inputs at LevelForCircuit), the smallest margin of the
// bound over the measured noise was 0.61-1.38 bits with ρ = 1, 0.79-1.32
// with ρ = 0.25 (the smallest margins sit at early XORs and at products
// near level 0, where the sum rule hardly matters), and -3.1 bits (the
// bound below the noise, wide XORs after a few products) with ρ = 0: the
// products' noises are not independent (plaintext bits and the shared s
// are in every one of them). At M65537 (TestNoiseSumRuleM65537, two AES
// rounds, every 8th node) ρ = 0.25 left at least 0.80 bits, median 2.6.
// For 16 equal terms ρ = 0.25 gives 1.3-1.5 bits above independent
// energies; for k > 1/ρ² terms it tends to ρ²·k², coherent-like. ρ = 0.25
// is the largest value (of 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5) with which
// the simulation fits both AES circuits in M65537's 22 primes (aes128
// after optimize.ForDepth needs ρ <= 0.25, aes128_lowdepth ρ <= 0.4; with
// more the chain reaches level 0 early and needs 30). aes128_lowdepth then
// ran encrypted at M65537 and decrypted correctly (docs/bgv-noise.md).
//
// hi is the estimate that decides (NoiseBound, the refusal of a product
// that would not decrypt). The factors were measured at m = 257: with 4
// instead of 8 a ripple carry outran the estimate within three steps and
// became garbage ten steps later; with 1.5 instead of 2, chains of
// independent products fell behind at low levels (the shared s); with 4
// for two computed operands, nodes of a product tree came out 0.2 bits
// above the estimate.
//
// The interval also drives the noise policy: an operand whose interval is
// wider than resetBits is switched down until its noise is the rounding
// floor, where lo = hi again (mulPlan). This costs a level now and then but
// keeps hi within a few bits of the real noise on every circuit shape.

// NoiseEstimate is a ciphertext's noise estimate (see above). The zero value
// is a noiseless ciphertext.
type NoiseEstimate struct {
	hi, lo   float64 // log2 of the pessimistic and optimistic energies
	set      bool
	computed bool // the noise went through a product (not a fresh encryption)
	// anc is a filter of what the noise descends from: freshBit (every
	// fresh encryption) and secretBit (sizeable rounding terms). It has
	// room for a Bloom filter of distinct encryptions, as the serialized
	// format keeps, but freshNoise says why fresh encryptions share a bit.
	anc [4]uint64
}

// LogEnergy returns log2 of the (pessimistic) estimated energy, -Inf if noiseless.
func (a NoiseEstimate) LogEnergy() float64 {
	if !a.set {
		return math.Inf(-1)
	}
	return a.hi
}

// Uncertainty returns hi - lo in bits of energy.
func (a NoiseEstimate) Uncertainty() float64 {
	if !a.set {
		return 0
	}
	return a.hi - a.lo
}

// sharesNoise reports whether a and b may descend from a common encryption.
func (a *NoiseEstimate) sharesNoise(b *NoiseEstimate) bool {
	for i := range a.anc {
		if a.anc[i]&b.anc[i] != 0 {
			return true
		}
	}
	return false
}

// scaled returns a with both energies multiplied by 2^d.
func (a NoiseEstimate) scaled(d float64) NoiseEstimate {
	a.hi += d
	a.lo += d
	return a
}

// errorVariance is the variance of the error distribution (centred binomial).
const errorVariance = errorBinomial / 2.0

// noiseZ is z of NoiseBound for dimension n.
func noiseZ(n int) float64 { return math.Sqrt(2 * (math.Log(2*float64(n)) + 30*math.Ln2)) }

// NoiseBound returns log2 of the estimated bound on the largest coefficient
// of ct's noise (comparable with Decryptor.NoiseBits).
func (pr *Params) NoiseBound(ct *Ciphertext) float64 { return pr.boundOf(ct.Noise) }

func (pr *Params) boundOf(a NoiseEstimate) float64 {
	return 0.5*(a.LogEnergy()+1-math.Log2(float64(pr.m))) + math.Log2(noiseZ(pr.n))
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

// exact returns a noise of known energy 2^lw (no ancestry).
func exact(lw float64) NoiseEstimate { return NoiseEstimate{hi: lw, lo: lw, set: true} }

// sumCorrelation is ρ of the sum rule (see the comment at the top).
const sumCorrelation = 0.25

// sumRho is the ρ addNoise uses: sumCorrelation, except while the
// measurement harness (TestNoiseSumRules) compares rules.
var sumRho = sumCorrelation

// addNoise is the estimate of a sum.
func addNoise(a, b NoiseEstimate) NoiseEstimate {
	if !a.set {
		return b
	}
	if !b.set {
		return a
	}
	out := NoiseEstimate{lo: logAdd(a.lo, b.lo), set: true, computed: a.computed || b.computed}
	if a.sharesNoise(&b) {
		out.hi = logAdd(logAdd(a.hi, b.hi), 1+math.Log2(sumRho)+(a.hi+b.hi)/2)
	} else {
		out.hi = logAdd(a.hi, b.hi)
	}
	for i := range out.anc {
		out.anc[i] = a.anc[i] | b.anc[i]
	}
	return out
}

// withConstant adds a public constant of energy 1 per point (the constant 1).
func (a NoiseEstimate) withConstant() NoiseEstimate {
	out := addNoise(a, exact(0))
	out.anc = a.anc
	return out
}

// freshNoise is the noise of a fresh encryption: symmetric 2e + μ, public
// key 2(e·u + e_0 + e_1·s) + μ, u and s ternary (variance 2/3); μ has
// second moment at most 1/2. Every fresh encryption carries the same filter
// bit, freshBit, so that the Encryptor's ciphertexts have exactly the
// state the simulation gives inputs (FreshState).
//
// Distinct bits per encryption (once drawn at random) give lower estimates
// at every operation, but the noise policy is not monotone in the
// estimate: mulPlan switches an operand whose interval is wider than
// resetBits down to the rounding floor, so shared ancestry resets noises
// that distinct bits leave at their level, where a later product then has
// to drop two levels at once. Distinct bits could thus need a prime more
// than the simulation of shared ones, and a circuit that CheckCircuitAt
// accepted at LevelForCircuit's level was refused by CheckInputs on the
// real inputs (TestNoisePolicyNotMonotone: 3 inputs, 8 products). Shared
// ancestry is the pessimistic case of every single rule (a product of
// operands that may share noise gets 8·w_a·w_b, a sum the ρ term), so the
// estimate still bounds the noise; circuits with more than a few dozen
// inputs saturated the random filter anyway.
func (pr *Params) freshNoise(public bool) NoiseEstimate {
	m := float64(pr.m)
	v := 4*errorVariance + 0.5
	if public {
		v += 2 * 4 * errorVariance * m * 2 / 3
	}
	a := exact(math.Log2(m * v))
	a.anc[0] = freshBit
	return a
}

// freshBit is the filter bit of every fresh encryption (see freshNoise).
const freshBit = 1

// floorLogEnergy is the energy of the rounding noise of a division by an odd
// modulus (modulus switching, key switching): δ_0/p + (δ_1/p)·s.
func (pr *Params) floorLogEnergy() float64 {
	m := float64(pr.m)
	return math.Log2(m/3 + m/3*m*2/3)
}

// Factors (log2) of products beyond w_a·w_b in the pessimistic estimate:
// operands of disjoint descent, one of them fresh; both computed (their
// noises hold products of the shared e and s, whose moments grow: at
// m = 257 the nodes of a product tree measured up to 1.1 bits above the
// factor 2 and 0.2 bits above the factor 4); operands that may share noise.
const (
	independentProductLog2 = 1
	computedProductLog2    = 3
	sharedProductLog2      = 3
)

// resetBits is the widest interval (in bits of energy, twice that in bits
// of noise) an operand may carry into a product; wider ones are switched
// down to the rounding floor first.
const resetBits = 4

// productNoise is the noise of the tensor product of two ciphertexts
// (before relinearization); square says both operands are the same.
func (pr *Params) productNoise(a, b NoiseEstimate, square bool) NoiseEstimate {
	if !a.set || !b.set {
		return NoiseEstimate{}
	}
	out := NoiseEstimate{lo: a.lo + b.lo, set: true}
	switch {
	case square || a.sharesNoise(&b):
		out.hi = a.hi + b.hi + sharedProductLog2
	case a.computed && b.computed:
		out.hi = a.hi + b.hi + computedProductLog2
	default:
		out.hi = a.hi + b.hi + independentProductLog2
	}
	out.computed = true
	for i := range out.anc {
		out.anc[i] = a.anc[i] | b.anc[i]
	}
	return out
}

// dropNoise is the noise after switching from level t to t-1. The rounding
// term belongs to this ciphertext and to everything later computed from it
// (x = a+c and y = b+c share c's rounding), so the filter stays.
func (pr *Params) dropNoise(a NoiseEstimate, t int) NoiseEstimate {
	fl := pr.floorLogEnergy()
	if !a.set {
		return exact(fl)
	}
	d := 2 * math.Log2(float64(pr.q[t]))
	out := NoiseEstimate{hi: logAdd(a.hi-d, fl), lo: logAdd(a.lo-d, fl), set: true, anc: a.anc, computed: a.computed}
	if fl >= out.lo-4 {
		out.anc[3] |= secretBit // the rounding's s is a sizeable part
	}
	return out
}

// secretBit is the filter bit of the secret s: set when a rounding term
// (δ_1/p)·s is a sizeable part (>= 1/16) of the noise, since all such terms
// share s (measured at m = 257: chains of such products outran a 2·w_a·w_b
// estimate by 4 bits within ten products).
const secretBit = 1 << 63

// keySwitchNoise adds key switching's noise at level t to a (ksLogEnergy).
func (pr *Params) keySwitchNoise(a NoiseEstimate, t int) NoiseEstimate {
	out := addNoise(a, exact(pr.ksLog[t]))
	out.anc = a.anc
	return out
}

// ksLogEnergy is log2 of the energy key switching adds at level t:
// 2·Σ_j c_j·e_j/P (c_j uniform mod its digit's Q_j, variance Q_j²/12, e_j
// the key's error) plus the rounding of the division by P. NewParams
// keeps it per level (Params.ksLog).
func (pr *Params) ksLogEnergy(t int) float64 {
	logP := 0.0
	for _, p := range pr.p {
		logP += math.Log2(float64(p))
	}
	m := float64(pr.m)
	ks := pr.floorLogEnergy()
	for _, dg := range pr.rns[t].digits {
		logQj := 0.0
		for _, i := range dg.src {
			logQj += math.Log2(float64(pr.q[i]))
		}
		ks = logAdd(ks, math.Log2(4*(m/12)*(m*errorVariance))+2*(logQj-logP))
	}
	return ks
}

// shouldDrop reports whether to switch a ciphertext of noise a from level t
// to t-1 before a multiplication. It does while the scaled noise stays at
// least twice (in standard deviation) the rounding floor, because then
// dividing by p_t lowers the noise by almost log2(p_t) bits and the
// product's remaining capacity log2(Q) - noise is larger (GHS 3.3: below
// that the switch would cost capacity, so it waits); and while the
// estimate is more uncertain than resetBits and not yet at the floor.
func (pr *Params) shouldDrop(a NoiseEstimate, t int) bool {
	if t == 0 || !a.set {
		return false
	}
	scaled := a.hi - 2*math.Log2(float64(pr.q[t]))
	fl := pr.floorLogEnergy()
	return scaled >= fl+2 || (a.Uncertainty() > resetBits && a.hi > fl+1)
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
	return t, out, pr.decrypts(NoiseState{Level: t, Noise: out})
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
// runs the policy on a chain of products of two operands that may share
// noise (the pessimistic case, e.g. a ripple carry), whose operands carry
// the addition margin depthAddBits.
func (pr *Params) DepthAvailable() int { return pr.DepthAvailableAt(pr.MaxLevel()) }

// DepthAvailableAt is DepthAvailable for inputs encrypted at level t
// (Encryptor.EncryptAtLevel): fresh noise, fewer primes.
func (pr *Params) DepthAvailableAt(t int) int {
	t = max(0, min(t, pr.MaxLevel()))
	a := pr.freshNoise(true).scaled(depthAddBits)
	for depth := 0; ; depth++ {
		nt, na, ok := pr.mulPlan(a, t, a, t, true)
		if !ok {
			return depth
		}
		a, t = na.scaled(depthAddBits), nt
	}
}

// LevelFor returns the lowest level whose DepthAvailableAt is at least
// depth, the top level if none is: inputs encrypted there make every
// product cheaper (fewer primes) and the ciphertexts smaller, at no cost in
// correctness (the noise policy would drop the unused levels anyway). It
// sees only the AND-depth, not the sums between products, which can need
// more (wide XORs of products); for a
// circuit, LevelForCircuit simulates the run itself.
func (pr *Params) LevelFor(depth int) int {
	for t := 0; t < pr.MaxLevel(); t++ {
		if pr.DepthAvailableAt(t) >= depth {
			return t
		}
	}
	return pr.MaxLevel()
}

// ErrDepth reports a circuit deeper than the modulus chain allows.
var ErrDepth = errors.New("bgv: circuit too deep for the modulus chain")

// CheckDepth returns nil if a circuit of the given AND-depth (e.g.
// ir.Circuit.Stats().AndDepth) fits the chain, else an error wrapping
// ErrDepth that states the depth needed and the depth available.
func (pr *Params) CheckDepth(andDepth int) error { return pr.CheckDepthAt(andDepth, pr.MaxLevel()) }

// CheckDepthAt is CheckDepth for inputs at level t.
func (pr *Params) CheckDepthAt(andDepth, t int) error {
	if avail := pr.DepthAvailableAt(t); andDepth > avail {
		at := ""
		if t < pr.MaxLevel() {
			at = fmt.Sprintf(" for inputs at level %d", t)
		}
		return fmt.Errorf("parameters %q: AND-depth %d needed, %d available%s (%d levels, log2 Q = %.0f): %w",
			pr.lit.Name, andDepth, avail, at, t, pr.logQ(t), ErrDepth)
	}
	return nil
}
