package bgv

import "math/bits"

// This file holds the word-level modular arithmetic the transforms need:
// Shoup multiplication by precomputed constants and Barrett reduction of
// 128-bit products. It mirrors what backend/ring's Modulus64 provides; it lives
// here only because ring's 64-bit path was being written in parallel, and
// should move there (see doc.go, "Moving to ring").
//
// All moduli are odd primes q < 2^61, so that the lazy ranges [0, 2q) and
// [0, 4q) used by Harvey's butterflies fit a uint64.

// maxModulusBits bounds every prime handled by this package.
const maxModulusBits = 61

// modulus bundles a prime q with its Barrett constant floor(2^128 / q).
type modulus struct {
	q, twoQ uint64
	bHi     uint64 // floor(2^128/q) = bHi·2^64 + bLo
	bLo     uint64
	// bar = {q, k-1, 65-k, floor(2^(k+63)/q)} for the bit length k of q:
	// the Barrett constants of the vector products (MULBAR in rns_amd64.s).
	bar [4]uint64
}

func newModulus(q uint64) modulus {
	// floor(2^128/q): long division of the words (1, 0, 0) by q; the top
	// step has quotient 0 and remainder 1 since q > 1.
	hi, r := bits.Div64(1, 0, q)
	lo, _ := bits.Div64(r, 0, q)
	k := uint64(bits.Len64(q))
	// 2^(k-1) < q (q is odd), so the quotient fits a word.
	mu, _ := bits.Div64(1<<(k-1), 0, q)
	return modulus{q: q, twoQ: 2 * q, bHi: hi, bLo: lo, bar: [4]uint64{q, k - 1, 65 - k, mu}}
}

// mulVec sets out = a·b mod q for a, b < q, on the vector kernel where
// available. out may alias a or b; len(out) entries.
func (m *modulus) mulVec(a, b, out []uint64) {
	k := mulModVec(a, b, out, &m.bar, false)
	a, b = a[k:len(out)], b[k:len(out)]
	for i, o := range a {
		out[k+i] = m.mul(o, b[i])
	}
}

// mulAddVec sets out = out + a·b mod q for a, b, out in [0, q).
func (m *modulus) mulAddVec(a, b, out []uint64) {
	k := mulModVec(a, b, out, &m.bar, true)
	a, b = a[k:len(out)], b[k:len(out)]
	for i, o := range a {
		out[k+i] = addMod(out[k+i], m.mul(o, b[i]), m.q)
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
			out0[i] = m.mul(v, b0[i])
			out1[i] = m.mul(v, b1[i])
		}
		return
	}
	for i, v := range x {
		out0[i] = addMod(out0[i], m.mul(v, b0[i]), m.q)
		out1[i] = addMod(out1[i], m.mul(v, b1[i]), m.q)
	}
}

// shoup returns floor(w·2^64 / q), the Shoup companion of the constant w < q.
func shoup(w, q uint64) uint64 {
	quo, _ := bits.Div64(w, 0, q)
	return quo
}

// mulShoupLazy returns a·w mod q in [0, 2q) for any a < 2^64, given
// wp = shoup(w, q). The estimate hi(a·wp) of a·w/q is off by at most one.
func mulShoupLazy(a, w, wp, q uint64) uint64 {
	hi, _ := bits.Mul64(a, wp)
	return a*w - hi*q
}

// mulShoup is mulShoupLazy followed by the final conditional subtraction.
func mulShoup(a, w, wp, q uint64) uint64 {
	r := mulShoupLazy(a, w, wp, q)
	if r >= q {
		r -= q
	}
	return r
}

// reduce128 returns (hi·2^64 + lo) mod q for hi < q, by Barrett reduction with
// the precomputed floor(2^128/q). The quotient estimate drops the low word of
// lo·bLo and the carries below it, so it is short by at most 3 and the
// remainder is fixed by at most three subtractions.
func (m *modulus) reduce128(hi, lo uint64) uint64 {
	// x·b / 2^128 with x = (hi, lo), b = (bHi, bLo):
	// x·b = hi·bHi·2^128 + (hi·bLo + lo·bHi)·2^64 + lo·bLo.
	t, _ := bits.Mul64(lo, m.bLo)
	h1, l1 := bits.Mul64(hi, m.bLo)
	h2, l2 := bits.Mul64(lo, m.bHi)
	mid, c1 := bits.Add64(l1, l2, 0)
	_, c2 := bits.Add64(mid, t, 0)
	quo := hi*m.bHi + h1 + h2 + c1 + c2
	r := lo - quo*m.q
	for r >= m.q {
		r -= m.q
	}
	return r
}

// mul returns a·b mod q for a, b < q.
func (m *modulus) mul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return m.reduce128(hi, lo)
}

// reduce returns a mod q for any a < 2^64.
func (m *modulus) reduce(a uint64) uint64 {
	return m.reduce128(0, a)
}

// addMod returns a+b mod q for a, b < q. Branch-free (min compiles to a
// conditional move): on random residues a branch mispredicts half the time.
func addMod(a, b, q uint64) uint64 {
	s := a + b
	return min(s, s-q)
}

// subMod returns a-b mod q for a, b < q, branch-free: when a < b, a-b wraps
// above 2^63 and a-b+q is the smaller value.
func subMod(a, b, q uint64) uint64 {
	r := a - b
	return min(r, r+q)
}

// powMod returns a^e mod q (table construction only).
func powMod(a, e, q uint64) uint64 {
	r := uint64(1) % q
	a %= q
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = mulModSlow(r, a, q)
		}
		a = mulModSlow(a, a, q)
	}
	return r
}

// mulModSlow returns a·b mod q with a hardware division (table construction only).
func mulModSlow(a, b, q uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return bits.Rem64(hi, lo, q)
}

// invMod returns a^-1 mod the prime q (Fermat; table construction only).
func invMod(a, q uint64) uint64 {
	return powMod(a, q-2, q)
}
