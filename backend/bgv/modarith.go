package bgv

import (
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// maxModulusBits bounds every prime handled by this package: q < 2^61
// (ring.MaxQ64) keeps the lazy ranges [0, 2q) and [0, 4q) of Harvey's
// butterflies and of the vector kernels inside a uint64.
const maxModulusBits = 61

// modulus is a prime of the chain: ring.Modulus64's scalar arithmetic
// (Barrett products, Shoup constants, modular addition) plus the Barrett
// constants of this package's vector row kernels. The scalar arithmetic has
// one implementation, in backend/ring (modulus64.go: Modulus64 and the free
// functions AddMod64, SubMod64, MulShoup64, ShoupConst64 for loops that hold
// q in a register).
type modulus struct {
	ring.Modulus64
	// bar = {q, k-1, 65-k, floor(2^(k+63)/q)} for the bit length k of q:
	// the Barrett constants of the vector products (MULBAR in rns_amd64.s).
	bar [4]uint64
}

// newModulus returns the modulus of the chain prime q. The primes come from
// NewParams, which validated them, so an invalid q is a programming error.
func newModulus(q uint64) modulus {
	m, err := ring.NewModulus64(q)
	if err != nil {
		panic(fmt.Sprintf("bgv: internal error: chain prime: %v", err))
	}
	k := uint64(bits.Len64(q))
	// 2^(k-1) < q (q is odd), so the quotient fits a word.
	mu, _ := bits.Div64(1<<(k-1), 0, q)
	return modulus{Modulus64: m, bar: [4]uint64{q, k - 1, 65 - k, mu}}
}

// mulVec sets out = a·b mod q for a, b < q, on the vector kernel where
// available. out may alias a or b; len(out) entries.
func (m *modulus) mulVec(a, b, out []uint64) {
	k := mulModVec(a, b, out, &m.bar, false)
	a, b = a[k:len(out)], b[k:len(out)]
	for i, o := range a {
		out[k+i] = m.MulMod(o, b[i])
	}
}

// mulAddVec sets out = out + a·b mod q for a, b, out in [0, q).
func (m *modulus) mulAddVec(a, b, out []uint64) {
	k := mulModVec(a, b, out, &m.bar, true)
	a, b = a[k:len(out)], b[k:len(out)]
	for i, o := range a {
		out[k+i] = ring.AddMod64(out[k+i], m.MulMod(o, b[i]), m.Q)
	}
}

// mulAdd2Vec sets out0 = x·b0, out1 = x·b1 mod q, or adds the products to
// out0, out1 when add: one row of a key-switching inner product (x loaded
// once for both key components).
func (m *modulus) mulAdd2Vec(x, b0, b1, out0, out1 []uint64, add bool) {
	k := mulMod2Vec(x, b0, b1, out0, out1, &m.bar, add)
	n := len(x)
	x, b0, b1, out0, out1 = x[k:], b0[k:n], b1[k:n], out0[k:n], out1[k:n]
	if !add {
		for i, v := range x {
			out0[i] = m.MulMod(v, b0[i])
			out1[i] = m.MulMod(v, b1[i])
		}
		return
	}
	for i, v := range x {
		out0[i] = ring.AddMod64(out0[i], m.MulMod(v, b0[i]), m.Q)
		out1[i] = ring.AddMod64(out1[i], m.MulMod(v, b1[i]), m.Q)
	}
}
