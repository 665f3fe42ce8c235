package cbs

import (
	"math"
)

// Noise is the parameter set's noise model: variances (in squared units of
// the modulus named) of each stage, computed from the parameters alone.
// Digits of values uniform mod the modulus are taken as uniform in
// [-B/2, B/2) (the top digit's range from the modulus), errors as
// independent; where a stage's bound depends on the message (a rounding
// error multiplied by a 0/1 bit), the model takes the bit as 1, so it is an
// upper bound there. TestNoiseMeasured128 checks it against measurements.
type Noise struct {
	// BR is the per-coefficient variance of the blind-rotation accumulator
	// (mod Q).
	BR float64
	// TraceKS is one key switch of the trace (mod Q).
	TraceKS float64
	// Trace is the trace's contribution to the constant coefficient: a key
	// switch at step i is doubled by each of the log N - i later steps, so
	// it is TraceKS·(4^logN - 1)/3.
	Trace float64
	// RowB is the noise of the RGSW rows RLWE(b·g_j) (constant
	// coefficient; the others carry only the last trace steps' noise).
	RowB float64
	// RowBEnergy is the sum of the variances of all coefficients of a B
	// row's noise polynomial (what a digit polynomial multiplies).
	RowBEnergy float64
	// RowA is the noise of the rows RLWE(b·g_j·z) after the scheme switch:
	// (2/3)·(the B row's noise energy) + the switch's own key-switch noise.
	RowA float64
	// CMux is the variance one CMux adds to the vertical-packing
	// accumulator when its RGSW bit is 1: CMuxDigits (the digits times the
	// rows' noise, any bit) plus CMuxRound (the dropped bits' rounding,
	// only for bit 1).
	CMux, CMuxDigits, CMuxRound float64
	// KeySwitch is the LWE key switch z -> s (mod Q_ks), ModSwitch the
	// rounding Q -> Q_ks (mod Q_ks), Round the rounding Q_ks -> 2N (in
	// units of 1/2N).
	KeySwitch, ModSwitch, Round float64
	// Fresh is the variance of a freshly encrypted wide bit (mod Q).
	Fresh float64
}

// digitVar returns Σ_j Var(d_j) for the gadget's digits of a value uniform
// mod Q (or any modulus with bit length logQ): the lower digits are uniform
// on B values, the top digit spans Q/2^top.
func digitVar(g Gadget, Q float64) float64 {
	B := math.Ldexp(1, g.LogB)
	top := math.Ldexp(Q, -(g.Drop + (g.Digits-1)*g.LogB))
	if top > B {
		top = B
	}
	return float64(g.Digits-1)*(B*B+2)/12 + (top*top+2)/12
}

// roundVar returns the variance of the rounding error of the dropped bits.
func roundVar(g Gadget) float64 {
	if g.Drop == 0 {
		return 0
	}
	r := math.Ldexp(1, g.Drop)
	return r * r / 12
}

// ternaryVar is E[s_i^2] of a uniform ternary coefficient.
const ternaryVar = 2.0 / 3.0

// Noise returns the set's noise model.
func (p Params) Noise() Noise {
	l := p.lit
	N := float64(p.ringN)
	Q := float64(p.q)
	s2 := l.Sigma * l.Sigma
	var nm Noise
	// Blind rotation: per nonzero s_i two external products share the
	// digits of ACC's two polynomials (2N·σ²·Σ Var(d_j) each), multiplied by
	// (X^{∓a} - 1) (two terms: variance x2); the rounding of the dropped bits
	// (times 1 + z) counts for the one key with message 1, present when
	// s_i ≠ 0 (probability 2/3).
	ep := 2 * N * s2 * digitVar(l.BR, Q)
	rnd := roundVar(l.BR) * (1 + ternaryVar*N)
	nm.BR = float64(l.LWEDim) * (2*2*ep + 2*ternaryVar*rnd)
	nm.TraceKS = N*s2*digitVar(l.Trace, Q) + roundVar(l.Trace)*ternaryVar*N
	nm.Trace = nm.TraceKS * p.traceConst
	nm.RowB = nm.BR + nm.Trace
	// z-rows: (e·z)_c sums Var(e_i)·(2/3) over i; e is the B row's noise,
	// whose energy is the blind rotation's constant coefficient (the trace
	// removed the rest) plus the trace key switches' noise, each pushed
	// through the later trace steps (traceGains: the exact energy gain). The scheme switch adds its own key switch (digits
	// of a uniform polynomial; rounding times z², whose coefficients have
	// variance (2/3)²N).
	ss := N*s2*digitVar(l.Trace, Q) + roundVar(l.Trace)*N*ternaryVar*ternaryVar*N
	nm.RowBEnergy = nm.BR + nm.TraceKS*p.traceEnergy
	nm.RowA = ternaryVar*nm.RowBEnergy + ss
	// CMux: the digits d of D = X^{-2^i}·ACC - ACC (uniform) multiply the
	// rows' noise polynomials: Var((d·e)_c) = Var(d)·(energy of e), the B
	// rows' energy RowBEnergy, the z-rows' N·RowA. The rounding of the
	// dropped bits (times 1 + z) counts when the RGSW bit is 1; the model
	// takes it as 1 (an upper bound; with uniform bits the mean is half).
	nm.CMuxDigits = digitVar(l.CBS, Q) * (nm.RowBEnergy + N*nm.RowA)
	nm.CMuxRound = roundVar(l.CBS) * (1 + ternaryVar*N)
	nm.CMux = nm.CMuxDigits + nm.CMuxRound
	qks := float64(p.qks)
	bks := math.Ldexp(1, l.LogBKS)
	// Zero digits select no key row (their noise is absent).
	nm.KeySwitch = N * float64(p.digKS) * (1 - 1/bks) * s2
	nm.ModSwitch = (1 + ternaryVar*N) / 12
	_ = qks
	nm.Round = (1 + ternaryVar*float64(l.LWEDim)) / 12
	nm.Fresh = s2
	return nm
}

// TableOutputVar returns the noise variance (mod Q) of a wide bit produced
// by a table with k inputs, as an upper bound over the input bits
// (TableOutputVarOnes with all k bits 1).
func (p Params) TableOutputVar(k int) float64 { return p.TableOutputVarOnes(k, k) }

// TableOutputVarOnes returns the noise variance (mod Q) of a table output
// when ones of its k input bits are 1: k CMuxes, the first of which sees a
// trivial accumulator (its A digits are zero, so only the B rows count),
// and the rounding term once per 1 bit.
func (p Params) TableOutputVarOnes(k, ones int) float64 {
	if k < 1 {
		return 0
	}
	nm := p.Noise()
	first := digitVar(p.lit.CBS, float64(p.q)) * nm.RowBEnergy
	return first + float64(k-1)*nm.CMuxDigits + float64(ones)*nm.CMuxRound
}

// PhaseVar returns the variance, in units of 1/2N, of the phase error at
// the blind rotation's input when the CBS input has noise variance inVar
// (mod Q; a XOR of wide bits adds their variances).
func (p Params) PhaseVar(inVar float64) float64 {
	nm := p.Noise()
	m := float64(p.ringM)
	sq := m / float64(p.q)
	sk := m / float64(p.qks)
	return inVar*sq*sq + (nm.KeySwitch+nm.ModSwitch)*sk*sk + nm.Round
}

// CBSFailureLog2 returns log2 of the probability that one circuit bootstrap
// of an input with noise variance inVar (mod Q) fails: the phase error
// leaves the window [-h, h) of the test polynomial (Gaussian tail).
func (p Params) CBSFailureLog2(inVar float64) float64 {
	sigma := math.Sqrt(p.PhaseVar(inVar))
	return log2Erfc((float64(p.half) - 0.5) / (sigma * math.Sqrt2))
}

// TermsFailureLog2 is CBSFailureLog2 for a XOR of terms table outputs of
// k = 8 inputs (the worst case) and one fresh wide bit.
func (p Params) TermsFailureLog2(terms int) float64 {
	return p.CBSFailureLog2(float64(terms)*p.TableOutputVar(8) + p.Noise().Fresh)
}

// MaxTerms returns the largest number of XORed wide bits (table outputs of
// up to 8 inputs, or fresh bits) a CBS input may have so that one CBS fails
// with probability at most 2^maxFailureLog2 (0 if not even one term fits).
func (p Params) MaxTerms(maxFailureLog2 float64) int {
	if p.TermsFailureLog2(1) > maxFailureLog2 {
		return 0
	}
	lo, hi := 1, 2
	for p.TermsFailureLog2(hi) <= maxFailureLog2 {
		lo, hi = hi, hi*2
		if hi > 1<<30 {
			return lo
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if p.TermsFailureLog2(mid) <= maxFailureLog2 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// TableFailureLog2 returns log2 of the failure probability of a table whose
// inputs are XORs of terms[i] wide bits (table outputs): one CBS per input
// (union bound). The outputs' own decryption (margin Q/4) is far below it.
func (p Params) TableFailureLog2(terms []int) float64 {
	sum := 0.0
	for _, t := range terms {
		sum += math.Exp2(p.TermsFailureLog2(t))
	}
	if sum == 0 {
		return math.Inf(-1)
	}
	return math.Log2(sum)
}

// DecryptFailureLog2 returns log2 of the probability that a wide bit with
// noise variance v (mod Q) decrypts wrongly (margin Q/4).
func (p Params) DecryptFailureLog2(v float64) float64 {
	return log2Erfc(float64(p.q) / 4 / math.Sqrt(2*v))
}

// log2Erfc returns log2(erfc(x)) without underflow for large x
// (asymptotic series beyond x = 5).
func log2Erfc(x float64) float64 {
	if x < 5 {
		return math.Log2(math.Erfc(x))
	}
	// erfc(x) ≈ e^{-x²}/(x√π)·(1 - 1/(2x²) + 3/(4x⁴))
	s := 1 - 1/(2*x*x) + 3/(4*x*x*x*x)
	return (-x*x - math.Log(x*math.Sqrt(math.Pi)) + math.Log(s)) / math.Ln2
}

// traceGains returns, for the trace on a ring of degree 2^logN, the gain of
// a key switch's (white) noise in the output's constant coefficient and in
// its total energy, summed over the steps: the noise added at the step with
// automorphism 2^k + 1 passes through Π_{j<k} (1 + τ_{2^j+1}), a sum of
// 2^{k-1} automorphisms τ_t. The constant coefficient gets 2^{k-1}·e_0
// (gain 4^{k-1}); coefficient positions with many factors of 2 collect
// coherent copies too, which is why the energy gain is computed rather than
// taken as 2^{k-1} per coefficient. ‖M·X^i‖² depends only on the 2-adic
// valuation of i (odd multipliers permute positions), so logN+1 images per
// step suffice.
func traceGains(logN int) (constant, energy float64) {
	N := 1 << uint(logN)
	M := 2 * N
	count := make([]int, N)
	for k := 1; k <= logN; k++ {
		// The 2^{k-1} automorphisms t_S = Π_{j in S} (2^j + 1), S ⊆ [1, k-1].
		ts := []int{1}
		for j := 1; j < k; j++ {
			f := 1<<uint(j) + 1
			for _, t := range ts[:len(ts)] {
				ts = append(ts, t*f%M)
			}
		}
		constant += float64(len(ts)) * float64(len(ts))
		for v := 0; v <= logN; v++ {
			i := 1 << uint(v) // X^i, i = 2^v (v = logN: the constant via X^N = -1 is excluded below)
			if v == logN {
				i = 0
			}
			for c := range count {
				count[c] = 0
			}
			for _, t := range ts {
				pos := i * t % M
				if pos >= N {
					count[pos-N]--
				} else {
					count[pos]++
				}
			}
			norm := 0.0
			for _, c := range count {
				norm += float64(c) * float64(c)
			}
			mult := 1 // the constant coefficient
			if v < logN {
				mult = N >> uint(v+1) // i in [1, N) with 2-adic valuation v
			}
			energy += norm * float64(mult)
		}
	}
	return constant, energy
}
