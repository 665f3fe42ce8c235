package ring

import (
	"fmt"
	"math/big"
	"math/bits"
)

// MaxQ64 bounds the 64-bit modulus: Q < 2^61 keeps the lazy butterfly range
// [0, 4Q) inside a uint64 with room for a few lazy additions.
const MaxQ64 = 1 << 61

// Modulus64 is an odd modulus Q < 2^61 with its reduction constants, the
// 64-bit (BGV) counterpart of Modulus32 with the same method set and the same
// aliasing rules: out may alias an input exactly; the output sets the length.
type Modulus64 struct {
	// Q is the modulus.
	Q uint64
	// bHi, bLo = floor(2^128 / Q): Barrett constant for 128-bit products.
	bHi, bLo uint64
}

// NewModulus64 validates q (odd, 3 <= q < 2^61) and precomputes its Barrett
// constant.
func NewModulus64(q uint64) (Modulus64, error) {
	if q < 3 || q >= MaxQ64 || q%2 == 0 {
		return Modulus64{}, fmt.Errorf("ring: 64-bit modulus %d must be odd and in [3, 2^61)", q)
	}
	b := new(big.Int).Lsh(big.NewInt(1), 128)
	b.Quo(b, new(big.Int).SetUint64(q))
	lo := new(big.Int).And(b, new(big.Int).SetUint64(^uint64(0))).Uint64()
	hi := new(big.Int).Rsh(b, 64).Uint64()
	return Modulus64{Q: q, bHi: hi, bLo: lo}, nil
}

// reduce128 returns (hi·2^64 + lo) mod Q for any 128-bit value. The quotient
// estimate floor(x·floor(2^128/Q) / 2^128) is floor(x/Q) or one less, so the
// remainder, computed modulo 2^64, is in [0, 2Q) before the last subtraction.
func reduce128(hi, lo, q, bHi, bLo uint64) uint64 {
	// x·b = hi·bHi·2^128 + (hi·bLo + lo·bHi)·2^64 + lo·bLo; keep bits >= 128.
	t0, _ := bits.Mul64(lo, bLo)
	h1, l1 := bits.Mul64(hi, bLo)
	h2, l2 := bits.Mul64(lo, bHi)
	s, c1 := bits.Add64(l1, l2, 0)
	_, c2 := bits.Add64(s, t0, 0)
	quo := hi*bHi + h1 + h2 + c1 + c2
	r := lo - quo*q
	return min(r, r-q)
}

// Reduce returns x mod Q for any x < 2^64.
func (m Modulus64) Reduce(x uint64) uint64 {
	return reduce128(0, x, m.Q, m.bHi, m.bLo)
}

// MulMod returns a·b mod Q for any a, b < 2^64.
func (m Modulus64) MulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return reduce128(hi, lo, m.Q, m.bHi, m.bLo)
}

// AddMod returns a+b mod Q for a, b in [0, Q).
func (m Modulus64) AddMod(a, b uint64) uint64 { return AddMod64(a, b, m.Q) }

// SubMod returns a-b mod Q for a, b in [0, Q).
func (m Modulus64) SubMod(a, b uint64) uint64 { return SubMod64(a, b, m.Q) }

// NegMod returns -a mod Q for a in [0, Q).
func (m Modulus64) NegMod(a uint64) uint64 {
	d := m.Q - a
	return min(d, d-m.Q)
}

// ShoupConst returns w' = floor(w·2^64 / Q) for a constant w in [0, Q).
func (m Modulus64) ShoupConst(w uint64) uint64 { return ShoupConst64(w, m.Q) }

// MulShoupLazy returns x·w mod Q in [0, 2Q) for any x < 2^64, given
// wShoup = ShoupConst(w).
func (m Modulus64) MulShoupLazy(x, w, wShoup uint64) uint64 {
	return MulShoupLazy64(x, w, wShoup, m.Q)
}

// MulShoup returns x·w mod Q in [0, Q) for any x < 2^64.
func (m Modulus64) MulShoup(x, w, wShoup uint64) uint64 { return MulShoup64(x, w, wShoup, m.Q) }

// The free functions below are the scalar kernels behind Modulus64 for
// loops that hold q in a register (transforms, RNS row loops): the same
// arithmetic without the struct. All take q odd, q < 2^61.

// ShoupConst64 returns w' = floor(w·2^64 / q), the Shoup companion of the
// constant w in [0, q).
func ShoupConst64(w, q uint64) uint64 {
	quo, _ := bits.Div64(w, 0, q)
	return quo
}

// MulShoupLazy64 returns x·w mod q in [0, 2q) for any x < 2^64, given
// ws = ShoupConst64(w, q): the estimate hi(x·ws) of x·w/q is off by at most
// one.
func MulShoupLazy64(x, w, ws, q uint64) uint64 {
	hi, _ := bits.Mul64(x, ws)
	return x*w - hi*q
}

// MulShoup64 is MulShoupLazy64 reduced to [0, q).
func MulShoup64(x, w, ws, q uint64) uint64 {
	r := MulShoupLazy64(x, w, ws, q)
	return min(r, r-q)
}

// AddMod64 returns a+b mod q for a, b in [0, q). Branch-free (min compiles
// to a conditional move): on random residues a branch mispredicts half the
// time.
func AddMod64(a, b, q uint64) uint64 {
	s := a + b
	return min(s, s-q)
}

// SubMod64 returns a-b mod q for a, b in [0, q), branch-free: when a < b,
// a-b wraps above 2^63 and a-b+q is the smaller value.
func SubMod64(a, b, q uint64) uint64 {
	r := a - b
	return min(r, r+q)
}

// Centered returns the representative of x (in [0, Q)) in
// [-(Q-1)/2, (Q-1)/2].
func (m Modulus64) Centered(x uint64) int64 {
	if x > m.Q/2 {
		return int64(x) - int64(m.Q)
	}
	return int64(x)
}

// FromInt64 returns v mod Q in [0, Q) for any v.
func (m Modulus64) FromInt64(v int64) uint64 {
	r := v % int64(m.Q)
	if r < 0 {
		r += int64(m.Q)
	}
	return uint64(r)
}

// Add sets out = a + b mod Q slot-wise; a, b in [0, Q).
func (m Modulus64) Add(a, b, out []uint64) {
	q := m.Q
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		s := a[i] + b[i]
		out[i] = min(s, s-q)
	}
}

// Sub sets out = a - b mod Q slot-wise; a, b in [0, Q).
func (m Modulus64) Sub(a, b, out []uint64) {
	q := m.Q
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		d := a[i] - b[i] + q
		out[i] = min(d, d-q)
	}
}

// Neg sets out = -a mod Q slot-wise; a in [0, Q).
func (m Modulus64) Neg(a, out []uint64) {
	q := m.Q
	a = a[:len(out)]
	for i := range out {
		d := q - a[i]
		out[i] = min(d, d-q)
	}
}

// Reduce64 sets out = a mod Q slot-wise for arbitrary uint64 inputs.
func (m Modulus64) Reduce64(a, out []uint64) {
	q, bh, bl := m.Q, m.bHi, m.bLo
	a = a[:len(out)]
	for i := range out {
		out[i] = reduce128(0, a[i], q, bh, bl)
	}
}

// MulCoeffs sets out = a·b mod Q slot-wise for any a, b < 2^64 (so Lazy NTT
// outputs may be multiplied directly).
func (m Modulus64) MulCoeffs(a, b, out []uint64) {
	q, bh, bl := m.Q, m.bHi, m.bLo
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		hi, lo := bits.Mul64(a[i], b[i])
		out[i] = reduce128(hi, lo, q, bh, bl)
	}
}

// MulCoeffsAdd sets out = out + a·b mod Q slot-wise; a, b < 2^64, out in
// [0, Q). The addition happens on the 128-bit product, so there is a single
// reduction per slot.
func (m Modulus64) MulCoeffsAdd(a, b, out []uint64) {
	q, bh, bl := m.Q, m.bHi, m.bLo
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		hi, lo := bits.Mul64(a[i], b[i])
		var c uint64
		lo, c = bits.Add64(lo, out[i], 0)
		out[i] = reduce128(hi+c, lo, q, bh, bl)
	}
}

// MulScalar sets out = a·s mod Q slot-wise for any a < 2^64 and s in [0, Q).
func (m Modulus64) MulScalar(a []uint64, s uint64, out []uint64) {
	q := m.Q
	sp := m.ShoupConst(s)
	a = a[:len(out)]
	for i := range out {
		x := a[i]
		t, _ := bits.Mul64(x, sp)
		r := x*s - t*q
		out[i] = min(r, r-q)
	}
}

// MulScalarAdd sets out = out + a·s mod Q slot-wise; a, out, s in [0, Q).
func (m Modulus64) MulScalarAdd(a []uint64, s uint64, out []uint64) {
	q := m.Q
	sp := m.ShoupConst(s)
	a = a[:len(out)]
	for i := range out {
		x := a[i]
		t, _ := bits.Mul64(x, sp)
		r := x*s - t*q
		r = min(r, r-q) + out[i]
		out[i] = min(r, r-q)
	}
}

// AutomorphismCoeff sets out = in(X^t) in the coefficient domain (t odd, mod
// 2N, N = len(in)); see Modulus32.AutomorphismCoeff. out must not alias in.
func (m Modulus64) AutomorphismCoeff(in []uint64, t uint64, out []uint64) {
	N := len(in)
	t = galoisElement(N, t)
	mask := uint64(2*N - 1)
	out = out[:N]
	q := m.Q
	for i, c := range in {
		d := (uint64(i) * t) & mask
		if d >= uint64(N) {
			nc := q - c
			out[d-uint64(N)] = min(nc, nc-q)
		} else {
			out[d] = c
		}
	}
}

// AutomorphismCoeffWithIndex is AutomorphismCoeff with index =
// AutomorphismCoeffIndex(N, t). out must not alias in.
func (m Modulus64) AutomorphismCoeffWithIndex(in []uint64, index []uint32, out []uint64) {
	q := m.Q
	in = in[:len(index)]
	for i, d := range index {
		c := in[i]
		if d&negFlag != 0 {
			nc := q - c
			c = min(nc, nc-q)
		}
		out[d&^negFlag] = c
	}
}

// MulByMonomial sets out = in · X^k in Z_Q[X]/(X^N+1) (coefficient domain,
// N = len(in), any integer k). out must not alias in.
func (m Modulus64) MulByMonomial(in []uint64, k int, out []uint64) {
	N := len(in)
	out = out[:N]
	k %= 2 * N
	if k < 0 {
		k += 2 * N
	}
	q := m.Q
	neg := k >= N
	if neg {
		k -= N
	}
	for i, c := range in {
		j := i + k
		flip := neg
		if j >= N {
			j -= N
			flip = !flip
		}
		if flip {
			nc := q - c
			c = min(nc, nc-q)
		}
		out[j] = c
	}
}
