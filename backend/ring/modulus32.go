package ring

import (
	"fmt"
	"math/bits"
)

// MaxQ32 bounds the 32-bit modulus: Q < 2^30 keeps the lazy range [0, 4Q) of
// Harvey's butterflies inside a uint32.
const MaxQ32 = 1 << 30

// Modulus32 is an odd modulus Q < 2^30 with its reduction constants. The zero
// value is not usable; build it with NewModulus32. It is a small value type,
// safe to copy and to share between goroutines.
//
// Vector methods take their operands as []uint32 of equal length (the output
// sets the length; longer inputs are allowed, shorter ones panic) and allow
// out to alias any input exactly (the same slice); partial overlaps are not
// supported.
type Modulus32 struct {
	// Q is the modulus.
	Q uint32
	// barrett = floor(2^64 / Q): for any x < 2^64, x - hi64(x·barrett)·Q lies
	// in [0, 2Q), so one conditional subtraction reduces fully.
	barrett uint64
	// vecConst holds the constants of the vector pointwise kernels:
	// Q, 2Q, R = 2^32 mod Q, R' = floor(R·2^32/Q), floor(2^32/Q), 2^32-1.
	vecConst [6]uint64
}

// NewModulus32 validates q (odd, 3 <= q < 2^30) and precomputes its Barrett
// constant. q need not be prime for the pointwise operations; NTT32 checks
// primality itself.
func NewModulus32(q uint32) (Modulus32, error) {
	if q < 3 || q >= MaxQ32 || q%2 == 0 {
		return Modulus32{}, fmt.Errorf("ring: 32-bit modulus %d must be odd and in [3, 2^30)", q)
	}
	Q := uint64(q)
	R := (1 << 32) % Q
	return Modulus32{Q: q, barrett: ^uint64(0) / Q,
		vecConst: [6]uint64{Q, 2 * Q, R, (R << 32) / Q, (1 << 32) / Q, 1<<32 - 1}}, nil
}

// Reduce returns x mod Q for any x < 2^64 (Barrett reduction).
func (m Modulus32) Reduce(x uint64) uint32 {
	hi, _ := bits.Mul64(x, m.barrett)
	r := uint32(x - hi*uint64(m.Q))
	return min(r, r-m.Q)
}

// MulMod returns a·b mod Q for any a, b < 2^32.
func (m Modulus32) MulMod(a, b uint32) uint32 {
	return m.Reduce(uint64(a) * uint64(b))
}

// AddMod returns a+b mod Q for a, b in [0, Q).
func (m Modulus32) AddMod(a, b uint32) uint32 {
	s := a + b
	return min(s, s-m.Q)
}

// SubMod returns a-b mod Q for a, b in [0, Q).
func (m Modulus32) SubMod(a, b uint32) uint32 {
	d := a - b + m.Q
	return min(d, d-m.Q)
}

// NegMod returns -a mod Q for a in [0, Q) (0 stays 0).
func (m Modulus32) NegMod(a uint32) uint32 {
	d := m.Q - a
	return min(d, d-m.Q)
}

// ShoupConst returns Harvey/Shoup's companion w' = floor(w·2^32 / Q) of a
// constant w in [0, Q), for MulShoup.
func (m Modulus32) ShoupConst(w uint32) uint32 {
	return uint32((uint64(w) << 32) / uint64(m.Q))
}

// MulShoupLazy returns x·w mod Q in [0, 2Q) for any x < 2^32, given
// wShoup = ShoupConst(w). It needs one 32x32->64 multiplication and two
// wrapping 32-bit ones: the quotient estimate is off by at most one.
func (m Modulus32) MulShoupLazy(x, w, wShoup uint32) uint32 {
	q := uint32((uint64(x) * uint64(wShoup)) >> 32)
	return x*w - q*m.Q
}

// MulShoup returns x·w mod Q in [0, Q) for any x < 2^32.
func (m Modulus32) MulShoup(x, w, wShoup uint32) uint32 {
	r := m.MulShoupLazy(x, w, wShoup)
	return min(r, r-m.Q)
}

// Centered returns the representative of x (in [0, Q)) in
// [-(Q-1)/2, (Q-1)/2].
func (m Modulus32) Centered(x uint32) int64 {
	if x > m.Q/2 {
		return int64(x) - int64(m.Q)
	}
	return int64(x)
}

// FromInt64 returns v mod Q in [0, Q) for any v (negative values wrap).
func (m Modulus32) FromInt64(v int64) uint32 {
	r := v % int64(m.Q)
	if r < 0 {
		r += int64(m.Q)
	}
	return uint32(r)
}

// Add sets out = a + b mod Q slot-wise; a, b in [0, Q).
func (m Modulus32) Add(a, b, out []uint32) {
	q := m.Q
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		s := a[i] + b[i]
		out[i] = min(s, s-q)
	}
}

// Sub sets out = a - b mod Q slot-wise; a, b in [0, Q).
func (m Modulus32) Sub(a, b, out []uint32) {
	q := m.Q
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		d := a[i] - b[i] + q
		out[i] = min(d, d-q)
	}
}

// Neg sets out = -a mod Q slot-wise; a in [0, Q).
func (m Modulus32) Neg(a, out []uint32) {
	q := m.Q
	a = a[:len(out)]
	for i := range out {
		d := q - a[i]
		out[i] = min(d, d-q)
	}
}

// Reduce32 sets out = a mod Q slot-wise for arbitrary uint32 inputs, e.g. to
// bring a Lazy result back into [0, Q).
func (m Modulus32) Reduce32(a, out []uint32) {
	a = a[:len(out)]
	for i := range out {
		out[i] = m.Reduce(uint64(a[i]))
	}
}

// MulCoeffs sets out = a·b mod Q slot-wise (the product of two NTT-domain
// polynomials). Any a, b < 2^32 are accepted, so Lazy NTT outputs may be
// multiplied directly.
func (m Modulus32) MulCoeffs(a, b, out []uint32) {
	q, br := uint64(m.Q), m.barrett
	a, b = a[:len(out)], b[:len(out)]
	n := m.mulCoeffsVec(a, b, out, false)
	a, b, out = a[n:], b[n:], out[n:]
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		x := uint64(a[i]) * uint64(b[i])
		hi, _ := bits.Mul64(x, br)
		r := uint32(x - hi*q)
		out[i] = min(r, r-uint32(q))
	}
}

// MulCoeffsAdd sets out = out + a·b mod Q slot-wise: the external product's
// inner step. out must be in [0, Q) and a·b + out < 2^64, which holds for
// a, b in [0, 2Q). When several products are summed, MulCoeffsAddLazy into a
// uint64 accumulator followed by one ReduceLazy is faster.
func (m Modulus32) MulCoeffsAdd(a, b, out []uint32) {
	q, br := uint64(m.Q), m.barrett
	a, b = a[:len(out)], b[:len(out)]
	n := m.mulCoeffsVec(a, b, out, true)
	a, b, out = a[n:], b[n:], out[n:]
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		x := uint64(a[i])*uint64(b[i]) + uint64(out[i])
		hi, _ := bits.Mul64(x, br)
		r := uint32(x - hi*q)
		out[i] = min(r, r-uint32(q))
	}
}

// MaxLazyTerms returns how many products a·b with a, b in [0, Q) can be
// accumulated by MulCoeffsAddLazy into a zeroed uint64 accumulator before
// ReduceLazy must be called: floor((2^64 - 1) / (Q-1)^2). It is 2^10 for a
// 27-bit Q and 16 for Q just under 2^30. With one factor from ForwardLazy
// (in [0, 2Q)) the bound halves; with both, it quarters.
func (m Modulus32) MaxLazyTerms() int {
	s := uint64(m.Q - 1)
	return int(^uint64(0) / (s * s))
}

// MulCoeffsAddLazy sets acc = acc + a·b slot-wise without any reduction: one
// multiply-add per slot. The caller keeps the sum below 2^64 (see
// MaxLazyTerms) and finishes with ReduceLazy.
func (m Modulus32) MulCoeffsAddLazy(a, b []uint32, acc []uint64) {
	a, b = a[:len(acc)], b[:len(acc)]
	n := mulCoeffsAddLazyVec(a, b, acc)
	a, b, acc = a[n:], b[n:], acc[n:]
	a, b = a[:len(acc)], b[:len(acc)]
	for i := range acc {
		acc[i] += uint64(a[i]) * uint64(b[i])
	}
}

// ReduceLazy sets out = acc mod Q slot-wise (any acc < 2^64).
func (m Modulus32) ReduceLazy(acc []uint64, out []uint32) {
	q, br := uint64(m.Q), m.barrett
	acc = acc[:len(out)]
	n := m.reduceLazyVec(acc, out)
	acc, out = acc[n:], out[n:]
	acc = acc[:len(out)]
	for i := range out {
		x := acc[i]
		hi, _ := bits.Mul64(x, br)
		r := uint32(x - hi*q)
		out[i] = min(r, r-uint32(q))
	}
}

// MulScalar sets out = a·s mod Q slot-wise for any a < 2^32 and s in [0, Q).
func (m Modulus32) MulScalar(a []uint32, s uint32, out []uint32) {
	q := m.Q
	sp := m.ShoupConst(s)
	a = a[:len(out)]
	for i := range out {
		x := a[i]
		t := uint32((uint64(x) * uint64(sp)) >> 32)
		r := x*s - t*q
		out[i] = min(r, r-q)
	}
}

// MulScalarAdd sets out = out + a·s mod Q slot-wise; a, out in [0, Q),
// s in [0, Q).
func (m Modulus32) MulScalarAdd(a []uint32, s uint32, out []uint32) {
	q := m.Q
	sp := m.ShoupConst(s)
	a = a[:len(out)]
	for i := range out {
		x := a[i]
		t := uint32((uint64(x) * uint64(sp)) >> 32)
		r := x*s - t*q // [0, 2Q)
		r = min(r, r-q) + out[i]
		out[i] = min(r, r-q)
	}
}
