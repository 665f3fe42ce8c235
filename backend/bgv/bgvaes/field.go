package bgvaes

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend/bgv"
)

// The AES field GF(2^8) = GF(2)[x]/(x^8+x^4+x^3+x+1) inside the slot field
// K = GF(2^d) of a BGV parameter set (8 | d, e.g. d = 32 at m = 65537, 16
// at m = 257, 8 at m = 17): K holds exactly one subfield of 2^8 elements,
// and the AES polynomial, irreducible of degree 8, has its 8 roots there.
// Picking one root α gives the isomorphism φ(Σ b_i x^i) = Σ b_i α^i, a
// field homomorphism (φ(a·b) = φ(a)·φ(b)), so the AES S-box and MixColumns
// can be evaluated slot-wise in K on the images φ(byte).

// aesPoly is x^8+x^4+x^3+x+1.
const aesPoly = 0x11b

// aesMul is the AES field's product (shift and add, reduced by aesPoly):
// the slow reference the embedding is tested against.
func aesMul(a, b byte) byte {
	var r byte
	for ; b != 0; b >>= 1 {
		if b&1 == 1 {
			r ^= a
		}
		hi := a & 0x80
		a <<= 1
		if hi != 0 {
			a ^= aesPoly & 0xff
		}
	}
	return r
}

// aesInv is b^254 in the AES field (0 for 0).
func aesInv(b byte) byte {
	r := byte(1)
	for range 254 {
		r = aesMul(r, b)
	}
	return r
}

// Field is GF(2^8) embedded in a slot field K by φ (see above). Immutable.
type Field struct {
	k     bgv.GF2d
	alpha uint64
	emb   [256]uint64
	ext   map[uint64]byte
}

// NewField finds the smallest root α of the AES polynomial in k (as a bit
// vector; deterministic) and tabulates φ. It fails unless 8 divides k's degree.
func NewField(k bgv.GF2d) (*Field, error) {
	d := k.Degree()
	if d%8 != 0 {
		return nil, fmt.Errorf("bgvaes: slot field GF(2^%d) does not contain GF(2^8) (8 must divide d)", d)
	}
	// Elements of the subfield are the z with z^(2^8) = z; the roots of the
	// AES polynomial are among them. Search a generator of the subfield's
	// unit group: β^((2^d-1)/255) for β = 2, 3, ... until it has order 255.
	exp := (uint64(1)<<uint(d) - 1) / 255
	var gen uint64
	for b := uint64(2); b < uint64(1)<<uint(d) && gen == 0; b++ {
		z := k.Pow(b, exp)
		if k.Pow(z, 255/3) != 1 && k.Pow(z, 255/5) != 1 && k.Pow(z, 255/17) != 1 {
			gen = z
		}
	}
	if gen == 0 {
		return nil, fmt.Errorf("bgvaes: no element of order 255 in GF(2^%d)", d)
	}
	f := &Field{k: k, ext: make(map[uint64]byte, 256)}
	z := uint64(1)
	found := false
	for range 255 {
		// P(z) = z^8 + z^4 + z^3 + z + 1.
		if k.Pow(z, 8)^k.Pow(z, 4)^k.Pow(z, 3)^z^1 == 0 && (!found || z < f.alpha) {
			f.alpha, found = z, true
		}
		z = k.Mul(z, gen)
	}
	if !found {
		return nil, fmt.Errorf("bgvaes: the AES polynomial has no root in GF(2^%d)", d)
	}
	for b := range 256 {
		var v, p uint64 = 0, 1
		for i := range 8 {
			if b>>uint(i)&1 == 1 {
				v ^= p
			}
			p = k.Mul(p, f.alpha)
		}
		f.emb[b] = v
		if _, dup := f.ext[v]; dup {
			return nil, fmt.Errorf("bgvaes: internal error: φ is not injective")
		}
		f.ext[v] = byte(b)
	}
	return f, nil
}

// Slot returns the slot field K.
func (f *Field) Slot() bgv.GF2d { return f.k }

// Alpha returns the root α = φ(x) of the AES polynomial in K.
func (f *Field) Alpha() uint64 { return f.alpha }

// Embed returns φ(b).
func (f *Field) Embed(b byte) uint64 { return f.emb[b] }

// Extract returns φ^-1(v); ok is false if v is not in the image of φ (a
// wrong slot, e.g. from a ciphertext that did not decrypt).
func (f *Field) Extract(v uint64) (b byte, ok bool) {
	b, ok = f.ext[v]
	return b, ok
}

// linCoeffs are the coefficients c_0..c_7 ∈ K of a linearized polynomial
// y ↦ Σ_j c_j·y^(2^j).
type linCoeffs [8]uint64

// eval evaluates the linearized polynomial at y.
func (f *Field) eval(c linCoeffs, y uint64) uint64 {
	var r uint64
	for j := range 8 {
		r ^= f.k.Mul(c[j], y)
		y = f.k.Mul(y, y)
	}
	return r
}

// Linearized returns the c_j with φ(T(b)) = Σ_j c_j·φ(b)^(2^j) for every
// byte b, for a GF(2)-linear T (every such map of GF(2^8) is a linearized
// polynomial of this form, and its coefficients are unique). They solve the
// 8×8 system over K with rows b = 2^i (the Moore matrix of the basis
// φ(2^i), invertible because the basis is linearly independent over GF(2)).
// It fails if T is not linear.
func (f *Field) Linearized(T func(byte) byte) (linCoeffs, error) {
	var c linCoeffs
	for a := range 256 {
		for b := range 256 {
			if T(byte(a)^byte(b)) != T(byte(a))^T(byte(b)) {
				return c, fmt.Errorf("bgvaes: the map is not GF(2)-linear (T(%#x ^ %#x) != T(%#x) ^ T(%#x))", a, b, a, b)
			}
		}
	}
	k := f.k
	var m [8][9]uint64 // augmented: row i is Σ_j c_j·y_i^(2^j) = φ(T(2^i))
	for i := range 8 {
		y := f.emb[1<<uint(i)]
		for j := range 8 {
			m[i][j] = y
			y = k.Mul(y, y)
		}
		m[i][8] = f.emb[T(1<<uint(i))]
	}
	for col := range 8 {
		piv := -1
		for i := col; i < 8; i++ {
			if m[i][col] != 0 {
				piv = i
				break
			}
		}
		if piv < 0 {
			return c, fmt.Errorf("bgvaes: internal error: singular Moore matrix")
		}
		m[col], m[piv] = m[piv], m[col]
		inv := k.Inv(m[col][col])
		for j := col; j < 9; j++ {
			m[col][j] = k.Mul(m[col][j], inv)
		}
		for i := range 8 {
			if i != col && m[i][col] != 0 {
				fct := m[i][col]
				for j := col; j < 9; j++ {
					m[i][j] ^= k.Mul(fct, m[col][j])
				}
			}
		}
	}
	for j := range 8 {
		c[j] = m[j][8]
	}
	for b := range 256 {
		if f.eval(c, f.emb[b]) != f.emb[T(byte(b))] {
			return c, fmt.Errorf("bgvaes: internal error: linearized polynomial differs at %#x", b)
		}
	}
	return c, nil
}

// AES byte maps (FIPS-197 5.1.1): the S-box is affine(inv(b)) with the
// linear part L(b) = b ⊕ rotl(b,1) ⊕ rotl(b,2) ⊕ rotl(b,3) ⊕ rotl(b,4) and
// the constant 0x63.
func rotl(b byte, k uint) byte { return b<<k | b>>(8-k) }

func affineLinear(b byte) byte {
	return b ^ rotl(b, 1) ^ rotl(b, 2) ^ rotl(b, 3) ^ rotl(b, 4)
}

const sboxConst = 0x63

// affineLinearInv is L^-1, by table inversion of L (a bijection).
var affineLinearInv = func() func(byte) byte {
	var inv [256]byte
	for b := range 256 {
		inv[affineLinear(byte(b))] = byte(b)
	}
	return func(b byte) byte { return inv[b] }
}()

// sboxRef is the S-box by its definition, the plaintext reference.
func sboxRef(b byte) byte { return affineLinear(aesInv(b)) ^ sboxConst }

// invSboxRef is the inverse S-box by its definition.
func invSboxRef(b byte) byte { return aesInv(affineLinearInv(b ^ sboxConst)) }
