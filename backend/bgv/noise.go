package bgv

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Noise estimates (GHS 3.3, dynamic noise management).
//
// The model works in the canonical embedding, where products are pointwise:
// w is the mean of |ν(ζ^j)|² over the φ(m) primitive roots (the "energy per
// point") of the noise ν = μ + 2e (the phase Σ c_i·s^i centred mod Q_t).
//
//   - A polynomial with independent coefficients of variance v and a zero
//     top coefficient (fresh errors, keys, rounding terms) has w ≈ m·v.
//   - Products multiply energies, w_ab = w_a·w_b, for independent factors;
//     sums add them; automorphisms permute the points and keep them.
//   - Division by p (modulus switching, key switching's division by P)
//     gives w/p² plus the rounding term δ_0/p + (δ_1/p)·s, δ_i/p uniform in
//     [-1, 1) (variance 1/3), s ternary (2/3): m/3 + (m/3)·(2m/3).
//   - Decryption sees the power-basis coefficients mod Φ_m. For the length-m
//     DFT, Parseval gives Σ_(j≠0)|ν̂_j|² + |ν̂_0|² = m·Σ|ν_i|², and reducing
//     a product mod Φ_m makes ν̂_0 = -Σ_j ν̂_j·ω^j as large as the rest, so the
//     coefficient variance is about 2w/m (w/m for fresh noise). The largest
//     of φ(m) Gaussian coefficients stays below z·sqrt(2w/m) with
//     z = sqrt(2·ln(2φ(m)·2^30)) except with probability ~2^-30 (NoiseBound).
//
// Noises are not independent. Every rounding term carries the secret s,
// every public-key encryption carries the public key's error e (in e·u),
// and a square multiplies a noise by itself. For a Gaussian value x,
// E|x|^(2k) = k!·(E|x|²)^k, so shared factors make products grow by binomial
// factors. The estimate therefore splits the energy into components (i, j):
// the parts that carry e^i·s^j (times independent factors). The product of
// components (i, j) and (k, l) lands in (i+k, j+l) with energy
// w·w'·C(i+k, i)·C(j+l, j). Over many products these binomials multiply
// to (i+j)!-like factors, which only Gaussian values reach: on φ(m) points
// the growth is at most (max_ζ |x(ζ)|²/E|x(ζ)|²)^min(k, l) ≈ ln(φ(m))^min(k, l)
// per product and ln(φ(m))^k in total for a component with k shared
// factors; both caps apply (shareFactor, shareCap). A square also shares
// its independent parts: diagonal terms get C(2o, o) with o = max(own, 1)
// (own = the power of the ciphertext's own noise, 2o afterwards), cross
// terms twice the plain product. Measured at m = 257: without the split
// the estimate fell behind by 1-4 bits per level on product chains; with
// e and s lumped into one factor it ran 13 bits ahead after a product tree
// of depth 4. Errors compound: in a product tree an estimate's error in
// bits doubles with every level until a modulus switch brings the noise
// back to the rounding floor, where the estimate is exact again.

// noiseE and noiseS bound the tracked powers of e and s; higher powers are
// accumulated in the last row/column.
const (
	noiseE = 8
	noiseS = 16
)

// NoiseEstimate is a ciphertext's noise estimate (see above). The zero value
// is a noiseless ciphertext.
type NoiseEstimate struct {
	logW [noiseE][noiseS]float64 // log2 energy of component (i, j)
	// logF is the part of logW due to shared factors (the accumulated
	// binomial growth), capped at (i+j)·log2(ln φ(m)) (see productNoise).
	logF [noiseE][noiseS]float64
	used [noiseE]uint32 // bit j of used[i] set iff (i, j) is present
	own  int            // power of the ciphertext's own noise (squares)
}

// with returns a with energy 2^lw (of which 2^f from shared factors) added
// to component (i, j).
func (a NoiseEstimate) with(i, j int, lw float64) NoiseEstimate { return a.withF(i, j, lw, 0) }

func (a NoiseEstimate) withF(i, j int, lw, f float64) NoiseEstimate {
	i, j = min(i, noiseE-1), min(j, noiseS-1)
	if a.used[i]>>uint(j)&1 == 0 {
		a.logW[i][j], a.logF[i][j], a.used[i] = lw, f, a.used[i]|1<<uint(j)
	} else {
		a.logW[i][j] = logAdd(a.logW[i][j], lw)
		a.logF[i][j] = max(a.logF[i][j], f)
	}
	return a
}

// LogEnergy returns log2 of the total estimated energy w (-Inf if none).
func (a NoiseEstimate) LogEnergy() float64 {
	t := math.Inf(-1)
	for i := range noiseE {
		for u := a.used[i]; u != 0; u &= u - 1 {
			t = logAdd(t, a.logW[i][bits.TrailingZeros32(u)])
		}
	}
	return t
}

// scaled returns a with every energy multiplied by 2^d.
func (a NoiseEstimate) scaled(d float64) NoiseEstimate {
	for i := range noiseE {
		for u := a.used[i]; u != 0; u &= u - 1 {
			a.logW[i][bits.TrailingZeros32(u)] += d
		}
	}
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

// addNoise is the estimate of a sum.
func addNoise(a, b NoiseEstimate) NoiseEstimate {
	for i := range noiseE {
		for u := b.used[i]; u != 0; u &= u - 1 {
			j := bits.TrailingZeros32(u)
			a = a.withF(i, j, b.logW[i][j], b.logF[i][j])
		}
	}
	a.own = max(a.own, b.own)
	return a
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

// freshNoise is the noise of a fresh encryption: symmetric 2e + μ, public
// key 2(e·u + e_0 + e_1·s) + μ, u and s ternary (variance 2/3), e the public
// key's error: 4·w_e·w_u in component (1, 0), 4·w_e1·w_s in (0, 1). μ has
// second moment at most 1/2.
func (pr *Params) freshNoise(public bool) NoiseEstimate {
	m := float64(pr.m)
	a := NoiseEstimate{}.with(0, 0, math.Log2(m*(4*errorVariance+0.5)))
	if public {
		a = a.with(1, 0, math.Log2(4*(m*errorVariance)*(m*2/3)))
		a = a.with(0, 1, math.Log2(4*(m*errorVariance)*(m*2/3)))
	}
	return a
}

// floorNoise is the rounding noise of a division by an odd modulus
// (modulus switching, key switching): δ_0/p in (0, 0), (δ_1/p)·s in (0, 1).
func (pr *Params) floorNoise() NoiseEstimate {
	m := float64(pr.m)
	return NoiseEstimate{}.with(0, 0, math.Log2(m/3)).with(0, 1, math.Log2(m/3*m*2/3))
}

// logBinomial returns log2 C(n, k).
func logBinomial(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return (a - b - c) / math.Ln2
}

// shareFactor is log2 of the growth factor of a product of powers k and l
// of one shared Gaussian factor: C(k+l, k) = E|x|^(2(k+l)) / (E|x|^(2k)·E|x|^(2l)),
// and at most (max_ζ |x(ζ)|²/E|x(ζ)|²)^min(k, l) ≈ ln(φ(m))^min(k, l) on
// φ(m) points (M_(k+l) <= max^l·M_k and M_l >= M_1^l).
func (pr *Params) shareFactor(k, l int) float64 {
	return min(logBinomial(k+l, k), pr.shareCap(min(k, l)))
}

// shareCap is log2 of the largest total growth a component with k shared
// factors can have: (max_ζ |x(ζ)|² / E|x(ζ)|²)^k ≈ ln(φ(m))^k over φ(m)
// points. Past it the binomials of a Gaussian model (k! in total) would
// overtake what a finite set of points can do.
func (pr *Params) shareCap(k int) float64 { return float64(k) * math.Log2(math.Log(float64(pr.n))) }

// productNoise is the noise of the tensor product of two ciphertexts
// (before relinearization); square says both operands are the same.
func (pr *Params) productNoise(a, b NoiseEstimate, square bool) NoiseEstimate {
	var out NoiseEstimate
	o := max(a.own, 1)
	for i := range noiseE {
		for u := a.used[i]; u != 0; u &= u - 1 {
			j := bits.TrailingZeros32(u)
			for k := range noiseE {
				for v := b.used[k]; v != 0; v &= v - 1 {
					l := bits.TrailingZeros32(v)
					base := a.logW[i][j] - a.logF[i][j] + b.logW[k][l] - b.logF[k][l]
					f := a.logF[i][j] + b.logF[k][l] + pr.shareFactor(i, k) + pr.shareFactor(j, l)
					if square && i == k && j == l {
						f += pr.shareFactor(o, o)
					}
					capPower := i + k + j + l
					if square {
						capPower += 2 * o // the own noise's factors
					}
					f = min(f, pr.shareCap(capPower))
					if square && (i != k || j != l) {
						base++ // both orders of a cross term
					}
					out = out.withF(i+k, j+l, base+f, f)
				}
			}
		}
	}
	out.own = max(a.own, b.own)
	if square {
		out.own = 2 * o
	}
	return out
}

// dropNoise is the noise after switching from level t to t-1. Once the
// rounding term dominates, the ciphertext's own noise no longer matters for
// later squares.
func (pr *Params) dropNoise(a NoiseEstimate, t int) NoiseEstimate {
	sc := a.scaled(-2 * math.Log2(float64(pr.q[t])))
	fl := pr.floorNoise()
	own := a.own
	if fl.LogEnergy() >= sc.LogEnergy() {
		own = 0
	}
	out := addNoise(sc, fl)
	out.own = own
	return out
}

// keySwitchNoise adds key switching's noise at level t to a:
// 2·Σ_j c_j·e_j/P (c_j uniform mod its digit's Q_j, variance Q_j²/12; e_j
// the key's error, multiplied by the fresh c_j: component 0) plus the
// rounding of the division by P.
func (pr *Params) keySwitchNoise(a NoiseEstimate, t int) NoiseEstimate {
	logP := 0.0
	for _, p := range pr.p {
		logP += math.Log2(float64(p))
	}
	m := float64(pr.m)
	a = addNoise(a, pr.floorNoise())
	for _, dg := range pr.rns[t].digits {
		logQj := 0.0
		for _, i := range dg.src {
			logQj += math.Log2(float64(pr.q[i]))
		}
		a = a.with(0, 0, math.Log2(4*(m/12)*(m*errorVariance))+2*(logQj-logP))
	}
	return a
}

// shouldDrop reports whether switching a ciphertext of noise a from level t
// to t-1 before a multiplication pays: it does while the scaled noise stays
// at least twice (in standard deviation) the rounding floor, because then
// dividing by p_t lowers the noise by almost log2(p_t) bits and the
// product's remaining capacity log2(Q) - noise is larger. Below that the
// switch would cost capacity, so it waits (GHS 3.3: switch only when needed).
func (pr *Params) shouldDrop(a NoiseEstimate, t int) bool {
	return t > 0 && a.LogEnergy()-2*math.Log2(float64(pr.q[t])) >= pr.floorNoise().LogEnergy()+2
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
	return t, out, pr.boundOf(out) < pr.logQ(t)-2
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
// runs the policy on a chain of products of two ciphertexts with the same
// noise (sharing the key's factors, not each other's), whose operands carry
// the addition margin depthAddBits.
func (pr *Params) DepthAvailable() int {
	a, t := pr.freshNoise(true).scaled(depthAddBits), pr.MaxLevel()
	for depth := 0; ; depth++ {
		nt, na, ok := pr.mulPlan(a, t, a, t, false)
		if !ok {
			return depth
		}
		a, t = na.scaled(depthAddBits), nt
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
