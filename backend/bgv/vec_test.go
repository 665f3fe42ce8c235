package bgv

import (
	"math/rand/v2"
	"testing"
)

// vecTestPrimes returns direct-mode primes for m = 65537 of the sizes the
// M65537 chain uses (45 and 59 bits) plus the largest admissible size.
func vecTestPrimes(t testing.TB) []uint64 {
	var out []uint64
	step := uint64(65537) << 16
	for _, b := range []int{37, 45, 59, maxModulusBits} {
		ps, err := generatePrimes(b, step, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ps...)
	}
	return out
}

// edgeRow is a random row with the extreme residues 0 and q-1 mixed in.
func edgeRow(rng *rand.Rand, n int, q uint64) []uint64 {
	r := randomRow(rng, n, q)
	for i := 0; i < n; i += 7 {
		r[i] = q - 1
	}
	for i := 3; i < n; i += 11 {
		r[i] = 0
	}
	return r
}

// TestTransformVecMatchesGo: Forward and Inverse with this package's vector
// kernels (the permutations and scalar passes around the convolution; the
// convolution is ring.CyclicNTT64, tested there) agree bit for bit with the
// pure-Go ones at m = 65537 (direct primes of 37 to 61 bits), m = 8191
// (padded convolution, auxiliary mode) and the two-auxiliary Toy set.
func TestTransformVecMatchesGo(t *testing.T) {
	if !hasVec {
		t.Skip("no AVX-512F/DQ (or built with purego)")
	}
	rng := rand.New(rand.NewPCG(23, 24))
	type pair struct{ vec, ref *Transform }
	var cases []pair
	plan := newRaderPlan(65537, smallestGenerator(65537))
	for _, p := range vecTestPrimes(t) {
		v, err := newTransformVec(plan, p, nil, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		g, err := newTransformVec(plan, p, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, pair{v, g})
	}
	for _, lit := range []ParamsLiteral{M8191Literal, toyM257TwoAux} {
		pr := testParams(t, lit)
		for _, tr := range testTransforms(t, pr) {
			g, err := newTransformVec(pr.plan, tr.Prime(), pr.auxNTT, pr.auxNTT2, false)
			if err != nil {
				t.Fatal(err)
			}
			if !tr.vec {
				t.Fatalf("m=%d p=%d: transform not on the vector kernels", pr.M(), tr.Prime())
			}
			cases = append(cases, pair{tr, g})
		}
	}
	for _, c := range cases {
		n, p := c.vec.plan.n, c.vec.Prime()
		a := edgeRow(rng, n, p)
		sv, sg := make([]uint64, c.vec.ScratchLen()), make([]uint64, c.ref.ScratchLen())
		for _, dir := range []string{"Forward", "Inverse"} {
			bv, bg := make([]uint64, n), make([]uint64, n)
			if dir == "Forward" {
				c.vec.Forward(a, bv, sv)
				c.ref.Forward(a, bg, sg)
			} else {
				c.vec.Inverse(a, bv, sv)
				c.ref.Inverse(a, bg, sg)
			}
			for i := range bv {
				if bv[i] != bg[i] {
					t.Fatalf("m=%d p=%d %s: entry %d: vector %d != Go %d", c.vec.plan.m, p, dir, i, bv[i], bg[i])
				}
			}
		}
	}
}

// TestRaderOrder: inverseRader and forwardRader are Inverse and Forward
// with the coefficients permuted into Rader order (slot t = coefficient of
// X^(g^t), slot n/2 = the constant one), on the vector and pure-Go kernels
// and in every transform mode.
func TestRaderOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, lit := range []ParamsLiteral{ToyM17Literal, ToyM257Literal, M8191Literal, toyM257TwoAux} {
		pr := testParams(t, lit)
		for _, tr := range testTransforms(t, pr) {
			variants := []*Transform{tr}
			if tr.vec {
				g, err := newTransformVec(pr.plan, tr.Prime(), pr.auxNTT, pr.auxNTT2, false)
				if err != nil {
					t.Fatal(err)
				}
				variants = append(variants, g)
			}
			for _, v := range variants {
				n, p := pr.N(), v.Prime()
				toRader := func(a []uint64) []uint64 {
					r := make([]uint64, n)
					for s := range r {
						if s != n/2 {
							r[s] = a[pr.plan.scatterInvRaw(s)]
						}
					}
					r[n/2] = a[0]
					return r
				}
				sc := make([]uint64, v.ScratchLen())
				b := edgeRow(rng, n, p)
				nat, ord := make([]uint64, n), make([]uint64, n)
				v.Inverse(b, nat, sc)
				v.inverseRader(b, ord, sc)
				want := toRader(nat)
				a := edgeRow(rng, n, p)
				fNat, fOrd := make([]uint64, n), make([]uint64, n)
				v.Forward(a, fNat, sc)
				v.forwardRader(toRader(a), fOrd, sc)
				for i := range ord {
					if ord[i] != want[i] {
						t.Fatalf("m=%d p=%d vec=%v: inverseRader slot %d = %d, want %d", pr.M(), p, v.vec, i, ord[i], want[i])
					}
					if fOrd[i] != fNat[i] {
						t.Fatalf("m=%d p=%d vec=%v: forwardRader slot %d = %d, want %d", pr.M(), p, v.vec, i, fOrd[i], fNat[i])
					}
				}
			}
		}
	}
}
