package bgv

import (
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Encoder maps vectors of ℓ slot values (elements of GF(2^d)) to plaintexts
// in A_2 = GF(2)[X]/Φ_m and back, by the polynomial CRT of Smart–Vercauteren
// (GHS 2.3): Φ_m ≡ F_0·…·F_(ℓ-1) (mod 2) with F_j irreducible of degree d.
//
// Slot field and slot order. The field is K = GF(2)[Y]/F_0 with ζ = Y, a
// primitive m-th root of unity in K, and F_j is the minimal polynomial of
// ζ^(c_j) for c_j = h^j mod m, where h = SlotGenerator() generates
// Z_m^*/<2>. Slot j of a is a(ζ^(c_j)) ∈ K, so that
//   - slot-wise sums and products are those of K,
//   - κ_2 squares every slot (Frobenius),
//   - κ_h maps slot j+1 to slot j (a left rotation by one) for j < ℓ-1, and
//     slot 0 to slot ℓ-1 raised to the power 2^r, r = RotationFrobenius().
//
// h is chosen with h^ℓ = 1 (then r = 0 and κ_h is an exact cyclic rotation of
// K-values) whenever gcd(d, ℓ) = 1, e.g. m = 8191. When gcd(d, ℓ) > 1 (m =
// 17, 257, 65537) no such h exists in Z_m^*, h = g and r != 0; κ_h still
// rotates bits (and any values of the prime field GF(2)) exactly, and a
// general K-rotation needs a second automorphism and a mask on the wrapped
// slot (HElib's "bad dimension").
//
// Deterministic: the same m always yields the same F_0, h and encodings.
// Immutable, safe for concurrent use.
type Encoder struct {
	params         *Params
	m, n, d, slots int
	field          GF2d
	h              uint64
	frob           int
	reps           []uint64     // c_j = h^j mod m
	factors        []uint64     // F_j with leading bit
	eval, interp   [][]uint64   // per slot: d columns of r -> r(ζ^c_j) and its inverse
	idem           []BinaryPoly // E_j: 1 mod F_j, 0 mod F_k (k != j)
	redTab         [][256]uint64
}

// NewEncoder builds the slot structure for pr. At m = 65537 it takes a
// fraction of a second and holds the ℓ idempotents (16 MiB).
func NewEncoder(pr *Params) (*Encoder, error) {
	e := &Encoder{params: pr, m: pr.m, n: pr.n, d: pr.d, slots: pr.slots}
	m := uint64(e.m)
	f0, err := firstCyclotomicFactor(e.m, e.d)
	if err != nil {
		return nil, err
	}
	e.field = NewGF2d(f0)
	e.h = pr.SlotGenerator()
	hl := ring.PowMod(e.h, uint64(e.slots), m)
	for x := uint64(1); x != hl; x = 2 * x % m {
		e.frob++
	}
	e.reps = make([]uint64, e.slots)
	e.factors = make([]uint64, e.slots)
	e.eval = make([][]uint64, e.slots)
	e.interp = make([][]uint64, e.slots)
	e.redTab = make([][256]uint64, e.slots)
	c := uint64(1)
	for j := range e.reps {
		e.reps[j] = c
		root := e.field.Pow(2, c) // ζ^(c_j), ζ = Y
		if e.factors[j], err = e.minimalPoly(root); err != nil {
			return nil, err
		}
		cols := make([]uint64, e.d)
		x := uint64(1)
		for k := range cols {
			cols[k] = x
			x = e.field.Mul(x, root)
		}
		e.eval[j] = cols
		if e.interp[j], err = invertGF2Matrix(cols, e.d); err != nil {
			return nil, fmt.Errorf("bgv encoder: slot %d: %w", j, err)
		}
		if e.d <= 56 {
			for b := range 256 {
				e.redTab[j][b] = polyModSmall(uint64(b)<<uint(e.d), e.factors[j])
			}
		}
		c = c * e.h % m
	}
	// E_0 = (Φ_m/F_0)·((Φ_m/F_0)^-1 mod F_0): degree < n, no reduction needed.
	cof := cyclotomicCofactor(e.m, f0)
	inv := e.field.Inv(e.reduceBy(cof, 0))
	e0 := make([]uint64, len(cof)+1)
	for k := 0; k < e.d; k++ {
		if inv>>uint(k)&1 == 1 {
			xorShifted(e0, cof, k)
		}
	}
	e.idem = make([]BinaryPoly, e.slots)
	e.idem[0] = NewBinaryPoly(e.n)
	copy(e.idem[0], e0)
	// E_j = κ_(c_j^-1)(E_0): it is 1 exactly at the roots ζ^(c_j·2^k).
	for j := 1; j < e.slots; j++ {
		e.idem[j] = NewBinaryPoly(e.n)
		AutomorphismBinary(e.idem[0], ring.InvModPrime(e.reps[j], m), e.m, e.idem[j])
	}
	return e, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// firstCyclotomicFactor returns an irreducible factor of degree d of Φ_m
// mod 2, deterministically: the minimal polynomial of α^((2^d-1)/m) in
// GF(2)[Y]/G for the smallest irreducible G of degree d and the smallest α
// (as a bit vector) for which that power is not 1 (it then has order m).
func firstCyclotomicFactor(m, d int) (uint64, error) {
	var G uint64
	for f := uint64(1)<<uint(d) | 1; f < uint64(1)<<uint(d+1); f += 2 {
		if irreducible(f) {
			G = f
			break
		}
	}
	if G == 0 {
		return 0, fmt.Errorf("bgv encoder: no irreducible polynomial of degree %d", d)
	}
	k := NewGF2d(G)
	exp := ((uint64(1) << uint(d)) - 1) / uint64(m)
	for a := uint64(2); a < uint64(1)<<uint(d); a++ {
		z := k.Pow(a, exp)
		if z != 1 {
			e := &Encoder{d: d, field: k}
			return e.minimalPoly(z)
		}
	}
	return 0, fmt.Errorf("bgv encoder: no primitive %d-th root of unity in GF(2^%d)", m, d)
}

// minimalPoly returns Π_(k<d) (X - x^(2^k)) for x in the field, which must
// have coefficients in GF(2) (x of degree d over GF(2)).
func (e *Encoder) minimalPoly(x uint64) (uint64, error) {
	f := e.field
	coef := make([]uint64, e.d+1) // coef[i] ∈ K, coefficient of X^i
	coef[0] = 1
	root := x
	for k := 0; k < e.d; k++ {
		// Multiply by (X + root) (char 2: minus is plus).
		for i := k + 1; i >= 1; i-- {
			coef[i] = coef[i-1] ^ f.Mul(coef[i], root)
		}
		coef[0] = f.Mul(coef[0], root)
		root = f.Mul(root, root)
	}
	var out uint64
	for i, c := range coef {
		if c > 1 {
			return 0, fmt.Errorf("bgv encoder: minimal polynomial has a coefficient outside GF(2)")
		}
		out |= c << uint(i)
	}
	return out, nil
}

// cyclotomicCofactor returns Φ_m / f over GF(2) (f | Φ_m), as words.
func cyclotomicCofactor(m int, f uint64) []uint64 {
	n := m - 1
	rem := NewBinaryPoly(m) // Φ_m = 1 + X + ... + X^(m-1)
	for i := 0; i < m; i++ {
		rem.flip(i)
	}
	df := 63 - bits.LeadingZeros64(f)
	quo := NewBinaryPoly(n - df + 1)
	for i := m - 1; i >= df; i-- {
		if rem.Bit(i) == 1 {
			quo.flip(i - df)
			for k := 0; k <= df; k++ {
				if f>>uint(k)&1 == 1 {
					rem.flip(i - df + k)
				}
			}
		}
	}
	return quo
}

// invertGF2Matrix inverts the d×d GF(2) matrix given by columns (bit i of
// cols[k] is row i) by Gauss–Jordan elimination; the result is also by columns.
func invertGF2Matrix(cols []uint64, d int) ([]uint64, error) {
	// Work on rows of the augmented matrix [A | I]: row i has A's row i in
	// the low d bits and I's row i above.
	rows := make([]uint64, d)
	for i := range rows {
		for k, c := range cols {
			rows[i] |= (c >> uint(i) & 1) << uint(k)
		}
		rows[i] |= 1 << uint(d+i)
	}
	for col := 0; col < d; col++ {
		piv := -1
		for i := col; i < d; i++ {
			if rows[i]>>uint(col)&1 == 1 {
				piv = i
				break
			}
		}
		if piv < 0 {
			return nil, fmt.Errorf("singular %dx%d matrix over GF(2)", d, d)
		}
		rows[col], rows[piv] = rows[piv], rows[col]
		for i := range rows {
			if i != col && rows[i]>>uint(col)&1 == 1 {
				rows[i] ^= rows[col]
			}
		}
	}
	inv := make([]uint64, d)
	for i, r := range rows {
		for k := 0; k < d; k++ {
			inv[k] |= (r >> uint(d+k) & 1) << uint(i)
		}
	}
	return inv, nil
}

// applyGF2Matrix returns Σ_k v_k·cols[k].
func applyGF2Matrix(cols []uint64, v uint64) uint64 {
	var r uint64
	for ; v != 0; v &= v - 1 {
		r ^= cols[bits.TrailingZeros64(v)]
	}
	return r
}

// reduceBy returns a mod F_j for a GF(2) polynomial given as words, a byte
// at a time from the top through a table of (b·X^d) mod F_j.
func (e *Encoder) reduceBy(a []uint64, j int) uint64 {
	f, d := e.factors[j], uint(e.d)
	var r uint64
	if e.d > 56 {
		for i := len(a)*64 - 1; i >= 0; i-- {
			r = r<<1 | a[i>>6]>>uint(i&63)&1
			if r>>d&1 == 1 {
				r ^= f
			}
		}
		return r
	}
	tab := &e.redTab[j]
	mask := uint64(1)<<d - 1
	for w := len(a) - 1; w >= 0; w-- {
		x := a[w]
		for s := 56; s >= 0; s -= 8 {
			r = r<<8 | (x >> uint(s) & 0xff)
			r = (r & mask) ^ tab[r>>d]
		}
	}
	return r
}

// Field returns the slot field K = GF(2)[Y]/F_0.
func (e *Encoder) Field() GF2d { return e.field }

// Slots returns ℓ.
func (e *Encoder) Slots() int { return e.slots }

// Factors returns F_0..F_(ℓ-1) (bit vectors with the leading bit): slot j is
// the residue modulo F_j.
func (e *Encoder) Factors() []uint64 { return append([]uint64(nil), e.factors...) }

// SlotGenerator returns h: κ_h rotates the slots left by one (see Encoder).
func (e *Encoder) SlotGenerator() uint64 { return e.h }

// RotationFrobenius returns r with h^ℓ = 2^r (mod m): κ_h moves slot 0 to
// slot ℓ-1 raised to the power 2^r. Zero means κ_h rotates K-values exactly.
func (e *Encoder) RotationFrobenius() int { return e.frob }

// Encode sets out to the plaintext whose slot j holds values[j] ∈ K
// (len(values) = ℓ, each < 2^d).
func (e *Encoder) Encode(values []uint64, out BinaryPoly) error {
	if len(values) != e.slots {
		return fmt.Errorf("bgv encode: %d values for %d slots", len(values), e.slots)
	}
	acc := make([]uint64, len(out)+2)
	for j, v := range values {
		if v>>uint(e.d) != 0 {
			return fmt.Errorf("bgv encode: slot %d value %#x is not in GF(2^%d)", j, v, e.d)
		}
		// r_j(X) with r_j(ζ^c_j) = v; then r_j·E_j is v in slot j, 0 elsewhere.
		for r := applyGF2Matrix(e.interp[j], v); r != 0; r &= r - 1 {
			xorShifted(acc, e.idem[j], bits.TrailingZeros64(r))
		}
	}
	foldCyclotomic(acc, e.m, out)
	return nil
}

// EncodeBits sets out to the plaintext with bit b[j] (0 or 1) in slot j:
// the sum of the idempotents E_j with b[j] = 1.
func (e *Encoder) EncodeBits(b []uint8, out BinaryPoly) error {
	if len(b) != e.slots {
		return fmt.Errorf("bgv encode: %d bits for %d slots", len(b), e.slots)
	}
	clear(out)
	for j, v := range b {
		switch v {
		case 0:
		case 1:
			out.Add(e.idem[j])
		default:
			return fmt.Errorf("bgv encode: slot %d value %d is not a bit", j, v)
		}
	}
	return nil
}

// Decode sets out[j] to slot j of a: (a mod F_j) evaluated at ζ^(c_j).
func (e *Encoder) Decode(a BinaryPoly, out []uint64) {
	for j := range out[:e.slots] {
		out[j] = applyGF2Matrix(e.eval[j], e.reduceBy(a, j))
	}
}

// DecodeBits sets out[j] to slot j of a, which must be 0 or 1.
func (e *Encoder) DecodeBits(a BinaryPoly, out []uint8) error {
	for j := range out[:e.slots] {
		v := applyGF2Matrix(e.eval[j], e.reduceBy(a, j))
		if v > 1 {
			return fmt.Errorf("bgv decode: slot %d holds %#x, not a bit", j, v)
		}
		out[j] = uint8(v)
	}
	return nil
}
