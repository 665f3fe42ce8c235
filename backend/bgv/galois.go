package bgv

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// GaloisLog returns e in [0, m-1) with g^e ≡ t (mod m), g = Generator(): the
// rotation amount of κ_t in the evaluation order. It is an error if t is not
// a unit mod m.
func (pr *Params) GaloisLog(t uint64) (int, error) {
	t %= uint64(pr.m)
	if t == 0 {
		return 0, fmt.Errorf("bgv: galois element %d is not a unit mod %d", t, pr.m)
	}
	return pr.plan.Log(int(t)), nil
}

// GaloisElement returns g^e mod m.
func (pr *Params) GaloisElement(e int) uint64 {
	e %= pr.n
	if e < 0 {
		e += pr.n
	}
	return uint64(pr.plan.Pow(e))
}

// Automorphism sets out = κ_t(a), a(X) → a(X^t) mod Φ_m, in the EVALUATION
// representation. Because row s holds a(ζ^(g^s)) and κ_t(a)(ζ^(g^s)) =
// a(ζ^(g^(s+e))) with t = g^e, this is a cyclic rotation of every row by e
// (two copies, no index table). out must not alias a. Allocates nothing.
func (r *Ring) Automorphism(a *Poly, t uint64, out *Poly) error {
	e, err := r.params.GaloisLog(t)
	if err != nil {
		return err
	}
	for i := range out.Rows {
		src, dst := a.Rows[i][:r.n], out.Rows[i][:r.n]
		copy(dst, src[e:])
		copy(dst[r.n-e:], src[:e])
	}
	return nil
}

// AutomorphismCoeff sets out = κ_t(a) in the COEFFICIENT representation:
// coefficient i moves to i·t mod m, and the coefficient that lands on X^(m-1)
// is folded back by X^(m-1) = -(1 + X + ... + X^(m-2)). out must not alias a.
// Allocates nothing.
func (r *Ring) AutomorphismCoeff(a *Poly, t uint64, out *Poly) error {
	m := uint64(r.params.m)
	t %= m
	if t == 0 {
		return fmt.Errorf("bgv: galois element 0 is not a unit mod %d", m)
	}
	tInv := ring.InvModPrime(t, m)
	// The source of position j is j·t^-1; position m-1 receives a_top with
	// top = (m-1)·t^-1 mod m = m - t^-1.
	top := int(m - tInv)
	for i := range out.Rows {
		q := r.moduli[i].Q
		src, dst := a.Rows[i][:r.n], out.Rows[i][:r.n]
		c := uint64(0) // a has no X^(m-1) term: nothing to fold for t = 1
		if top < r.n {
			c = src[top]
		}
		k := uint64(0) // j·t^-1 mod m
		for j := range dst {
			v := uint64(0)
			if k != m-1 {
				v = src[k]
			}
			dst[j] = ring.SubMod64(v, c, q)
			k += tInv
			if k >= m {
				k -= m
			}
		}
	}
	return nil
}
