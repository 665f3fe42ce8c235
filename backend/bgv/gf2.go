package bgv

import (
	"math/bits"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// GF2d is the finite field GF(2^d) = GF(2)[Y]/F(Y) for an irreducible F of
// degree d <= 63. Elements are uint64 bit vectors in the polynomial basis:
// bit k is the coefficient of Y^k, so addition is XOR. The slot field of an
// Encoder is GF2d{F_0} with ζ = Y, a primitive m-th root of unity.
type GF2d struct {
	d    int
	poly uint64 // F including its leading bit 1<<d
}

// NewGF2d returns GF(2)[Y]/poly; poly (leading bit included) must be
// irreducible of degree 1..63 (not checked: see irreducible).
func NewGF2d(poly uint64) GF2d { return GF2d{d: 63 - bits.LeadingZeros64(poly), poly: poly} }

// Degree returns d.
func (f GF2d) Degree() int { return f.d }

// Poly returns the defining polynomial F (bit d set).
func (f GF2d) Poly() uint64 { return f.poly }

// Mul returns a·b for a, b < 2^d: shift-and-add with the reduction
// interleaved, so intermediate values stay below 2^(d+1).
func (f GF2d) Mul(a, b uint64) uint64 {
	var r uint64
	for i := f.d - 1; i >= 0; i-- {
		r <<= 1
		if r>>uint(f.d)&1 == 1 {
			r ^= f.poly
		}
		if b>>uint(i)&1 == 1 {
			r ^= a
		}
	}
	return r
}

// Pow returns a^e.
func (f GF2d) Pow(a, e uint64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = f.Mul(r, a)
		}
		a = f.Mul(a, a)
	}
	return r
}

// Frobenius returns a^(2^k).
func (f GF2d) Frobenius(a uint64, k int) uint64 {
	for ; k > 0; k-- {
		a = f.Mul(a, a)
	}
	return a
}

// Inv returns a^-1 (a != 0) as a^(2^d - 2).
func (f GF2d) Inv(a uint64) uint64 { return f.Pow(a, (uint64(1)<<uint(f.d))-2) }

// polyModSmall returns a mod f for GF(2) polynomials given as bit vectors of
// degree <= 63 (f != 0).
func polyModSmall(a, f uint64) uint64 {
	df := 63 - bits.LeadingZeros64(f)
	for a != 0 {
		da := 63 - bits.LeadingZeros64(a)
		if da < df {
			break
		}
		a ^= f << uint(da-df)
	}
	return a
}

// polyGCDSmall returns gcd(a, b) over GF(2) for degree <= 63.
func polyGCDSmall(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, polyModSmall(a, b)
	}
	return a
}

// irreducible reports whether f (degree 1..63) is irreducible over GF(2) by
// Rabin's test: Y^(2^d) ≡ Y mod f, and gcd(Y^(2^(d/r)) - Y, f) = 1 for every
// prime r | d. Arithmetic modulo a reducible f is still well defined, so GF2d
// serves for the powers.
func irreducible(f uint64) bool {
	d := 63 - bits.LeadingZeros64(f)
	if d < 1 {
		return false
	}
	k := GF2d{d: d, poly: f}
	y := polyModSmall(2, f)
	if k.Frobenius(y, d) != y {
		return false
	}
	for _, r := range ring.PrimeFactors(uint64(d)) {
		if polyGCDSmall(f, k.Frobenius(y, d/int(r))^y) != 1 {
			return false
		}
	}
	return true
}

// BinaryPoly is an element of A_2 = GF(2)[X]/Φ_m (a plaintext): bit i%64 of
// word i/64 is the coefficient of X^i, degree < φ(m); bits from φ(m) on are zero.
type BinaryPoly []uint64

// NewBinaryPoly returns the zero element for φ(m) = n.
func NewBinaryPoly(n int) BinaryPoly { return make(BinaryPoly, (n+63)/64) }

// Bit returns the coefficient of X^i.
func (a BinaryPoly) Bit(i int) uint64 { return a[i>>6] >> uint(i&63) & 1 }

// flip toggles the coefficient of X^i.
func (a BinaryPoly) flip(i int) { a[i>>6] ^= 1 << uint(i&63) }

// Add sets a ^= b (addition in A_2).
func (a BinaryPoly) Add(b BinaryPoly) {
	for i := range a {
		a[i] ^= b[i]
	}
}

// foldCyclotomic reduces c, a GF(2) polynomial of degree < 2m held in
// enough words, modulo Φ_m into out (n = m-1 coefficients): first modulo
// X^m - 1 (X^m = 1), then X^(m-1) = 1 + X + ... + X^(m-2).
func foldCyclotomic(c []uint64, m int, out BinaryPoly) {
	clear(out)
	top := uint64(0)
	for i := 0; i < len(c)*64; i++ {
		if c[i>>6]>>uint(i&63)&1 == 0 {
			continue
		}
		j := i % m
		if j == m-1 {
			top ^= 1
		} else {
			out.flip(j)
		}
	}
	if top == 1 {
		complementLow(out, m-1)
	}
}

// complementLow flips the coefficients of X^0..X^(n-1).
func complementLow(a BinaryPoly, n int) {
	for i := 0; i < n/64; i++ {
		a[i] = ^a[i]
	}
	if r := n % 64; r != 0 {
		a[n/64] ^= (uint64(1) << uint(r)) - 1
	}
}

// MulBinary returns a·b in A_2 (schoolbook; for tests and table construction).
func MulBinary(a, b BinaryPoly, m int) BinaryPoly {
	c := make([]uint64, 2*len(a)+1)
	for i := 0; i < m-1; i++ {
		if a.Bit(i) == 1 {
			xorShifted(c, b, i)
		}
	}
	out := NewBinaryPoly(m - 1)
	foldCyclotomic(c, m, out)
	return out
}

// xorShifted sets acc ^= b·X^k; acc must hold len(b)+k/64+1 words.
func xorShifted(acc []uint64, b []uint64, k int) {
	w, s := k>>6, uint(k&63)
	if s == 0 {
		for i, v := range b {
			acc[w+i] ^= v
		}
		return
	}
	for i, v := range b {
		acc[w+i] ^= v << s
		acc[w+i+1] ^= v >> (64 - s)
	}
}

// AutomorphismBinary returns κ_t(a) = a(X^t) in A_2, t a unit mod m.
func AutomorphismBinary(a BinaryPoly, t uint64, m int, out BinaryPoly) {
	mm := uint64(m)
	t %= mm
	tInv := ring.InvModPrime(t, mm)
	clear(out)
	// Position j receives a_(j·t^-1); position m-1 (source m - t^-1) is
	// folded into all others.
	var top uint64
	if src := int(mm - tInv); src < m-1 {
		top = a.Bit(src)
	}
	k := uint64(0)
	for j := 0; j < m-1; j++ {
		v := uint64(0)
		if k != mm-1 {
			v = a.Bit(int(k))
		}
		if v^top == 1 {
			out.flip(j)
		}
		k += tInv
		if k >= mm {
			k -= mm
		}
	}
}
