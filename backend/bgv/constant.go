package bgv

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/hcc-fhe/hcc/backend/ring"
	"gonum.org/v1/gonum/dsp/fourier"
)

// Slot-wise constants (GHS 3.4). A constant is a plaintext c ∈ A_2 used in
// the clear: multiplying a ciphertext (c_0, c_1) by c gives (c·c_0, c·c_1),
// whose phase is c·(μ + 2e), so every slot is multiplied by the slot of c
// and the noise ν becomes c·ν. In the canonical embedding that is the
// pointwise product ν(ζ)·c(ζ), so the noise energy (see noise.go) grows by
// at most max_ζ |c(ζ)|² (a deterministic bound: the mean of |c|²·|ν|² is at
// most max|c|² times the mean of |ν|²) and, for noise spread evenly over the
// points as every kernel's is in expectation, by mean_ζ |c(ζ)|². Both are
// computed exactly once per constant (a length-m DFT over C of its 0/1
// coefficients, by Bluestein's algorithm); the crude bound of GHS,
// |c(ζ)| <= weight of c, is 2^3-2^8 larger in energy for typical masks.

// ConstPlaintext is a plaintext prepared for MulConst and AddConst: its 0/1
// coefficients in evaluation form modulo every ciphertext prime (a level-t
// ciphertext uses rows 0..t) and its canonical-embedding size. Immutable,
// safe for concurrent use.
type ConstPlaintext struct {
	pt      BinaryPoly
	eval    *Poly
	logMax  float64 // log2 max_ζ |c(ζ)|² (-Inf for c = 0)
	logMean float64 // log2 mean_ζ |c(ζ)|²
}

// NewConstPlaintext prepares the constant pt (an element of A_2, e.g. from
// Encoder.Encode) for MulConst and AddConst. It runs len(Q) transforms and
// a complex DFT of length m.
func (pr *Params) NewConstPlaintext(pt BinaryPoly) *ConstPlaintext {
	r := pr.ringQ
	c := &ConstPlaintext{pt: append(BinaryPoly(nil), pt...)}
	c.eval = plainPoly(r, pt, r.MaxLevel(), r.NewScratch())
	c.logMax, c.logMean = canonicalSize(pt, pr.m)
	return c
}

// EncodeConst prepares the slot-wise constant with values[j] ∈ GF(2^d) in
// slot j (see Encode).
func (e *Encoder) EncodeConst(values []uint64) (*ConstPlaintext, error) {
	pt := NewBinaryPoly(e.n)
	if err := e.Encode(values, pt); err != nil {
		return nil, fmt.Errorf("bgv constant: %w", err)
	}
	return e.params.NewConstPlaintext(pt), nil
}

// EncodeConstBits prepares the slot-wise constant with bit b[j] in slot j
// (a mask: MulConst keeps the slots with b[j] = 1 and zeroes the others).
func (e *Encoder) EncodeConstBits(b []uint8) (*ConstPlaintext, error) {
	pt := NewBinaryPoly(e.n)
	if err := e.EncodeBits(b, pt); err != nil {
		return nil, fmt.Errorf("bgv constant: %w", err)
	}
	return e.params.NewConstPlaintext(pt), nil
}

// Plaintext returns a copy of the constant as an element of A_2.
func (c *ConstPlaintext) Plaintext() BinaryPoly { return append(BinaryPoly(nil), c.pt...) }

// LogNorm returns log2 of the canonical-embedding norm max_ζ |c(ζ)| over
// the primitive m-th roots of unity ζ (-Inf for the zero constant): the
// factor by which MulConst can grow the noise.
func (c *ConstPlaintext) LogNorm() float64 { return c.logMax / 2 }

// canonicalSize returns log2 of max and mean over the primitive m-th roots ζ
// of |a(ζ)|², for a binary polynomial a of degree < m-1: Bluestein's
// chirp-z transform, X_j = w^(j²)·Σ_i (a_i·w^(i²))·w^(-(j-i)²) with
// w = exp(-πi/m), as a power-of-two convolution. The maximum is raised by a
// relative 1e-9 to cover the floating-point error (|X_j| <= m, error
// ~1e-16·m·log m).
func canonicalSize(a BinaryPoly, m int) (logMax, logMean float64) {
	size := 1
	for size < 2*m-1 {
		size *= 2
	}
	chirp := make([]complex128, m) // w^(k²), the exponent reduced mod 2m
	for k := range chirp {
		e := uint64(k) * uint64(k) % uint64(2*m)
		chirp[k] = cmplx.Rect(1, -math.Pi*float64(e)/float64(m))
	}
	x := make([]complex128, size)
	y := make([]complex128, size)
	weight := 0
	for i := 0; i < m-1; i++ {
		if a.Bit(i) == 1 {
			x[i] = chirp[i]
			weight++
		}
	}
	if weight == 0 {
		return math.Inf(-1), math.Inf(-1)
	}
	y[0] = 1
	for k := 1; k < m; k++ {
		y[k] = cmplx.Conj(chirp[k])
		y[size-k] = y[k]
	}
	fft := fourier.NewCmplxFFT(size)
	fx := fft.Coefficients(nil, x)
	fy := fft.Coefficients(nil, y)
	for i := range fx {
		fx[i] *= fy[i]
	}
	conv := fft.Sequence(nil, fx) // unnormalised: divide by size
	maxV, sum := 0.0, 0.0
	for j := 1; j < m; j++ {
		v := conv[j] * chirp[j] / complex(float64(size), 0)
		s := real(v)*real(v) + imag(v)*imag(v)
		sum += s
		maxV = max(maxV, s)
	}
	maxV = maxV*(1+1e-9) + 1e-9
	return math.Log2(maxV), math.Log2(sum / float64(m-1))
}

// mulConstNoise is the estimate of c·ν (see above): hi grows by max|c|²,
// lo by mean|c|²; the ancestry stays (c is public).
func mulConstNoise(a NoiseEstimate, c *ConstPlaintext) NoiseEstimate {
	if !a.set || math.IsInf(c.logMax, -1) {
		return NoiseEstimate{}
	}
	a.hi += c.logMax
	a.lo += c.logMean
	return a
}

// addConstNoise is the estimate of ν + c. The public c is independent of
// the encryption noise, so lo adds energies; hi takes the triangle
// inequality (sqrt(w) + sqrt(w_c))² because the plaintext part of ν may
// hold c already (adding c twice doubles it).
func addConstNoise(a NoiseEstimate, c *ConstPlaintext) NoiseEstimate {
	if math.IsInf(c.logMean, -1) {
		return a
	}
	if !a.set {
		return NoiseEstimate{hi: c.logMean, lo: c.logMean, set: true}
	}
	a.lo = logAdd(a.lo, c.logMean)
	a.hi = 2 * logAdd(a.hi/2, c.logMean/2)
	return a
}

// constPlan returns the level at which to apply an operation whose noise
// grow computes, and that noise: the operand is switched down only if the
// result would not decrypt at its level and dropping pays (shouldDrop);
// ok is false if no level works.
func (pr *Params) constPlan(a NoiseEstimate, t int, grow func(NoiseEstimate, int) NoiseEstimate) (int, NoiseEstimate, bool) {
	for {
		out := grow(a, t)
		if pr.boundOf(out) < pr.logQ(t)-2 {
			return t, out, true
		}
		if !pr.shouldDrop(a, t) {
			return t, out, false
		}
		a, t = pr.dropNoise(a, t), t-1
	}
}

// MulConst sets out = c·a, the slot-wise product with a prepared constant
// (GHS 3.4): one pointwise product per row, in evaluation form. The noise
// grows by at most c's canonical norm (see ConstPlaintext); a is switched
// down first only if the product would not decrypt at a's level, and the
// call fails with ErrNoiseBudget if no level suffices. out may alias a.
// Allocates nothing.
func (ev *Evaluator) MulConst(a *Ciphertext, c *ConstPlaintext, out *Ciphertext, sc *Scratch) error {
	pr := ev.params
	if a.Degree() != 1 {
		return fmt.Errorf("bgv mul const: degree %d, want 1", a.Degree())
	}
	t, noise, ok := pr.constPlan(a.Noise, a.Level(), func(x NoiseEstimate, _ int) NoiseEstimate { return mulConstNoise(x, c) })
	if !ok {
		return fmt.Errorf("bgv mul const: noise 2^%.1f at level %d (log2 Q = %.1f): %w",
			pr.boundOf(noise), t, pr.logQ(t), ErrNoiseBudget)
	}
	if out != a {
		copyTo(a, out)
	}
	if err := ev.SwitchToLevel(out, t, sc); err != nil {
		return fmt.Errorf("bgv mul const: %w", err)
	}
	pr.mulConstRows(out, c)
	out.Noise = noise
	return nil
}

// mulConstRows multiplies both components of ct by c in place, at ct's level.
func (pr *Params) mulConstRows(ct *Ciphertext, c *ConstPlaintext) {
	r := pr.ringQ
	for _, p := range ct.Value {
		for i := range p.Rows {
			x := p.Rows[i][:r.n]
			r.moduli[i].mulVec(x, c.eval.Rows[i][:r.n], x)
		}
	}
}

// MulConstNew returns c·a (allocating result and scratch).
func (ev *Evaluator) MulConstNew(a *Ciphertext, c *ConstPlaintext) (*Ciphertext, error) {
	out := ev.params.NewCiphertext()
	if err := ev.MulConst(a, c, out, ev.NewScratch()); err != nil {
		return nil, err
	}
	return out, nil
}

// AddConst sets out = a + c (slot-wise sum with a prepared constant): c is
// added to the first component. out may alias a. Allocates nothing.
func (ev *Evaluator) AddConst(a *Ciphertext, c *ConstPlaintext, out *Ciphertext) error {
	if a.Degree() != 1 {
		return fmt.Errorf("bgv add const: degree %d, want 1", a.Degree())
	}
	r := ev.params.ringQ
	setLevel(out, a.Level())
	for i, row := range out.Value[0].Rows {
		q := r.moduli[i].Q
		x, y := a.Value[0].Rows[i][:r.n], c.eval.Rows[i][:r.n]
		for k := range row[:r.n] {
			row[k] = ring.AddMod64(x[k], y[k], q)
		}
	}
	out.Value[1].CopyFrom(a.Value[1])
	out.Noise = addConstNoise(a.Noise, c)
	return nil
}
