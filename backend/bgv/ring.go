package bgv

import (
	"fmt"
	"math/big"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Ring is R_Q = Z_Q[X]/Φ_m in double-CRT form over a list of primes: an
// element at level t (modulo the first t+1 primes) is a Poly with t+1 rows,
// row i holding its evaluations at ζ_i^(g^s), s = 0..φ(m)-1, modulo prime i
// (the evaluation representation of GHS section 2.1). Conversions to and from
// coefficients go through each prime's ring.RaderNTT. Immutable; safe for
// concurrent use (callers own their scratch).
type Ring struct {
	params     *Params
	n          int
	moduli     []modulus
	transforms []*ring.RaderNTT
}

func newRing(pr *Params, primes []uint64) (*Ring, error) {
	r := &Ring{params: pr, n: pr.n}
	for _, p := range primes {
		t, err := ring.NewRaderNTT(pr.plan, p, pr.auxNTT, pr.auxNTT2)
		if err != nil {
			return nil, fmt.Errorf("ring over %v: %w", primes, err)
		}
		r.transforms = append(r.transforms, t)
		r.moduli = append(r.moduli, newModulus(p))
	}
	return r, nil
}

// Poly is an element of a Ring: Rows[i][s] is the value modulo prime i at
// evaluation point s (evaluation representation) or, for the few functions
// that say so, the coefficient of X^s (coefficient representation). All
// entries are in [0, p_i). The level is len(Rows)-1.
type Poly struct {
	Rows [][]uint64
}

// Level returns len(Rows)-1.
func (p *Poly) Level() int { return len(p.Rows) - 1 }

// CopyFrom sets p to a copy of the first len(p.Rows) rows of a.
func (p *Poly) CopyFrom(a *Poly) {
	for i := range p.Rows {
		copy(p.Rows[i], a.Rows[i])
	}
}

// N returns φ(m), the length of every row.
func (r *Ring) N() int { return r.n }

// MaxLevel returns the number of primes minus one.
func (r *Ring) MaxLevel() int { return len(r.moduli) - 1 }

// Prime returns prime i.
func (r *Ring) Prime(i int) uint64 { return r.moduli[i].Q }

// Transform returns the transform of prime i.
func (r *Ring) Transform(i int) *ring.RaderNTT { return r.transforms[i] }

// Modulus returns the product of primes 0..level.
func (r *Ring) Modulus(level int) *big.Int {
	q := big.NewInt(1)
	for _, m := range r.moduli[:level+1] {
		q.Mul(q, new(big.Int).SetUint64(m.Q))
	}
	return q
}

// NewPoly allocates a zero element at the given level.
func (r *Ring) NewPoly(level int) *Poly {
	rows := make([][]uint64, level+1)
	backing := make([]uint64, (level+1)*r.n)
	for i := range rows {
		rows[i] = backing[i*r.n : (i+1)*r.n : (i+1)*r.n]
	}
	return &Poly{Rows: rows}
}

// ScratchLen is the scratch length the conversions need (the largest over
// the primes).
func (r *Ring) ScratchLen() int {
	n := 0
	for _, t := range r.transforms {
		n = max(n, t.ScratchLen())
	}
	return n
}

// NewScratch allocates scratch for ToEval/ToCoeff.
func (r *Ring) NewScratch() []uint64 { return make([]uint64, r.ScratchLen()) }

// Add sets out = a + b on the first len(out.Rows) rows (either representation).
func (r *Ring) Add(a, b, out *Poly) {
	for i := range out.Rows {
		q := r.moduli[i].Q
		x, y, z := a.Rows[i][:r.n], b.Rows[i][:r.n], out.Rows[i][:r.n]
		for j := range z {
			z[j] = ring.AddMod64(x[j], y[j], q)
		}
	}
}

// Sub sets out = a - b (either representation).
func (r *Ring) Sub(a, b, out *Poly) {
	for i := range out.Rows {
		q := r.moduli[i].Q
		x, y, z := a.Rows[i][:r.n], b.Rows[i][:r.n], out.Rows[i][:r.n]
		for j := range z {
			z[j] = ring.SubMod64(x[j], y[j], q)
		}
	}
}

// Neg sets out = -a (either representation).
func (r *Ring) Neg(a, out *Poly) {
	for i := range out.Rows {
		q := r.moduli[i].Q
		x, z := a.Rows[i][:r.n], out.Rows[i][:r.n]
		for j := range z {
			z[j] = ring.SubMod64(0, x[j], q)
		}
	}
}

// Mul sets out = a·b in R_Q: the slot-wise product, so a, b and out are in
// the evaluation representation. out may alias a or b.
func (r *Ring) Mul(a, b, out *Poly) {
	for i := range out.Rows {
		r.moduli[i].mulVec(a.Rows[i][:r.n], b.Rows[i][:r.n], out.Rows[i][:r.n])
	}
}

// MulAdd sets out += a·b (evaluation representation). out must not alias a or b.
func (r *Ring) MulAdd(a, b, out *Poly) {
	for i := range out.Rows {
		r.moduli[i].mulAddVec(a.Rows[i][:r.n], b.Rows[i][:r.n], out.Rows[i][:r.n])
	}
}

// MulScalar sets out = c·a for an integer c given by its residues: c mod
// prime i is taken as c % p_i (either representation).
func (r *Ring) MulScalar(a *Poly, c uint64, out *Poly) {
	for i := range out.Rows {
		q := r.moduli[i].Q
		w := c % q
		wp := ring.ShoupConst64(w, q)
		x, z := a.Rows[i][:r.n], out.Rows[i][:r.n]
		for j := range z {
			z[j] = ring.MulShoup64(x[j], w, wp, q)
		}
	}
}

// ToEval converts a from the coefficient to the evaluation representation,
// row by row; out may alias a. Allocates nothing.
func (r *Ring) ToEval(a, out *Poly, scratch []uint64) {
	for i := range out.Rows {
		r.transforms[i].Forward(a.Rows[i], out.Rows[i], scratch)
	}
}

// ToCoeff converts a from the evaluation to the coefficient representation
// (reduced modulo Φ_m, degree < φ(m)); out may alias a. Allocates nothing.
func (r *Ring) ToCoeff(a, out *Poly, scratch []uint64) {
	for i := range out.Rows {
		r.transforms[i].Inverse(a.Rows[i], out.Rows[i], scratch)
	}
}

// SetSmall sets out, in the evaluation representation, to the polynomial with
// the given signed integer coefficients (len(coeffs) = φ(m); coefficients of
// any size, reduced modulo each prime). For keys, errors and plaintexts.
func (r *Ring) SetSmall(coeffs []int64, out *Poly, scratch []uint64) {
	for i, row := range out.Rows {
		q := r.moduli[i].Q
		for j, c := range coeffs[:r.n] {
			if c >= 0 {
				row[j] = uint64(c) % q
			} else {
				row[j] = q - uint64(-c)%q
				if row[j] == q {
					row[j] = 0
				}
			}
		}
		r.transforms[i].Forward(row, row, scratch)
	}
}

// SetBig sets out (evaluation representation) to the polynomial with the given
// integer coefficients (len(coeffs) = φ(m)). Not for hot paths (math/big).
func (r *Ring) SetBig(coeffs []*big.Int, out *Poly, scratch []uint64) {
	t := new(big.Int)
	for i, row := range out.Rows {
		q := new(big.Int).SetUint64(r.moduli[i].Q)
		for j, c := range coeffs[:r.n] {
			row[j] = t.Mod(c, q).Uint64()
		}
		r.transforms[i].Forward(row, row, scratch)
	}
}

// BigCoeffs returns the coefficients of a (evaluation representation, level
// t) as integers in (-Q_t/2, Q_t/2], by CRT. Not for hot paths (math/big).
func (r *Ring) BigCoeffs(a *Poly) []*big.Int {
	level := a.Level()
	Q := r.Modulus(level)
	half := new(big.Int).Rsh(Q, 1)
	// CRT basis: e_i = (Q/p_i)·((Q/p_i)^-1 mod p_i).
	basis := make([]*big.Int, level+1)
	for i := range basis {
		p := new(big.Int).SetUint64(r.moduli[i].Q)
		qi := new(big.Int).Quo(Q, p)
		inv := new(big.Int).ModInverse(new(big.Int).Mod(qi, p), p)
		basis[i] = inv.Mul(inv, qi)
	}
	scratch := r.NewScratch()
	row := make([]uint64, r.n)
	out := make([]*big.Int, r.n)
	for j := range out {
		out[j] = new(big.Int)
	}
	t := new(big.Int)
	for i := 0; i <= level; i++ {
		r.transforms[i].Inverse(a.Rows[i], row, scratch)
		for j, v := range row {
			out[j].Add(out[j], t.Mul(basis[i], t.SetUint64(v)))
		}
	}
	for _, c := range out {
		c.Mod(c, Q)
		if c.Cmp(half) > 0 {
			c.Sub(c, Q)
		}
	}
	return out
}
