package ring

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRNS2BRStep is one step of cbs's blind rotation for a lockstep
// pair of accumulators (CBSBatch), in the production shape (N = 2048, the
// STD128_CBS primes, B = 2^17, 2 digits, drop 21): per accumulator two
// inverse transforms, two decompositions and four forward transforms of
// the digits, then one DotRowsMono2Pair over the step's rows (in cache, as
// for all but the first pair of a batch). The variants are the step's
// forms, compared in one binary: "reduced" the digits by Forward (as before
// Forward4Q), "4Q" by Forward4Q, "4Q-unscaled" also the accumulators by
// InverseUnscaled (N^-1 folded into the monomials).
//
//	go test ./backend/ring -run '^$' -bench RNS2BRStep -benchtime 2000x
func BenchmarkRNS2BRStep(b *testing.B) {
	r, err := NewRNS2(2048, 134176769, 134111233)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(51, 52))
	rnd := func() Poly2 {
		p := r.NewPoly()
		for k := range p[0] {
			p[0][k], p[1][k] = rng.Uint32N(r.Q0), rng.Uint32N(r.Q1)
		}
		return p
	}
	rows := func() []Poly2 { return []Poly2{rnd(), rnd(), rnd(), rnd()} }
	b1, a1, b2, a2 := rows(), rows(), rows(), rows()
	acc := [2]*Mono2Acc{}
	for i := range acc {
		acc[i] = &Mono2Acc{Digits: r.NewPolys(4), Mono1: rnd(), Mono2: rnd(), AccB: rnd(), AccA: rnd()}
	}
	cB, cA := r.NewPoly(), r.NewPoly()
	for _, v := range []struct {
		name     string
		inv, fwd func(in, out Poly2)
	}{{"reduced", r.Inverse, r.Forward}, {"4Q", r.Inverse, r.Forward4Q}, {"4Q-unscaled", r.InverseUnscaled, r.Forward4Q}} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				for _, x := range acc {
					d := x.Digits
					v.inv(x.AccB, cB)
					v.inv(x.AccA, cA)
					r.Decompose(cB, 17, 2, 21, d[:2])
					r.Decompose(cA, 17, 2, 21, d[2:])
					for _, e := range d {
						v.fwd(e, e)
					}
				}
				r.DotRowsMono2Pair(b1, a1, b2, a2, acc[0], acc[1])
			}
		})
	}
}
